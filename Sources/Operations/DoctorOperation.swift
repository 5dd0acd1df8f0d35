import Archive
import AutomergeCodec
import Platform
import Storage
import Threads

/// `mn doctor`: one health report of a data folder (mn.md §11).
///
/// It reads and never writes: it takes no lock (it only tries the lock, and lets go at
/// once), removes nothing and creates nothing. It scans the folder, decodes every downloaded
/// document and conflict copy, and turns what needs attention into findings, each naming
/// what fixes it. On macOS the caller runs it inside `SyncProvider.withoutMaterializing`, so
/// that reading never downloads: a dataless file then reads as `EDEADLK`, reported as not
/// downloaded. In synced folders it asks the provider first where each file stands, and
/// reads only the current ones, inside a coordinated read (the caller passes a
/// `CoordinatedFileSystem`, mn.md §15): a file that is stale or not downloaded is reported
/// and never read, because a coordinated read of it would wait for its download. It also
/// asks which documents have unresolved conflict versions.
public enum DoctorOperation {
  /// The largest file decoded.
  public static let maxDocumentSize = 1 << 31

  /// Examines the data folder at `root`.
  ///
  /// - Parameters:
  ///   - root: the data folder, from discovery.
  ///   - source: how discovery found it.
  ///   - warnings: discovery's warnings (a pointer file to a missing folder), each a finding.
  ///   - fileSystem: every disk access goes through it.
  ///   - syncProvider: says which documents are stale and which have versions.
  ///   - bisyncDirectory: rclone bisync's work directory, whose listings of this folder are
  ///     looked at (nil: not looked at).
  ///   - threads: how many documents are decoded at once (the processors, for a live run);
  ///     the report is the same for any number.
  /// - Returns: the report.
  /// - Throws: `StorageError` when the root itself cannot be listed.
  public static func examine(
    root: AbsolutePath, source: DiscoverySource, warnings: [String] = [],
    fileSystem: any FileSystem,
    syncProvider: any SyncProvider = NoSyncProvider(), bisyncDirectory: AbsolutePath? = nil,
    threads: Int = 1
  ) throws(StorageError) -> DoctorReport {
    let listing = try FolderScan.scan(root: root, fileSystem: fileSystem)
    var report = DoctorReport(root: root, source: source)
    report.lock = lockState(root: root, fileSystem: fileSystem)
    for warning in warnings {
      report.add(
        .discovery, "", warning, fix: "fix or remove the pointer file (see mn resolve --explain)")
    }
    // Each document examined in order on this thread (what reads the disk or asks the
    // provider), its files decoded on up to `threads` threads, its findings added in order.
    let documents = listing.documents
    OrderedWork.run(
      count: documents.count, width: threads,
      produce: { i -> Examination in
        var examination = Examination()
        examine(documents[i], into: &examination, fileSystem: fileSystem, provider: syncProvider)
        return examination
      },
      transform: { $0.decoded() },
      consume: { i, examination in
        report.documents[documents[i].state, default: 0] += 1
        report.filesDecoded += examination.filesRead
        report.findings += examination.findings
      })
    examineSync(listing, into: &report, provider: syncProvider)
    for temporary in listing.temporaries {
      let note = report.lock == .held ? "; the lock is held, so it may be a write in progress" : ""
      report.add(
        .staleTemporary, temporary.logicalName,
        "a temporary file left by an interrupted write (\(temporary.size) bytes)\(note)",
        fix: "mn fetch (any writing mn command removes it)")
    }
    for problem in listing.problems {
      report.add(.scanProblem, problem.subject, problem.description, fix: fix(for: problem))
    }
    examineSyncthingVersions(root: root, listing: listing, into: &report, fileSystem: fileSystem)
    examineBisync(
      root: root, bisyncDirectory: bisyncDirectory, into: &report, fileSystem: fileSystem)
    return report
  }

  /// Whether another process holds the write lock; the lock file is never created.
  static func lockState(root: AbsolutePath, fileSystem: any FileSystem) -> LockState {
    do {
      guard try fileSystem.info(DataFolder.lockPath(root: root)) != nil else {
        return .free
      }
    } catch {
      return .unknown("\(error)")
    }
    do {
      let lock = try WriteLocks.acquire([root], timeout: 0, fileSystem: fileSystem) {
        _ in
      }
      lock.release()
      return .free
    } catch {
      if case .held = error { return .held }
      return .unknown(error.description)
    }
  }

