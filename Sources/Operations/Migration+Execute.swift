import Archive
import AutomergeCodec
import Platform
import Storage

/// What a finished migration did.
public struct MigrationReport: Sendable, Equatable {
  /// Documents copied into the destination (logical names).
  public var moved: [String] = []
  /// Documents merged into the destination's copy.
  public var merged: [String] = []
  /// Documents the destination already held in full.
  public var same: [String] = []
  /// Other files copied into the destination.
  public var copiedFiles: [String] = []
  /// Files removed from the source (its documents, and `.minuta-version` when the
  /// destination holds the same one).
  public var removedFromSource: [String] = []
  /// Source directories removed because they became empty (logical; `""` is the root).
  public var removedDirectories: [String] = []
  /// The pointer file, when it named the source and now names the destination.
  public var pointerUpdated: AbsolutePath?
  /// Steps that an interrupted run had already done (from its journal).
  public var resumedSteps = 0
  /// Files left in the source: mn never moves a file it does not understand.
  public var leftInSource: [String] = []
  /// How each document written into the destination was replaced (mn.md §6), by name.
  public var replaces: [String: ReplaceOutcome.Summary] = [:]
  /// How each document that went into an iCloud Drive container it was absent from got
  /// there, by name (mn.md §15).
  public var intoICloud: [String: ICloudWay] = [:]

  /// How a document went into iCloud Drive.
  public enum ICloudWay: Sendable, Equatable {
    /// The system's own move (`setUbiquitous`).
    case systemMove
    /// The system refused its move (`detail`: a binary without the container's entitlement,
    /// as a Homebrew build is): a coordinated copy, read back and verified, then the source
    /// removed.
    case copied(refusal: String)
  }

  public init() {}
}

