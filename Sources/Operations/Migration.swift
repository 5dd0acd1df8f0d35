import Archive
import AutomergeCodec
import Platform
import Storage

/// Moving a data folder into another one without losing a change (mn.md §7).
///
/// The steps, each a function; `MigrateOperation` runs them in order for `mn migrate`:
///
/// 1. `checkRoots`: the two folders must be apart (neither inside the other).
/// 2. `lock`: both write locks, in a fixed order (`WriteLocks`).
/// 3. `plan`: scan both folders and classify every document (`move`, `merge`, `same`) and
///    file; the plan also lists what stops the migration (placeholders, unreadable
///    documents, conflict copies) as `blocker`.
/// 4. A backup of both folders (`backupFiles`), after the confirmation.
/// 5. `execute`: every step journaled in the destination (`MigrationJournal`), each
///    document written atomically and verified before its source is removed; then the
///    emptied source directories are removed, the pointer file is updated, the journal
///    removed.
///
/// A `kill -9` at any moment leaves every change in at least one non-temporary file: a
/// source file is only removed once the destination file, read back, holds all its changes.
/// A rerun plans again from what is on disk, so it finishes the job whatever was done.
public enum Migration {
  /// The largest document or file a migration reads.
  public static let readLimit = 1 << 31

  /// Checks that `source` and `destination` are different folders, neither inside the
  /// other, comparing the paths as given and with links resolved (as far as they exist).
  ///
  /// - Throws: `MigrationError.nested`.
  public static func checkRoots(
    source: AbsolutePath, destination: AbsolutePath, fileSystem: any FileSystem
  )
    throws(MigrationError)
  {
    let pairs = [
      (source.normalized, destination.normalized),
      (source.resolvingLinks(fileSystem), destination.resolvingLinks(fileSystem)),
    ]
    for (s, d) in pairs where s.isInside(d) || d.isInside(s) {
      throw .nested(source: source.string, destination: destination.string)
    }
  }

  /// Takes the write locks of `roots` (`WriteLocks.acquire`: in the order of their paths'
  /// bytes, so that two migrations between the same folders, in opposite directions, wait
  /// for each other instead of deadlocking).
  ///
  /// - Parameters:
  ///   - roots: existing data folders.
  ///   - destination: the destination root; when its lock file cannot be created
  ///     (permissions, read-only file system) the error is `destinationNotWritable`.
  ///   - timeout: the `--wait` seconds, for each lock.
  ///   - fileSystem: where the lock files live.
  ///   - sleep: sleeps between attempts (injected for tests).
  /// - Returns: the held locks; the caller releases them (or lets them go with the process).
  /// - Throws: `LockError` (held, or another failure) or
  ///   `MigrationError.destinationNotWritable`; nothing stays locked.
  public static func lock(
    _ roots: [AbsolutePath], destination: AbsolutePath, timeout: Double, fileSystem: any FileSystem,
    sleep: @escaping (Double) -> Void
  ) throws -> WriteLocks {
    do {
      return try WriteLocks.acquire(
        roots, timeout: timeout, fileSystem: fileSystem, sleep: sleep)
    } catch {
      throw lockError(error, destination: destination)
    }
  }

  /// Takes the lock of the destination, just created, besides the locks already held.
  ///
  /// - Throws: as `lock`; the locks already held stay held.
  public static func lockDestination(_ destination: AbsolutePath, in locks: WriteLocks) throws {
    do {
      try locks.add(destination)
    } catch {
      throw lockError(error, destination: destination)
    }
  }

  /// A lock file that cannot be created in the destination means that the destination
  /// cannot be written.
  static func lockError(_ error: LockError, destination: AbsolutePath) -> any Error {
    if case .fileSystem(let inner) = error,
      inner.path == destination.appending(FileLock.fileName).string,
      isUnwritable(inner.errno)
    {
      return MigrationError.destinationNotWritable(destination.string, inner)
    }
    return error
  }