  static func examine(
    _ document: DocumentEntry, into report: inout Examination, fileSystem: any FileSystem,
    provider: any SyncProvider = NoSyncProvider()
  ) {
    let name = document.logicalName
    let word = ShellQuote.word(name)
    if let placeholder = document.placeholder {
      if document.isDownloaded {
        report.add(
          .stalePlaceholder, name,
          "a \(placeholder.kind.rawValue) placeholder is left beside the file",
          fix: "mn fetch \(word)")
      } else {
        report.add(
          .placeholder, name, "not downloaded (\(placeholder.kind.rawValue) placeholder)",
          fix: "mn fetch \(word)")
      }
    }
    if document.state == .copiesOnly {
      report.add(
        .conflict, name,
        "no file, only \(count(document.copies.count, "conflict copy", "conflict copies"))",
        fix: "mn merge-conflicts \(word)")
    } else if document.hasCopies {
      report.add(
        .conflict, name, count(document.copies.count, "conflict copy", "conflict copies"),
        fix: "mn merge-conflicts \(word)")
    }
    if document.isDownloaded {
      check(
        document.path, name: name, isCopy: false, into: &report, fileSystem: fileSystem,
        provider: provider)
    }
    for copy in document.copies {
      if copy.placeholder != nil {
        report.add(
          .placeholder, copy.logicalName, "conflict copy of '\(name)', not downloaded",
          fix: "mn fetch \(ShellQuote.word(copy.logicalName))")
      } else {
        check(
          copy.path, name: copy.logicalName, isCopy: true, into: &report,
          fileSystem: fileSystem,
          provider: provider)
      }
    }
  }

  /// Reads one file, to be decoded with the document's others (`Examination.decoded`); one
  /// that cannot be read is a finding. In a synced folder the provider is asked first: a
  /// file that is not current (dataless, not downloaded, stale) is a finding and is not read.
  static func check(
    _ location: AbsolutePath, name: String, isCopy: Bool, into report: inout Examination,
    fileSystem: any FileSystem, provider: any SyncProvider = NoSyncProvider()
  ) {
    if provider.folderKind(of: location) != .plain,
      let problem = SyncReadiness.check(
        location, info: (try? fileSystem.info(location)) ?? nil, provider: provider)
    {
      let fix = "mn fetch \(ShellQuote.word(name))"
      if problem.status == .stale {
        report.add(.notCurrent, name, "stale: a newer version is not downloaded yet", fix: fix)
      } else {
        report.add(.placeholder, name, "not downloaded (a dataless file)", fix: fix)
      }
      return
    }
    report.filesRead += 1
    do {
      report.steps.append(
        .decode(try fileSystem.readFile(location, limit: maxDocumentSize), name, isCopy: isCopy))
    } catch let error as FileSystemError where error.meansNotDownloaded {
      report.add(
        .placeholder, name, "not downloaded (reading it gives EDEADLK: a dataless file)",
        fix: "mn fetch \(ShellQuote.word(name))")
    } catch {
      report.add(unreadable: name, isCopy: isCopy, error)
    }
  }

  /// Decodes one file's bytes: one that does not decode, one with orphan changes, and a
  /// document that would take less than half its size as one document chunk are findings.
  static func decode(
    _ bytes: [UInt8], name: String, isCopy: Bool, into report: inout Examination
  ) {
    let file: AutomergeFile.Verification
    do {
      // Validity and orphans only: every op is still checked, no change is kept.
      file = try AutomergeFile.verify(bytes)
    } catch {
      report.add(unreadable: name, isCopy: isCopy, error)
      return
    }
    if !file.orphans.isEmpty {
      report.add(
        .orphanChanges, name,
        "\(count(file.orphans.count, "change", "changes")) whose dependencies are missing "
          + "(\(count(file.missingDependencies.count, "missing change", "missing changes")))",
        fix: "merge a copy that has them: mn restore ARCHIVE, or mn doc merge")
    }
    // Appended chunks (merges keep the app's bytes and append changes): estimated in
    // memory, nothing written.
    if !isCopy, file.chunkCount > 1 + file.orphans.count,
      case .success(let saved) = CompactOperation.estimate(bytes),
      bytes.count > 2 * saved.bytes.count
    {
      report.add(
        .compactable, name,
        "\(bytes.count) bytes, \(saved.bytes.count) as one document chunk "
          + "(\(file.chunkCount) chunks): it loads slower than it needs to",
        fix: "mn compact \(ShellQuote.word(name))")
    }
  }

  /// What the sync provider says about versions: unresolved ones, and once, when the system
  /// shows this process no versions at all. (Stale files are found by `check`.)
  static func examineSync(
    _ listing: FolderListing, into report: inout DoctorReport, provider: any SyncProvider
  ) {
    let (versions, hidden) = ConflictVersions.list(
      listing.documents, root: listing.root, provider: provider)
    for document in listing.documents {
      guard let found = versions[document.logicalName] else { continue }
      report.add(
        .unresolvedVersions, document.logicalName,
        count(found.count, "unresolved conflict version", "unresolved conflict versions")
          + " (iCloud)",
        fix: "mn merge-conflicts \(ShellQuote.word(document.logicalName))")
    }
    if !hidden.isEmpty {
      report.notes.append(
        "the system shows mn no conflict versions (NSFileVersion) of the files in this folder, "
          + "so unresolved iCloud conflicts cannot be seen from the command line; open the app "
          + "to resolve them")
    }
  }

