import Archive
import AutomergeCodec
import Platform
import Storage

/// `NSFileVersion` conflict versions as conflict copies (mn.md §15): listed by `ls`, merged
/// by `merge-conflicts`, resolved only once the merged file holds them.
///
/// iCloud Drive keeps a real content conflict as unresolved versions of the file, not as a
/// second file. mn treats each as a copy:
///
/// 1. **Plan** (`plan`): for every downloaded document in a synced folder, the provider's
///    unresolved versions; each is read (a coordinated read) and decoded. A version that
///    cannot be read or decoded is kept, unresolved, and reported. A document whose file is
///    not current (dataless, stale) is refused (69) before anything of it is read.
/// 2. **Backup**: the bytes of every readable version and of its document go into one
///    verified archive before anything is written or resolved.
/// 3. **Execute**, one document at a time: read the file again, merge the readable versions
///    into it (the file's bytes first and unchanged), write it (the one replace, inside a
///    coordinated `.replacing` write), make it durable (the write syncs the file and its
///    directory; a file not rewritten is synced too), read it back and check that it holds
///    every change of every merged version; only then mark those versions resolved, and
///    remove the file's other versions only when every unresolved version is among them.
///
/// A kill at any step leaves each version's changes in the file on disk or in a version
/// that is still unresolved: a version is resolved only after its changes are durable, so a
/// rerun merges what is left. Callers hold the write lock.
public enum ConflictVersions {

  /// The unresolved versions of each downloaded document of `documents` in a synced folder,
  /// by logical name, for listing (nothing is read). Documents whose versions the system
  /// does not show are in `hidden`.
  public static func list(
    _ documents: [DocumentEntry], root: AbsolutePath, provider: any SyncProvider
  ) -> (versions: [String: [SyncVersion]], hidden: [String]) {
    var versions: [String: [SyncVersion]] = [:]
    var hidden: [String] = []
    for document in documents where document.isDownloaded {
      let path = document.name.path(root: root)
      guard provider.folderKind(of: path) != .plain else { continue }
      guard let found = provider.conflictVersions(of: path) else {
        hidden.append(document.logicalName)
        continue
      }
      if !found.isEmpty { versions[document.logicalName] = found }
    }
    return (versions, hidden)
  }

  /// Reads every document that has versions and its versions; changes nothing.
  ///
  /// - Parameters:
  ///   - documents: entries from `FolderScan` (the selection).
  ///   - root: the data folder.
  ///   - provider: lists and reads the versions, says whether files are current.
  ///   - fileSystem: where the documents are read (pass a `CoordinatedFileSystem`).
  /// - Returns: one entry per document with versions.
  public static func plan(
    _ documents: [DocumentEntry], root: AbsolutePath, provider: any SyncProvider,
    fileSystem: any FileSystem
  ) -> VersionMergePlan {
    var plan = VersionMergePlan(root: root)
    let (versions, hidden) = list(documents, root: root, provider: provider)
    plan.hidden = hidden
    for document in documents {
      guard let found = versions[document.logicalName] else { continue }
      let location = document.name.path(root: root)
      var entry = VersionMergeDocument(
        logicalName: document.logicalName, path: location,
        versions: found.map { VersionMergeItem(version: $0) })
      let info = try? fileSystem.info(location)
      if let problem = SyncReadiness.check(location, info: info ?? nil, provider: provider) {
        entry.refusal = .notCurrent(path: problem.path, problem.status)
        plan.documents.append(entry)
        continue
      }
      let canonical: AutomergeFile
      do {
        canonical = try AutomergeFile.decode(
          try fileSystem.readFile(location, limit: DocumentName.maxFileSize))
      } catch let error as FileSystemError {
        entry.refusal =
          error.meansNotDownloaded
          ? .notCurrent(path: location, .notDownloaded) : .canonicalCannotRead(error)
        plan.documents.append(entry)
        continue
      } catch let error as AutomergeDecodeError {
        entry.refusal = .canonicalNotAutomerge(error)
        plan.documents.append(entry)
        continue
      } catch {
        entry.refusal = .canonicalCannotRead(FileSystemError("read", location, .ioError))
        plan.documents.append(entry)
        continue
      }
      for k in entry.versions.indices {
        let version = entry.versions[k].version
        do {
          let bytes = try provider.readVersion(version, limit: DocumentName.maxFileSize)
          let file = try AutomergeFile.decode(bytes)
          entry.versions[k].changes = file.changes.count
          entry.versions[k].adds = file.changes.count(where: { !canonical.contains($0.hash) })
          plan.bytes[version] = bytes
        } catch let error as SyncProviderError {
          entry.versions[k].problem = .cannotRead(error)
        } catch let error as AutomergeDecodeError {
          entry.versions[k].problem = .notAutomerge(error)
        } catch {
          entry.versions[k].problem = .notAutomerge(
            .invalidDocument(reason: "\(error)", offset: 0))
        }
      }
      plan.documents.append(entry)
    }
    return plan
  }