  /// Creates the destination folder and its missing parents.
  ///
  /// - Throws: `MigrationError.destinationNotWritable`.
  public static func createDestination(_ destination: AbsolutePath, fileSystem: any FileSystem)
    throws(MigrationError)
  {
    do {
      try fileSystem.makeDirectories(destination, permissions: 0o755)
    } catch let error as FileSystemError {
      throw .destinationNotWritable(destination.string, error)
    } catch {
      throw .destinationNotWritable(
        destination.string, FileSystemError("create", destination, .ioError))
    }
  }

  /// Scans both folders and plans the migration.
  ///
  /// Every document and conflict copy of both folders is read and decoded, so that
  /// `blocker` can say "every document parses"; the conflict merges to do first are
  /// planned by `ConflictMerge.plan`.
  ///
  /// - Parameters:
  ///   - source: the source root; when it does not exist, the plan is empty.
  ///   - destination: the destination root; it need not exist.
  ///   - fileSystem: where to read.
  ///   - syncProvider: says which files are current and lists iCloud conflict versions
  ///     (mn.md §15): a document that is not current is a placeholder here.
  /// - Returns: the plan; check `blocker` before executing it.
  /// - Throws: `StorageError` when a root cannot be listed.
  public static func plan(
    source: AbsolutePath, destination: AbsolutePath, fileSystem: any FileSystem,
    syncProvider: any SyncProvider = NoSyncProvider()
  ) throws -> MigrationPlan {
    let fs = fileSystem
    let sourceExists = (try? fs.infoFollowingLinks(source))??.kind == .directory
    // A source that is gone (removed by an interrupted run's finish) has nothing left. Every
    // stub is read, stale ones too: `--fetch` reports what `mn fetch` would (`fetchPlans`).
    let sourceListing =
      sourceExists
      ? try FolderScan.scan(root: source, fileSystem: fs, readingStaleStubs: true)
      : FolderListing(root: source)
    let destinationExists =
      (try? fs.infoFollowingLinks(destination))??.kind == .directory
    let destinationListing =
      destinationExists
      ? try FolderScan.scan(
        root: destination, fileSystem: fs, readingStaleStubs: true) : nil
    var plan = MigrationPlan(
      source: source, destination: destination, destinationExists: destinationExists,
      documents: [], files: [], placeholders: [], unreadable: [], conflictCopies: [], warnings: [],
      sourceListing: sourceListing, destinationListing: destinationListing)
    plan.warnings += sourceListing.problems.map { .scanProblem(side: .source, $0) }
    plan.warnings += (destinationListing?.problems ?? []).map {
      .scanProblem(side: .destination, $0)
    }

    var destinationHashes: [DocumentName: Set<ChangeHash>] = [:]
    try checkConflicts(sourceListing, into: &plan, fileSystem: fs, provider: syncProvider)
    if let destinationListing {
      try checkConflicts(destinationListing, into: &plan, fileSystem: fs, provider: syncProvider)
    }
    for entry in destinationListing?.documents ?? [] {
      check(entry, into: &plan)
      if entry.isDownloaded, let file = decode(entry.path, into: &plan, fileSystem: fs) {
        destinationHashes[entry.name] = Set(file.changes.map(\.hash))
      }
    }
    for entry in sourceListing.documents {
      check(entry, into: &plan)
      guard entry.isDownloaded, let file = decode(entry.path, into: &plan, fileSystem: fs)
      else {
        continue
      }
      let target = destinationListing?.document(entry.name)
      if let target, !target.isDownloaded && target.state != .copiesOnly { continue }
      let hashes = Set(file.changes.map(\.hash))
      let action: MigrationAction
      var newChanges = hashes.count
      if let existing = destinationHashes[entry.name] {
        newChanges = hashes.subtracting(existing).count
        action = hashes == existing ? .same : .merge
      } else if target?.isDownloaded == true {
        continue  // unreadable at the destination: already in `unreadable`
      } else {
        action = .move
      }
      plan.documents.append(
        MigrationPlan.Document(
          name: entry.name, action: action, sourcePath: entry.path,
          destinationPath: entry.name.path(root: destination),
          sourceChanges: hashes.count,
          newChanges: newChanges))
    }
    for other in sourceListing.others {
      if let placeholder = other.placeholder {
        plan.placeholders.append(placeholder.path)
        continue
      }
      let target = destination.appending(other.logicalName)
      let action = compare(other, target, fileSystem: fs)
      if action == .differs && other.logicalName == DataFolder.versionFileName {
        plan.warnings.append(.versionDiffers)
      }
      plan.files.append(
        MigrationPlan.File(
          logicalName: other.logicalName, action: action, sourcePath: other.path,
          destinationPath: target))
    }
    for other in destinationListing?.others ?? [] {
      if let placeholder = other.placeholder { plan.placeholders.append(placeholder.path) }
    }
    plan.placeholders.sort { $0.string.precedesByBytes($1.string) }
    plan.conflictCopies.sort { $0.string.precedesByBytes($1.string) }
    return plan
  }