extension Migration {
  /// Executes a plan (mn.md §7, steps 4 and 5). Call it holding both write locks, after a
  /// backup, with a plan whose `blocker` is nil.
  ///
  /// Each document: read the source; `move` writes it into the destination atomically (a
  /// temporary beside the target, then a rename: this works across file systems); `merge`
  /// writes the lossless merge of the destination's file and the source's (the
  /// destination's bytes followed by the source's extra changes). The destination file is
  /// then read back and must hold every change of both; the source is read again, and only
  /// when it is unchanged is it removed (`keepSource` keeps it). Other files are copied
  /// when absent. The journal is written before the first step and after each one.
  ///
  /// Finally: the pointer file is updated if it named the source, the source directories
  /// that became empty are removed (the root too, when only its lock file is left), and
  /// the journal is removed.
  ///
  /// - Parameters:
  ///   - plan: from `plan(source:destination:fileSystem:)`, under the same locks.
  ///   - keepSource: copy instead of move: nothing is removed from the source.
  ///   - pointerFile: the pointer file's path (mn.md §2), or nil.
  ///   - previous: the journal of an interrupted run, if one was found.
  ///   - fileSystem: where to read and write.
  ///   - syncProvider: moves a document into an iCloud Drive container the system's way
  ///     (`usesSystemMove`, mn.md §15).
  ///   - progress: called with each step's logical name before the step.
  /// - Returns: what was done.
  /// - Throws: `MigrationError`: `destinationNotWritable` before anything was moved,
  ///   `stepFailed` (wrapping the I/O error), `verificationFailed` or `sourceChanging`
  ///   part-way. Every change is then still on disk, and a rerun resumes.
  public static func execute(
    _ plan: MigrationPlan, keepSource: Bool, pointerFile: AbsolutePath?,
    previous: MigrationJournal?,
    fileSystem: any FileSystem, syncProvider: any SyncProvider = NoSyncProvider(),
    progress: (String) -> Void = { _ in }
  ) throws(MigrationError) -> MigrationReport {
    let fs = fileSystem
    var report = MigrationReport()
    let total = plan.documents.count
    let copies = plan.files.filter { $0.action == .copy }
    var journal = MigrationJournal(
      source: plan.source, destination: plan.destination, keepSource: keepSource,
      steps: plan.documents.map { .init(name: $0.name.logicalName, action: $0.action.rawValue) }
        + copies.map { .init(name: $0.logicalName, action: MigrationFileAction.copy.rawValue) })
    if let previous, previous.source == plan.source {
      report.resumedSteps = previous.steps.filter(\.done).count
      let planned = Set(journal.steps.map(\.name))
      journal.steps += previous.steps.filter { $0.done && !planned.contains($0.name) }
    }
    do {
      try journal.write(fileSystem: fs)
    } catch let error as FileSystemError where isUnwritable(error.errno) {
      throw .destinationNotWritable(plan.destination.string, error)
    } catch {
      throw .stepFailed(name: MigrationJournal.fileName, done: 0, total: total, underlying: error)
    }

    for (index, document) in plan.documents.enumerated() {
      let name = document.name.logicalName
      progress(name)
      do {
        let (action, replaced, way) = try migrate(
          document, destination: plan.destination, keepSource: keepSource, fileSystem: fs,
          provider: syncProvider)
        report.replaces[name] = replaced
        report.intoICloud[name] = way
        switch action {
        case .move: report.moved.append(name)
        case .merge: report.merged.append(name)
        case .same: report.same.append(name)
        }
        if !keepSource { report.removedFromSource.append(name) }
        journal.steps[index].done = true
        try journal.write(fileSystem: fs)
      } catch let error as MigrationError {
        throw error
      } catch {
        throw .stepFailed(name: name, done: index, total: total, underlying: error)
      }
    }
    for (offset, file) in copies.enumerated() {
      progress(file.logicalName)
      do {
        if try copy(file, destination: plan.destination, fileSystem: fs) {
          report.copiedFiles.append(file.logicalName)
        }
        journal.steps[total + offset].done = true
        try journal.write(fileSystem: fs)
      } catch {
        throw .stepFailed(name: file.logicalName, done: total, total: total, underlying: error)
      }
    }

    do {
      if let pointerFile, pointerNames(pointerFile, plan.source, fileSystem: fs) {
        try AtomicFile.write(
          Array((plan.destination.string + "\n").utf8), to: pointerFile,
          fileSystem: fs)
        report.pointerUpdated = pointerFile
      }
      if !keepSource {
        if try removeVersionFile(plan, fileSystem: fs) {
          report.removedFromSource.append(DataFolder.versionFileName)
        }
        report.removedDirectories = removeEmptyDirectories(
          plan.source, names: journal.steps.map(\.name), fileSystem: fs)
      }
      try MigrationJournal.remove(destination: plan.destination, fileSystem: fs)
    } catch {
      throw .stepFailed(
        name: pointerFile?.string ?? MigrationJournal.fileName, done: total, total: total,
        underlying: error
      )
    }
    let removed = Set(report.removedFromSource)
    report.leftInSource = plan.files.map(\.logicalName).filter { !removed.contains($0) }
    return report
  }

  /// Whether a document is moved by the system's own move into iCloud Drive
  /// (`SyncProvider.moveIntoUbiquity`, mn.md §15): it is moved, not kept, nothing is at the
  /// destination, the destination is an iCloud Drive container and the source is not in one.
  public static func usesSystemMove(
    source: AbsolutePath, target: AbsolutePath, targetExists: Bool, keepSource: Bool,
    provider: any SyncProvider
  ) -> Bool {
    !keepSource && !targetExists && provider.folderKind(of: target) == .ubiquityContainer
      && provider.folderKind(of: source) == .plain
  }