  /// The files a backup before `execute` holds: each document with a readable version, and
  /// the bytes of every readable version (`NAME.icloud-version-N` beside it in the archive).
  public static func backupFiles(_ plan: VersionMergePlan) -> [ExportFile] {
    var files: [ExportFile] = []
    for document in plan.documents where document.refusal == nil {
      let readable = document.versions.filter { $0.problem == nil }
      guard !readable.isEmpty else { continue }
      files.append(
        ExportFile(
          relativePath: document.logicalName, absolutePath: document.path,
          kind: .document))
      for (k, item) in readable.enumerated() {
        files.append(
          ExportFile(
            relativePath: document.logicalName + ".icloud-version-\(k + 1)",
            absolutePath: item.version.path, kind: .document))
      }
    }
    return files.sorted { $0.relativePath.precedesByBytes($1.relativePath) }
  }

  /// Merges the readable versions of the planned documents and resolves those the written
  /// file holds.
  ///
  /// - Parameters:
  ///   - plan: from `plan`, made under the same write lock.
  ///   - provider: resolves the versions.
  ///   - fileSystem: where the documents are read and written (pass a
  ///     `CoordinatedFileSystem`: the replace then runs inside a `.replacing` write).
  ///   - resolving: false merges the versions but leaves them unresolved (`--keep-copies`).
  ///   - backup: called once, before anything is written, with `backupFiles(plan)`; returns
  ///     the verified archive's path (nil when none was made). An error stops the run first.
  ///   - checkpoint: told after each step; what it throws stops the run there (tests stop
  ///     the workflow after step k this way).
  ///   - random: the random part of temporary names.
  /// - Returns: what happened to each document and version.
  /// - Throws: the backup's or the checkpoint's error; `FileSystemError` when a write or the
  ///   read-back fails, `ConflictMergeError.verificationFailed` (no version of that document
  ///   is then resolved).
  public static func execute(
    _ plan: VersionMergePlan, provider: any SyncProvider, fileSystem: any FileSystem,
    resolving: Bool = true, backup: ([ExportFile]) throws -> AbsolutePath?,
    checkpoint: (VersionMergeStep) throws -> Void = { _ in },
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> VersionMergeReport {
    var report = VersionMergeReport(plan: plan)
    let files = backupFiles(plan)
    if !files.isEmpty {
      report.backupPath = try backup(files)
      try checkpoint(.backedUp)
    }
    for index in report.documents.indices where report.documents[index].refusal == nil {
      guard report.documents[index].versions.contains(where: { $0.problem == nil }) else {
        continue
      }
      try merge(
        &report.documents[index], plan: plan, provider: provider, fileSystem: fileSystem,
        resolving: resolving, checkpoint: checkpoint, random: random)
    }
    return report
  }

  /// Merges, writes, verifies and resolves one document.
  static func merge(
    _ document: inout VersionMergeDocument, plan: VersionMergePlan, provider: any SyncProvider,
    fileSystem: any FileSystem, resolving: Bool, checkpoint: (VersionMergeStep) throws -> Void,
    random: () -> String
  ) throws {
    let location = document.path
    let path = location.string
    let info = try fileSystem.info(location)
    if let problem = SyncReadiness.check(location, info: info, provider: provider) {
      document.refusal = .notCurrent(path: problem.path, problem.status)
      return
    }
    let current: [UInt8]
    do {
      current = try fileSystem.readFile(location, limit: DocumentName.maxFileSize)
    } catch let error as FileSystemError where error.meansNotDownloaded {
      // EDEADLK: dataless since the plan (mn.md §15); its versions wait for `mn fetch`.
      document.refusal = .notCurrent(path: location, .notDownloaded)
      return
    }
    var inputs = [current]
    var merged: [SyncVersion] = []
    for item in document.versions where item.problem == nil {
      guard let bytes = plan.bytes[item.version] else { continue }
      inputs.append(bytes)
      merged.append(item.version)
    }
    let decoded: [AutomergeFile]
    let result: MergeResult
    do {
      decoded = try inputs.map { try AutomergeFile.decode($0) }
      result = try AutomergeMerge.merge(inputs, decoded: decoded)
    } catch AutomergeMergeError.duplicateSeq(let actor, let seq, _, _) {
      document.refusal = .collision(actor: actor, seq: seq)
      return
    } catch let error as AutomergeDecodeError {
      document.refusal = .canonicalNotAutomerge(error)
      return
    }
    document.completed = true
    if result.base != 0 || !result.added.isEmpty {
      _ = try DocumentReplace.replace(
        location, with: result.bytes, basis: ReplaceBasis(info: info, bytes: current),
        fileSystem: fileSystem, permissions: info?.permissions ?? 0o644, random: random)
      document.written = true
    } else {
      try makeDurable(location, fileSystem: fileSystem)
    }
    try checkpoint(.written(document.logicalName))
    let held: Set<ChangeHash>
    do {
      let back = try AutomergeFile.decode(
        try fileSystem.readFile(location, limit: DocumentName.maxFileSize))
      held = Set(back.changes.map(\.hash))
    } catch is AutomergeDecodeError {
      throw ConflictMergeError.verificationFailed(path: path)
    }
    for file in decoded where !file.changes.allSatisfy({ held.contains($0.hash) }) {
      throw ConflictMergeError.verificationFailed(path: path)
    }
    try checkpoint(.verified(document.logicalName))
    guard resolving else { return }
    let decision = resolution(
      merged: merged, unresolved: provider.conflictVersions(of: location) ?? [])
    guard !decision.resolve.isEmpty else { return }
    do {
      // Inside a coordinated write of the document, as Apple's documentation of
      // `NSFileVersion` requires of a removal (mn.md §15).
      try CoordinatedFileSystem.run(.replacing, location, on: fileSystem) {
        try provider.resolve(
          decision.resolve, of: location, removingOthers: decision.removingOthers)
      }
      for k in document.versions.indices
      where decision.resolve.contains(document.versions[k].version) {
        document.versions[k].resolved = true
      }
      document.removedOthers = decision.removingOthers
    } catch {
      let failure =
        error as? SyncProviderError
        ?? .failed(operation: "coordinate the resolution of", path: path, detail: "\(error)")
      for k in document.versions.indices
      where decision.resolve.contains(document.versions[k].version) {
        document.versions[k].problem = .cannotResolve(failure)
      }
    }
    try checkpoint(.resolved(document.logicalName))
  }

  /// Which versions may be resolved once the merged file holds `merged`: those of them that
  /// are still unresolved. The file's other versions are removed only when every unresolved
  /// version is among them (`removeOtherVersionsOfItem` removes them all, and one that was
  /// not merged, unreadable or new since the plan, must stay).
  public static func resolution(merged: [SyncVersion], unresolved: [SyncVersion]) -> (
    resolve: [SyncVersion], removingOthers: Bool
  ) {
    let mergedSet = Set(merged)
    let resolve = unresolved.filter { mergedSet.contains($0) }
    return (resolve, !resolve.isEmpty && resolve.count == unresolved.count)
  }

  /// Syncs a file and its directory (a file written by an earlier, interrupted run may not be
  /// on stable storage yet).
  static func makeDurable(_ path: AbsolutePath, fileSystem: any FileSystem) throws {
    let fd = try fileSystem.openForReading(path)
    do {
      try fileSystem.sync(fd, path: path)
    } catch {
      try? fileSystem.close(fd, path: path)
      throw error
    }
    try fileSystem.close(fd, path: path)
    try fileSystem.syncDirectory(path.parent)
  }
}

/// The steps of `ConflictVersions.execute`, told to its checkpoint as they finish.
public enum VersionMergeStep: Sendable, Equatable {
  /// The backup archive is written and verified.
  case backedUp
  /// The merged document is written and durable (logical name).
  case written(String)
  /// The document read back holds every merged version's changes.
  case verified(String)
  /// Its merged versions are resolved.
  case resolved(String)
}

/// What `ConflictVersions.plan` found: the documents with versions.
public struct VersionMergePlan: Sendable {
  public var root: AbsolutePath
  public var documents: [VersionMergeDocument] = []
  /// Documents in a synced folder whose versions the system does not show this process.
  public var hidden: [String] = []
  /// The bytes of each readable version, as read by the plan (what the merge uses).
  var bytes: [SyncVersion: [UInt8]] = [:]

