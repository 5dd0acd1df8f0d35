import Archive
import Platform
import Storage

/// The steps of `mn restore` (mn.md §8) once the archive is read: check the destination,
/// plan, back up, execute.
///
/// The archive layer (`ArchiveRestore.plan` / `ArchiveRestore.execute`) decides and writes each entry; this
/// adds what a whole restore needs around it: the destination's placeholders, the backup made
/// before any existing file is replaced, and the codec connected as the merge.
public enum RestoreWorkflow {
  /// What a finished restore did.
  public struct Outcome: Sendable, Equatable {
    /// The plan as decided under the lock, just before writing.
    public var plan: RestorePlan
    /// The path of the destination's backup, made when the plan replaces an existing file.
    public var backupPath: AbsolutePath?
    /// What was written, merged, left alone.
    public var report: RestoreReport
    /// mn's leftover temporaries that were removed from the destination.
    public var removedTemporaries: [String]
  }

  /// Creates the destination folder (and its parents, mode 0o755) when it is missing, so that
  /// its lock file can be taken.
  ///
  /// - Throws: `ArchiveError.cannotCreateOutput` or `.destinationConflict`.
  public static func prepareDestination(_ destination: AbsolutePath, fileSystem: FileSystem)
    throws(ArchiveError)
  {
    guard try !ArchiveRestore.destinationExists(destination, fileSystem: fileSystem)
    else { return }
    try ArchiveError.makeDirectories(destination, permissions: 0o755, fileSystem: fileSystem)
  }

  /// The documents that `archive` holds and that are not downloaded in `listing` (only a
  /// placeholder is there). Writing them would race with the sync client's download, so a
  /// restore refuses them: fetch them first.
  public static func placeholdersInTheWay(archive: ReadArchive, listing: FolderListing)
    -> [String]
  {
    listing.notDownloaded.map(\.logicalName).filter { archive.entry($0) != nil }
  }

  /// The plan for restoring `archive` into `destination` (`mn restore --dry-run`), changing
  /// nothing: what `run` would do now, short of the backup and the writes.
  ///
  /// - Throws: `StorageError` when the destination cannot be scanned;
  ///   `ArchiveError.placeholdersPresent` when a document to restore is only a placeholder
  ///   there, `.destinationConflict` when something is in the way, `.io`.
  public static func plan(
    archive: ReadArchive, destination: AbsolutePath, fileSystem: FileSystem
  ) throws -> RestorePlan {
    if try ArchiveRestore.destinationExists(destination, fileSystem: fileSystem) {
      let listing = try FolderScan.scan(root: destination, fileSystem: fileSystem)
      let missing = placeholdersInTheWay(archive: archive, listing: listing)
      guard missing.isEmpty else { throw ArchiveError.placeholdersPresent(missing) }
    }
    return try refined(
      ArchiveRestore.plan(archive: archive, destination: destination, fileSystem: fileSystem),
      archive: archive, fileSystem: fileSystem)
  }

  /// `plan` with each `.merge` whose archived document adds no change to the existing one
  /// turned into `.unchanged`: a second restore of the same archive then plans nothing and
  /// makes no backup. A merge that fails here stays `.merge` (and fails again when executed).
  static func refined(_ plan: RestorePlan, archive: ReadArchive, fileSystem: FileSystem)
    -> RestorePlan
  {
    var plan = plan
    for index in plan.items.indices where plan.items[index].action == .merge {
      let path = plan.items[index].path
      guard let incoming = archive.entry(path)?.bytes,
        let existing = try? fileSystem.readFile(
          plan.destination.appending(path),
          limit: ArchiveLimits.standard.maxEntrySize),
        let merged = try? DocumentTools.merge(existing: existing, incoming: incoming)
      else { continue }
      if merged == existing { plan.items[index].action = .unchanged }
    }
    return plan
  }

  /// Restores `archive` into `destination`, which exists and whose write lock the caller holds.
  ///
  /// Removes mn's stale temporaries, refuses when a document to restore is only a placeholder
  /// at the destination, plans, backs the destination up when the plan merges into an
  /// existing file (nothing else replaces a byte), then executes.
  ///
  /// - Parameters:
  ///   - archive: a checked archive from `ArchiveReader`.
  ///   - destination: the data folder.
  ///   - backupDirectory: where the backup goes (outside every data folder).
  ///   - version: the tool's version, for the backup's manifest.
  ///   - now: seconds since the epoch, for the backup's name and manifest.
  ///   - fileSystem: where to read and write.
  /// - Returns: the plan, the backup (if one was made) and the report.
  /// - Throws: `StorageError` when the destination cannot be scanned;
  ///   `ArchiveError.placeholdersPresent`, `.destinationConflict`, `.mergeFailed`, or any
  ///   error of `BackupTarget.make` and `ArchiveRestore.execute`. Nothing is written before
  ///   the backup is complete and verified.
  public static func run(
    archive: ReadArchive, destination: AbsolutePath, backupDirectory: AbsolutePath,
    version: String, now: Int64, fileSystem: FileSystem
  ) throws -> Outcome {
    let listing = try FolderScan.scan(root: destination, fileSystem: fileSystem)
    let removed = TemporaryCleanup.removeStale(listing, fileSystem: fileSystem)
    let missing = placeholdersInTheWay(archive: archive, listing: listing)
    guard missing.isEmpty else { throw ArchiveError.placeholdersPresent(missing) }
    let plan = try refined(
      ArchiveRestore.plan(archive: archive, destination: destination, fileSystem: fileSystem),
      archive: archive, fileSystem: fileSystem)
    var backup: AbsolutePath?
    if !plan.items(.merge).isEmpty {
      let target = BackupTarget(
        directory: { backupDirectory }, folder: destination, version: version, now: { now },
        fileSystem: fileSystem)
      backup = try target.make(
        FolderFiles.exportFiles(listing, includeCopies: true), reason: "restore")
    }
    let report = try ArchiveRestore.execute(
      archive: archive, destination: destination, fileSystem: fileSystem,
      merger: DocumentReplace.merger,
      coordinated: { path, replace in
        try CoordinatedFileSystem.run(.replacing, path, on: fileSystem, replace)
      })
    return Outcome(
      plan: plan, backupPath: backup, report: report, removedTemporaries: removed)
  }
}