  /// Moves (or copies) one document; returns what it took, how the destination's file
  /// was replaced when mn wrote it, and how it went into iCloud Drive when it did.
  static func migrate(
    _ document: MigrationPlan.Document, destination: AbsolutePath, keepSource: Bool,
    fileSystem fs: any FileSystem, provider: any SyncProvider
  ) throws -> (MigrationAction, ReplaceOutcome.Summary?, MigrationReport.ICloudWay?) {
    let name = document.name.logicalName
    let target = document.destinationPath
    var refusal: String?
    let (from, to) = (document.sourcePath, target)
    if usesSystemMove(
      source: from, target: to, targetExists: try fs.info(to) != nil, keepSource: keepSource,
      provider: provider)
    {
      // The backup of step 3 holds the source; the destination is verified right after.
      let source = try readDocument(document.sourcePath, fileSystem: fs)
      let expected = Set(source.file.changes.map(\.hash))
      try makeDirectories(document.name.directory, root: destination, fileSystem: fs)
      do {
        try provider.moveIntoUbiquity(from, to: to)
        let written = try readDocument(target, fileSystem: fs)
        guard expected.isSubset(of: written.file.changes.lazy.map(\.hash)) else {
          throw MigrationError.verificationFailed(name)
        }
        return (.move, nil, .systemMove)
      } catch let error as SyncProviderError {
        // Refused (no container entitlement, as in a Homebrew build): the system moved
        // nothing, so the source is as it was. The copy below writes the destination through
        // the coordinated replace, reads it back and verifies it, syncs it, and only then
        // removes the source.
        guard try fs.info(to) == nil else { throw error }
        refusal = "\(error)"
      }
    }
    let way = refusal.map { MigrationReport.ICloudWay.copied(refusal: $0) }
    // A sync client may replace the source or the target meanwhile (it takes no lock): the
    // replace merges what arrives at the target; a changed source means going again.
    for _ in 0..<3 {
      let source = try readDocument(document.sourcePath, fileSystem: fs)
      var expected = Set(source.file.changes.map(\.hash))
      var action = MigrationAction.move
      var content = source.bytes
      var basis = ReplaceBasis.absent
      switch DocumentReplace.read(target, fileSystem: fs) {
      case .success(let existing):
        expected.formUnion(existing.file.changes.map(\.hash))
        let merged = try AutomergeMerge.merge(
          [existing.bytes, source.bytes], decoded: [existing.file, source.file])
        action = merged.bytes == existing.bytes ? .same : .merge
        content = merged.bytes
        basis = existing.basis
      case .failure(.absent):
        try makeDirectories(document.name.directory, root: destination, fileSystem: fs)
      case .failure(.notRegularFile(let kind)):
        throw ReplaceError.notRegularFile(path: target.string, kind: kind)
      case .failure(.notAutomerge(let error)): throw error
      case .failure(.cannotRead(let error)), .failure(.notDownloaded(let error)): throw error
      }
      var placed: FileInfo?
      var replaced: ReplaceOutcome.Summary?
      if action != .same {
        let outcome = try DocumentReplace.replace(
          target, with: content, basis: basis, fileSystem: fs,
          permissions: source.info.permissions)
        placed = outcome.placed
        replaced = outcome.summary
      }
      let written = try readDocument(target, fileSystem: fs)
      guard expected.isSubset(of: written.file.changes.lazy.map(\.hash)) else {
        // Replaced again by a sync client after the write: go again.
        if let placed, !written.info.isSameFile(as: placed) { continue }
        throw MigrationError.verificationFailed(name)
      }
      if keepSource { return (action, replaced, way) }
      guard try fs.readFile(from, limit: readLimit) == source.bytes else { continue }
      try fs.removeFile(from)
      return (action, replaced, way)
    }
    throw MigrationError.sourceChanging(name)
  }

  /// Reads and decodes a document (`DocumentReplace.read`), throwing what keeps it from it.
  static func readDocument(_ path: AbsolutePath, fileSystem fs: any FileSystem) throws
    -> DocumentReplace.Read
  {
    switch DocumentReplace.read(path, fileSystem: fs) {
    case .success(let read): return read
    case .failure(.absent): throw FileSystemError("open", path, .noSuchFileOrDirectory)
    case .failure(.notRegularFile(let kind)):
      throw ReplaceError.notRegularFile(path: path.string, kind: kind)
    case .failure(.notAutomerge(let error)): throw error
    case .failure(.cannotRead(let error)), .failure(.notDownloaded(let error)): throw error
    }
  }