  public init(root: AbsolutePath) { self.root = root }

  /// Whether executing the plan would merge at least one version.
  public var mergesVersions: Bool {
    documents.contains { $0.refusal == nil && $0.versions.contains { $0.problem == nil } }
  }
}

/// What `ConflictVersions.execute` did.
public struct VersionMergeReport: Sendable {
  public var root: AbsolutePath
  public var documents: [VersionMergeDocument]
  /// The documents whose versions the system does not show (from the plan).
  public var hidden: [String]
  /// The backup archive, when one was made.
  public var backupPath: AbsolutePath?

  public init(plan: VersionMergePlan) {
    root = plan.root
    documents = plan.documents
    hidden = plan.hidden
  }
}

/// One document with unresolved versions.
public struct VersionMergeDocument: Sendable {
  public var logicalName: String
  /// The document's absolute path.
  public var path: AbsolutePath
  public var versions: [VersionMergeItem]
  /// Why nothing is done to it (the same reasons as for conflict copies).
  public var refusal: ConflictMergeRefusal?
  /// Report only: whether the run got to it.
  public var completed = false
  /// Report only: whether the file was rewritten.
  public var written = false
  /// Report only: whether the file's other versions were removed.
  public var removedOthers = false

  public init(logicalName: String, path: AbsolutePath, versions: [VersionMergeItem]) {
    self.logicalName = logicalName
    self.path = path
    self.versions = versions
  }
}

/// One version and what became of it.
public struct VersionMergeItem: Sendable {
  public var version: SyncVersion
  /// Its change count; nil when it cannot be read.
  public var changes: Int?
  /// How many of its changes the document did not have.
  public var adds = 0
  /// Why it is kept unresolved; nil for one that is merged.
  public var problem: VersionProblem?
  /// Report only: whether it was marked resolved.
  public var resolved = false

  public init(version: SyncVersion) { self.version = version }
}

/// Why a version is kept unresolved.
public enum VersionProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// Its bytes cannot be read.
  case cannotRead(SyncProviderError)
  /// Its bytes are not a valid Automerge file.
  case notAutomerge(AutomergeDecodeError)
  /// It was merged, but the system refused to resolve it.
  case cannotResolve(SyncProviderError)

  public var description: String {
    switch self {
    case .cannotRead(let error): return "\(error); kept unresolved"
    case .notAutomerge(let error): return "not a valid Automerge file: \(error); kept unresolved"
    case .cannotResolve(let error): return "merged, but \(error)"
    }
  }
}
