import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn diff`: what two copies of a document hold that the other lacks, and what merging
/// them would change (mn.md §9).
enum Diff {
  enum Options {
    static let backup = Option<String>(
      "backup", .path, valueName: "ARCHIVE",
      help: "Compare the document with its copy in this backup or export archive.")
    static let utc = Flag("utc", help: "Print times in UTC instead of local time.")
  }

  static let spec = CommandSpec(
    name: "diff",
    abstract: "Compare copies of a document, and show what merging them changes.",
    discussion: """
      'mn diff A B' compares two files of one document; 'mn diff PATH' compares the \
      document with each of its conflict copies and iCloud conflict versions; \
      'mn diff --backup ARCHIVE PATH' with its copy in a backup or export archive. For each \
      pair: first the changes only the first side has and those only the second has (as \
      'mn log' prints them), then what merging the second into the first would change in \
      the document's content (as 'mn doc show' prints it): each path added (+), removed (-) \
      or replaced (~), with its old and new value. No schema is assumed. --json prints one \
      array with an object per pair, whose "patch" is an RFC 6902 JSON Patch (paths are JSON \
      Pointers, ~ written ~0 and / written ~1) that turns the first side's JSON into the \
      merge's.

      Exits 0 when every pair holds the same changes, 1 when one differs (as diff and git \
      diff --exit-code); with -q nothing is printed and only the exit status answers.
      """,
    arguments: [
      ArgumentSpec("A", .document, help: "A document (PATH), or the first file (A B)."),
      ArgumentSpec("B", .document, help: "The second file.", optional: true),
    ],
    options: [Options.backup, Options.utc],
    exits: [.ok, .negative, .usage, .dataErr, .noInput, .unavailable],
    examples: [
      Example("mn diff records/2026/09.automerge", "The month against its conflict copies."),
      Example(
        "mn diff --backup ~/Backups/mn-2026-11-30.tar.gz tags.automerge",
        "What a backup holds that the tag list lost, and the other way round."),
      Example(
        "mn diff --json a.automerge b.automerge | jq '.[0].patch'",
        "The merge's effect as a JSON Patch."),
    ],
    run: .plain(run))

  /// One pair to compare: names and bytes of each side.
  struct Side {
    var name: String
    var bytes: [UInt8]
  }

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let pairs: [(Side, Side)]
    if let archive = call[Options.backup] {
      guard call.arguments.count == 1 else {
        throw UsageError(message: "--backup takes one document", path: call.path)
      }
      pairs = [try backupPair(archive, call.arguments[0], call, env)]
    } else if call.arguments.count == 2 {
      let a = try DocInput.read(call.arguments[0], call, env)
      let b = try DocInput.read(call.arguments[1], call, env)
      pairs = [
        (Side(name: a.displayName, bytes: a.bytes), Side(name: b.displayName, bytes: b.bytes))
      ]
    } else {
      pairs = try copyPairs(call.arguments[0], call, env)
    }
    var results: [(Side, Side, DocumentDiff)] = []
    for (a, b) in pairs { results.append((a, b, try compare(a, b))) }
    try Output(call: call, env: env, results: results).write()
    return results.allSatisfy { $0.2.same } ? .ok : .negative
  }

  static func compare(_ a: Side, _ b: Side) throws -> DocumentDiff {
    func decode(_ side: Side, _ body: ([UInt8]) throws -> AutomergeFile) throws -> AutomergeFile {
      do {
        return try body(side.bytes)
      } catch let error as AutomergeDecodeError {
        throw CommandError.notAutomerge(name: side.name, error)
      }
    }
    let first = try decode(a, DocumentDiff.decodeFirst)
    let second = try decode(b, DocumentDiff.decodeSecond)
    return try DocumentDiff.compare(a.bytes, decoded: first, b.bytes, decoded: second)
  }

  static func root(_ call: Invocation, _ env: Environment) throws -> AbsolutePath {
    let found = env.discover(root: call.global.root)
    guard let root = found.root else { throw DiscoveryText.notFound(found) }
    return root
  }

  /// The document `argument` and each of its conflict copies and iCloud versions.
  static func copyPairs(_ argument: String, _ call: Invocation, _ env: Environment) throws
    -> [(Side, Side)]
  {
    let root = try root(call, env)
    let listing = try env.scanFolder(root)
    let documents = try DocumentSelection.select([argument], in: listing, env)
    var pairs: [(Side, Side)] = []
    for document in documents {
      if document.state == .placeholder { throw CommandError.notDownloaded(document.logicalName) }
      let first = Side(name: document.logicalName, bytes: try readDocument(document, root, env))
      for copy in document.copies {
        guard copy.placeholder == nil else {
          try env.stderr.write("mn: warning: '\(copy.logicalName)' is not downloaded; skipped\n")
          continue
        }
        pairs.append(
          (
            first,
            Side(
              name: copy.logicalName,
              bytes: try read(copy.path, copy.logicalName, env))
          ))
      }
      let versions = ConflictVersions.list([document], root: root, provider: env.syncProvider)
      for version in versions.versions[document.logicalName] ?? [] {
        let bytes: [UInt8]
        do {
          bytes = try env.syncProvider.readVersion(version, limit: DocumentName.maxFileSize)
        } catch {
          try env.stderr.write(
            "mn: warning: cannot read a version of '\(document.logicalName)': \(error)\n")
          continue
        }
        let name =
          document.logicalName + " (version" + (version.device.map { " from " + $0 } ?? "") + ")"
        pairs.append((first, Side(name: name, bytes: bytes)))
      }
    }
    if pairs.isEmpty && !call.global.quiet {
      try env.stderr.write(
        "mn: '\(documents.map(\.logicalName).joined(separator: "', '"))' has no conflict copies\n")
    }
    return pairs
  }

  /// The document `argument` and its entry in the archive.
  static func backupPair(
    _ archive: String, _ argument: String, _ call: Invocation, _ env: Environment
  ) throws -> (Side, Side) {
    let root = try root(call, env)
    let name = try DataFolder.logicalName(
      for: argument, root: root, currentDirectory: env.currentDirectory,
      fileSystem: env.fileSystem)
    guard let document = DocumentName(logicalName: name.string) else {
      throw CommandError.noSuchDocument(argument)
    }
    let path = AbsolutePath(normalizing: archive, relativeTo: env.currentDirectory)
    guard try env.fileSystem.info(path) != nil else {
      throw CommandError.noSuchArchive(archive)
    }
    let read = try ArchiveReader.read(path: path, fileSystem: env.fileSystem)
    guard let entry = read.entry(document.logicalName) else {
      throw CommandError.noSuchDocument("\(document.logicalName)' in '\(archive)")
    }
    let current = document.path(root: root)
    let bytes =
      try env.fileSystem.info(current) == nil
      ? [] : try self.read(current, document.logicalName, env)
    return (
      Side(name: document.logicalName, bytes: bytes),
      Side(name: "\(archive):\(document.logicalName)", bytes: entry.bytes)
    )
  }

  static func readDocument(_ document: DocumentEntry, _ root: AbsolutePath, _ env: Environment)
    throws
    -> [UInt8]
  {
    if document.state == .copiesOnly { return [] }
    return try read(document.name.path(root: root), document.logicalName, env)
  }

  static func read(_ path: AbsolutePath, _ name: String, _ env: Environment) throws -> [UInt8] {
    do {
      return try env.fileSystem.readFile(path, limit: DocumentName.maxFileSize)
    } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {
      throw CommandError.noSuchFile(name)
    }
  }
}