  /// Copies a file that is not a document when the destination still has nothing there.
  static func copy(
    _ file: MigrationPlan.File, destination: AbsolutePath, fileSystem fs: any FileSystem
  )
    throws -> Bool
  {
    guard try fs.info(file.destinationPath) == nil else { return false }
    let bytes = try fs.readFile(file.sourcePath, limit: readLimit)
    let directory = file.logicalName.split(separator: "/").dropLast().joined(separator: "/")
    try makeDirectories(directory, root: destination, fileSystem: fs)
    let mode = try fs.info(file.sourcePath)?.permissions ?? 0o644
    try AtomicFile.write(
      bytes, to: file.destinationPath, fileSystem: fs, permissions: mode)
    return true
  }

  /// Creates the logical directory `logical` (and its parents) in `root`, syncing each
  /// parent so that the new entries survive a power cut.
  static func makeDirectories(_ logical: String, root: AbsolutePath, fileSystem fs: any FileSystem)
    throws
  {
    let rootPath = root
    var current = LogicalName.root
    for part in logical.split(separator: "/") {
      let parent = rootPath.appending(current)
      current = current.appending(String(part))
      let directory = rootPath.appending(current)
      if let info = try fs.info(directory) {
        guard info.kind == .directory else {
          throw FileSystemError("create directory", directory, .notDirectory)
        }
        continue
      }
      do {
        try fs.makeDirectory(directory, permissions: 0o755)
      } catch let error as FileSystemError where error.errno == .fileExists {}
      try fs.syncDirectory(parent)
    }
  }

  /// Removes the source's `.minuta-version` when the destination holds the same bytes.
  static func removeVersionFile(_ plan: MigrationPlan, fileSystem fs: any FileSystem) throws -> Bool
  {
    guard let file = plan.files.first(where: { $0.logicalName == DataFolder.versionFileName }),
      file.action != .differs,
      let source = try? fs.readFile(file.sourcePath, limit: readLimit),
      let target = try? fs.readFile(file.destinationPath, limit: readLimit),
      source == target
    else { return false }
    try fs.removeFile(file.sourcePath)
    return true
  }

  /// Removes the source directories of `names` that are empty, deepest first, and the root
  /// when nothing but its lock file is left. A directory that is not empty stays.
  ///
  /// The lock file is removed while held: an mn waiting for it then finds no folder (and
  /// stops), which is what a migrated-away folder should look like.
  static func removeEmptyDirectories(
    _ root: AbsolutePath, names: [String], fileSystem fs: any FileSystem
  )
    -> [String]
  {
    var directories = Set<String>()
    for name in names {
      var parts = name.split(separator: "/").dropLast()
      while !parts.isEmpty {
        directories.insert(parts.joined(separator: "/"))
        parts = parts.dropLast()
      }
    }
    var removed: [String] = []
    let deepestFirst = directories.sorted {
      let (a, b) = ($0.split(separator: "/").count, $1.split(separator: "/").count)
      return a != b ? a > b : $0.precedesByBytes($1)
    }
    for directory in deepestFirst {
      let path = root.appending(directory)
      if (try? fs.contentsOfDirectory(path))?.isEmpty == true,
        (try? fs.removeDirectory(path)) != nil
      {
        removed.append(directory)
      }
    }
    guard let left = try? fs.contentsOfDirectory(root) else { return removed }
    if left == [DataFolder.lockFileName] {
      try? fs.removeFile(DataFolder.lockPath(root: root))
    } else if !left.isEmpty {
      return removed
    }
    if (try? fs.removeDirectory(root)) != nil { removed.append("") }
    return removed
  }

  /// Whether the pointer file names `source` (as written, or with links resolved).
  static func pointerNames(
    _ pointerFile: AbsolutePath, _ source: AbsolutePath, fileSystem fs: any FileSystem
  )
    -> Bool
  {
    guard let bytes = try? fs.readFile(pointerFile, limit: 64 * 1024) else {
      return false
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let target = String(
      text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    guard target.hasPrefix("/") else { return false }
    let named = AbsolutePath(target)
    if named.normalized == source.normalized {
      return true
    }
    guard let a = try? fs.realPath(named),
      let b = try? fs.realPath(source)
    else { return false }
    return a == b
  }
}