  static func fix(for problem: StorageError) -> String {
    switch problem {
    case .symbolicLink: return "replace the link with what it points to (mn never follows links)"
    case .documentIsDirectory: return "move the directory out of the data folder"
    case .cannotReadDirectory, .cannotReadEntry: return "check the permissions"
    case .unsupportedFileType: return "move it out of the data folder"
    case .tooDeep: return "move the nested folders out of the data folder"
    case .notDownloadedDirectory:
      return "download the folder (Finder: Download Now), then run mn again"
    case .equivalentNames: return "rename or merge one of the two"
    case .noSuchFolder, .notADirectory, .outsideRoot, .invalidPath: return "check the path"
    }
  }

  static func count(_ n: Int, _ one: String, _ many: String) -> String {
    "\(n) \(n == 1 ? one : many)"
  }
}

/// What `mn doctor` found of one document, in the order it reports it: findings, and the
/// files read whose decoding (`decoded`, on any thread) gives the rest.
struct Examination: Sendable {
  enum Step: Sendable {
    case found(DoctorFinding)
    case decode([UInt8], String, isCopy: Bool)
  }

  var steps: [Step] = []
  /// How many files were read (or tried) to be decoded.
  var filesRead = 0

  /// The findings, once `decoded`.
  var findings: [DoctorFinding] {
    steps.compactMap {
      if case .found(let finding) = $0 { return finding }
      return nil
    }
  }

  mutating func add(_ kind: DoctorFinding.Kind, _ subject: String, _ message: String, fix: String) {
    steps.append(.found(DoctorFinding(kind: kind, subject: subject, message: message, fix: fix)))
  }

  /// A document or copy that cannot be read or does not decode.
  mutating func add(unreadable name: String, isCopy: Bool, _ error: any Error) {
    let word = ShellQuote.word(name)
    add(
      isCopy ? .unreadableCopy : .unreadableDocument, name, "not a valid Automerge file: \(error)",
      fix: isCopy
        ? "mn repair \(word) rebuilds it from its verified chunks (mn doc check says why)"
        : "mn repair \(word) (mn doc check says why)")
  }

  /// Every file decoded, in place: its findings where it stood.
  func decoded() -> Examination {
    var result = Examination(filesRead: filesRead)
    for step in steps {
      switch step {
      case .found: result.steps.append(step)
      case .decode(let bytes, let name, let isCopy):
        DoctorOperation.decode(bytes, name: name, isCopy: isCopy, into: &result)
      }
    }
    return result
  }
}

/// Whether the write lock is held (mn.md §6).
public enum LockState: Sendable, Equatable, CustomStringConvertible {
  /// Nobody holds it.
  case free
  /// Another process (the app, another mn) holds it.
  case held
  /// It could not be tried; why.
  case unknown(String)

  public var description: String {
    switch self {
    case .free: return "free"
    case .held: return "held by another process"
    case .unknown(let why): return "unknown (\(why))"
    }
  }
}

/// One thing `mn doctor` found.
public struct DoctorFinding: Sendable, Equatable {
  /// What was found. The raw value is the `--json` spelling.
  public enum Kind: String, Sendable, CaseIterable {
    case discovery
    case placeholder
    case stalePlaceholder = "stale-placeholder"
    case conflict
    case unreadableDocument = "unreadable-document"
    case unreadableCopy = "unreadable-copy"
    case orphanChanges = "orphan-changes"
    case notCurrent = "not-current"
    case unresolvedVersions = "unresolved-versions"
    case staleTemporary = "stale-temporary"
    case scanProblem = "scan-problem"
    case bisyncAborted = "bisync-aborted"
    case syncthingVersion = "syncthing-version"
    case compactable
  }

  public var kind: Kind
  /// The logical name (or path) it is about; empty for the folder as a whole.
  public var subject: String
  /// What is wrong, one line.
  public var message: String
  /// What fixes it: an mn command line where there is one.
  public var fix: String
}

/// What `mn doctor` reports.
public struct DoctorReport: Sendable, Equatable {
  /// The data folder.
  public var root: AbsolutePath
  /// How discovery found it.
  public var source: DiscoverySource
  /// How many documents are in each state.
  public var documents: [DocumentState: Int] = [:]
  /// How many files (documents and copies) were decoded.
  public var filesDecoded = 0
  /// The write lock.
  public var lock: LockState = .free
  /// Everything that needs attention, in the order found (documents by name).
  public var findings: [DoctorFinding] = []
  /// Things worth knowing that need no fix, each said once.
  public var notes: [String] = []

  public init(root: AbsolutePath, source: DiscoverySource) {
    self.root = root
    self.source = source
  }

  /// Whether nothing needs attention (a held lock is normal: the app may be writing).
  public var isHealthy: Bool { findings.isEmpty }

  /// The number of documents.
  public var documentCount: Int { documents.values.reduce(0, +) }

  mutating func add(_ kind: DoctorFinding.Kind, _ subject: String, _ message: String, fix: String) {
    findings.append(DoctorFinding(kind: kind, subject: subject, message: message, fix: fix))
  }
}
