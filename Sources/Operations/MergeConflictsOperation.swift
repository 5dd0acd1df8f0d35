import Archive
import Platform
import Storage

/// The whole of `merge-conflicts` over both kinds of conflict, written once for the verb,
/// `watch` and `migrate` (mn.md §5, §12, §7 step 2): conflict copies (`ConflictMerge`) and
/// iCloud's conflict versions (`ConflictVersions`), with one backup before the first change.
///
/// `plan` refuses the documents whose inputs are not current before anything of them is read
/// (mn.md §15), plans the copies of the others and their versions; it changes nothing.
/// `execute` takes the backup itself, once, through the caller's `BackupTarget` (it holds the
/// copies and the versions' bytes), then merges the copies and then the versions. Callers
/// hold the write lock for the whole run.
public enum MergeConflictsOperation {
  /// Which conflicts a run looks at.
  public struct Inputs: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Conflict copies (`NAME (conflicted copy …).automerge` and the like).
    public static let copies = Inputs(rawValue: 1)
    /// The iCloud conflict versions of the documents (`NSFileVersion`).
    public static let versions = Inputs(rawValue: 2)
    public static let all: Inputs = [.copies, .versions]
  }

  /// What a run would merge.
  public struct Plan: Sendable {
    /// The documents with conflict copies: those refused as not current, then the others,
    /// in the order given (`ConflictMerge.plan`, then the refused ones).
    public var copies: ConflictMergePlan
    /// The documents with conflict versions.
    public var versions: VersionMergePlan

    /// Creates a plan.
    public init(copies: ConflictMergePlan, versions: VersionMergePlan) {
      self.copies = copies
      self.versions = versions
    }
  }

  /// What became of a run's copies and versions.
  public struct Report: Sendable {
    public var copies: ConflictMergeReport
    /// The versions as planned, untouched, when the run was interrupted during the copies.
    public var versions: VersionMergeReport
    /// The run's one backup archive; nil when none was made.
    public var backupPath: AbsolutePath? { copies.backupPath ?? versions.backupPath }
  }

  /// The backup before the first change.
  public enum BackupChoice {
    /// Make one of the files involved, named with `reason`.
    case make(BackupTarget, reason: String)
    /// One was made already and holds every file involved (`migrate`'s of both folders).
    case made(AbsolutePath)
    /// None (`--no-backup`).
    case skip
  }

  /// Reads the conflicts of `documents` and says what merging them would do; changes
  /// nothing.
  ///
  /// - Parameters:
  ///   - documents: The documents to consider (a selection of `listing`).
  ///   - listing: A scan of the data folder.
  ///   - inputs: Which conflicts to plan; without `.copies`, no document is refused here
  ///     (`ConflictVersions.plan` refuses a document that is not current itself).
  ///   - provider: Says which files are current; lists and reads the versions.
  ///   - fileSystem: Where to read (pass a `CoordinatedFileSystem`).
  /// - Returns: The copies' plan (the refused documents last) and the versions' plan.
  /// - Throws: Only for a bug (`ConflictMerge.plan`).
  public static func plan(
    _ documents: [DocumentEntry], listing: FolderListing, inputs: Inputs = .all,
    provider: any SyncProvider, fileSystem: any FileSystem
  ) throws -> Plan {
    var ready = documents
    var copies = ConflictMergePlan(root: listing.root, documents: [])
    if inputs.contains(.copies) {
      // Only current inputs are merged (mn.md §15): the others are refused before being read.
      let split = SyncReadiness.split(
        documents, root: listing.root, provider: provider, fileSystem: fileSystem)
      ready = split.ready
      copies = try ConflictMerge.plan(listing: listing, documents: ready, fileSystem: fileSystem)
      copies.documents += split.refused
    }
    var versions = VersionMergePlan(root: listing.root)
    if inputs.contains(.versions) {
      versions = ConflictVersions.plan(
        ready, root: listing.root, provider: provider, fileSystem: fileSystem)
    }
    return Plan(copies: copies, versions: versions)
  }

  /// Merges the planned copies, then the planned versions, after one backup.
  ///
  /// The backup is taken when the first of the two needs one (copies to remove, readable
  /// versions) and holds the files of both; the second uses the same archive.
  ///
  /// - Parameters:
  ///   - plan: From `plan`, made under the same write lock.
  ///   - keepCopies: Merge, but remove no copy and resolve no version (the copies then need
  ///     no backup).
  ///   - backup: How the backup is made.
  ///   - provider: Resolves the versions.
  ///   - fileSystem: Where to read and write (pass a `CoordinatedFileSystem`).
  ///   - progress: Told about each step of the copies, and `.backedUp` once the backup is
  ///     made.
  ///   - copiesMerged: Told the copies' report before the versions are merged (the verb
  ///     prints it then); what it throws stops the run there.
  ///   - isCancelled: Asked before each document with copies; true stops the run there,
  ///     before the versions (`report.copies.interrupted`).
  ///   - random: The random part of temporary names.
  /// - Returns: What became of each document's copies and versions, and the backup's path.
  /// - Throws: The backup's error (nothing changed), and the errors of
  ///   `ConflictMerge.execute` and `ConflictVersions.execute`.
  public static func execute(
    _ plan: Plan, keepCopies: Bool = false, backup: BackupChoice, provider: any SyncProvider,
    fileSystem: any FileSystem, progress: (ConflictMergeProgress) -> Void = { _ in },
    copiesMerged: (ConflictMergeReport) throws -> Void = { _ in },
    isCancelled: () -> Bool = { false }, random: () -> String = AtomicFile.randomSuffix
  ) throws -> Report {
    var backupPath: AbsolutePath?
    // The one backup: made on the first call, with the versions' bytes beside the files asked
    // for; later calls get the same path.
    func takeBackup(_ files: [ExportFile]) throws -> AbsolutePath? {
      if let backupPath { return backupPath }
      switch backup {
      case .skip: return nil
      case .made(let path): backupPath = path
      case .make(let target, let reason):
        var all = files
        for file in ConflictVersions.backupFiles(plan.versions)
        where !all.contains(where: { $0.relativePath == file.relativePath }) {
          all.append(file)
        }
        all.sort { $0.relativePath.precedesByBytes($1.relativePath) }
        let path = try target.make(all, reason: reason)
        backupPath = path
        progress(.backedUp(path: path))
      }
      return backupPath
    }
    let copies = try ConflictMerge.execute(
      plan.copies, keepCopies: keepCopies, fileSystem: fileSystem, backup: takeBackup,
      progress: { step in
        // `takeBackup` tells of the backup it makes, and of no other.
        if case .backedUp = step { return }
        progress(step)
      }, isCancelled: isCancelled, random: random)
    try copiesMerged(copies)
    guard !copies.interrupted else {
      return Report(copies: copies, versions: VersionMergeReport(plan: plan.versions))
    }
    let versions = try ConflictVersions.execute(
      plan.versions, provider: provider, fileSystem: fileSystem, resolving: !keepCopies,
      backup: takeBackup, random: random)
    return Report(copies: copies, versions: versions)
  }
}