  /// Records a document's placeholder.
  static func check(_ entry: DocumentEntry, into plan: inout MigrationPlan) {
    if entry.isNotDownloaded, let placeholder = entry.placeholder {
      plan.placeholders.append(placeholder.path)
    }
  }

  /// Plans the merge of a folder's conflicts (`MergeConflictsOperation`), and records its
  /// copies, the ones that are not downloaded or do not parse, and refused documents.
  static func checkConflicts(
    _ listing: FolderListing, into plan: inout MigrationPlan, fileSystem: any FileSystem,
    provider: any SyncProvider
  )
    throws
  {
    // Only current inputs are merged or moved (mn.md §15): a stale or dataless one blocks
    // the migration as a placeholder does (69), before anything of it is read (a document
    // with copies is refused by the plan, the others are checked here).
    for document in listing.documents where !document.hasCopies {
      if let problem = SyncReadiness.firstNotCurrent(
        document, root: listing.root, provider: provider, fileSystem: fileSystem)
      {
        plan.placeholders.append(problem.path)
      }
    }
    let merge = try MergeConflictsOperation.plan(
      listing.documents, listing: listing, provider: provider, fileSystem: fileSystem)
    let versions = merge.versions
    if !versions.documents.isEmpty { plan.versions.append(versions) }
    for document in versions.documents {
      if case .notCurrent(let path, _)? = document.refusal { plan.placeholders.append(path) }
    }
    let conflicts = merge.copies
    guard !conflicts.documents.isEmpty else { return }
    plan.conflicts.append(conflicts)
    for document in conflicts.documents {
      for copy in document.copies {
        plan.conflictCopies.append(copy.copy.path)
        switch copy.problem {
        case .notDownloaded?:
          plan.placeholders.append(copy.copy.placeholder?.path ?? copy.copy.path)
        case let problem?:
          plan.unreadable.append(.init(path: copy.copy.path, reason: problem.description))
        case nil: break
        }
      }
      switch document.refusal {
      case .collision?, .noReadableCopy?, .changedDuringRun?, .canonicalNotRegularFile?:
        plan.refusedConflicts.append(
          "'\(document.canonicalPath)': \(document.refusal?.description ?? "")")
      case .notCurrent(let path, _)?:
        plan.placeholders.append(path)
      case .notDownloaded?, .canonicalNotAutomerge?, .canonicalCannotRead?, nil:
        break  // in `placeholders` or `unreadable` already
      }
    }
  }

  /// Merges the conflict copies of both folders into their documents (mn.md §7, step 2),
  /// as `mn merge-conflicts` does, then plans again. Call it holding both locks, after the
  /// backup of both folders (which holds every copy).
  ///
  /// - Parameters:
  ///   - plan: a plan whose `blocker` is nil.
  ///   - keepSource: the source's copies are merged into their documents but kept.
  ///   - backupPath: the backup already made, given to `MergeConflictsOperation` as its own.
  ///   - fileSystem: where to read and write.
  ///   - syncProvider: merges and resolves the folders' iCloud conflict versions too.
  /// - Returns: the plan made after the merges.
  /// - Throws: `MigrationError.stepFailed` when a merge fails (every change is still in
  ///   some file); `StorageError` when a folder cannot be scanned again.
  public static func mergeConflicts(
    _ plan: MigrationPlan, keepSource: Bool, backupPath: AbsolutePath?, fileSystem: any FileSystem,
    syncProvider: any SyncProvider = NoSyncProvider()
  ) throws -> MigrationPlan {
    guard !plan.conflicts.isEmpty || !plan.versions.isEmpty else { return plan }
    for root in [plan.source, plan.destination] {
      let merge = MergeConflictsOperation.Plan(
        copies: plan.conflicts.first { $0.root == root }
          ?? ConflictMergePlan(root: root, documents: []),
        versions: plan.versions.first { $0.root == root } ?? VersionMergePlan(root: root))
      var step = "conflict copies"
      do {
        // The backup of both folders holds every copy and the versions' bytes (`backupFiles`).
        _ = try MergeConflictsOperation.execute(
          merge, keepCopies: keepSource && root == plan.source,
          backup: backupPath.map { .made($0) } ?? .skip, provider: syncProvider,
          fileSystem: fileSystem, copiesMerged: { _ in step = "conflict versions" })
      } catch {
        throw MigrationError.stepFailed(
          name: "\(step) in '\(root)'", done: 0, total: plan.documents.count,
          underlying: error)
      }
    }
    return try Migration.plan(
      source: plan.source, destination: plan.destination, fileSystem: fileSystem,
      syncProvider: syncProvider)
  }

  /// Reads and decodes one file; a failure goes to `plan.unreadable`.
  static func decode(
    _ path: AbsolutePath, into plan: inout MigrationPlan, fileSystem: any FileSystem
  ) -> AutomergeFile? {
    do {
      return try AutomergeFile.decode(try fileSystem.readFile(path, limit: readLimit))
    } catch let error as FileSystemError where error.meansNotDownloaded {
      plan.placeholders.append(path)
      return nil
    } catch {
      plan.unreadable.append(MigrationPlan.Unreadable(path: path, reason: "\(error)"))
      return nil
    }
  }

  /// Whether a file of the source is absent, the same or different at the destination.
  static func compare(_ other: OtherFile, _ target: AbsolutePath, fileSystem: any FileSystem)
    -> MigrationFileAction
  {
    let found: FileInfo?
    do { found = try fileSystem.info(target) } catch { return .differs }
    guard let info = found else { return .copy }
    guard info.kind == .regular, info.size == other.size,
      let a = try? fileSystem.readFile(other.path, limit: readLimit),
      let b = try? fileSystem.readFile(target, limit: readLimit), a == b
    else { return .differs }
    return .same
  }

  /// The files of a backup of both folders (mn.md §7, step 3): every file of each scan,
  /// conflict copies included, under `source/` and `destination/`.
  public static func backupFiles(_ plan: MigrationPlan) -> [ExportFile] {
    let source = FolderFiles.exportFiles(plan.sourceListing, includeCopies: true).map {
      $0.prefixed(by: "source")
    }
    let destination =
      (plan.destinationListing.map { FolderFiles.exportFiles($0, includeCopies: true) } ?? []).map {
        $0.prefixed(by: "destination")
      }
    let versions = plan.versions.flatMap { versions in
      // Only the versions' bytes: their documents are in the folders' files above.
      let side = versions.root == plan.source ? "source" : "destination"
      return ConflictVersions.backupFiles(versions).filter {
        !$0.relativePath.hasSuffix(".automerge")
      }.map { $0.prefixed(by: side) }
    }
    return source + destination + versions
  }

  /// Whether an error means the place cannot be written at all (as opposed to part-way).
  static func isUnwritable(_ errno: Errno) -> Bool {
    errno == .permissionDenied || errno == .notPermitted || errno == .readOnlyFileSystem
  }
}
