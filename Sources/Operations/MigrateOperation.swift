import Archive
import Platform
import Storage

/// The whole of `mn migrate` (mn.md §7): find the folders, lock both, plan, fetch, check,
/// confirm, back up, merge the conflict copies, execute; `Migration` holds the steps.
///
/// It never prints: what happens on the way is reported to `Context.event`, the
/// confirmation is asked of `Context.confirm`, and the result is returned as an `Outcome`.
public enum MigrateOperation {
  /// What the user asked for.
  public struct Request: Sendable {
    /// `--from`, absolute; nil for the unfinished migration's source, else the default.
    public var from: AbsolutePath?
    /// `--to`, absolute; nil for the default.
    public var to: AbsolutePath?
    /// The default source (the local folder), or nil when it is unknown (no home folder).
    public var defaultSource: AbsolutePath?
    /// The default destination (the iCloud Drive container), or nil when it is unknown.
    public var defaultDestination: AbsolutePath?
    /// `--dry-run`: stop after the checks.
    public var dryRun: Bool
    /// `--keep-source`: copy instead of move.
    public var keepSource: Bool
    /// `--fetch` and its options, or nil.
    public var fetch: FetchRequest?
    /// `--wait`: how long to wait for each lock, in seconds.
    public var lockTimeout: Double
    /// The pointer file (mn.md §2), updated when it names the source; nil when unknown.
    public var pointerFile: AbsolutePath?
    /// The tool's version, for the backup's manifest.
    public var version: String

    public init(
      from: AbsolutePath?, to: AbsolutePath?, defaultSource: AbsolutePath?,
      defaultDestination: AbsolutePath?,
      dryRun: Bool, keepSource: Bool, fetch: FetchRequest?, lockTimeout: Double,
      pointerFile: AbsolutePath?, version: String
    ) {
      self.from = from
      self.to = to
      self.defaultSource = defaultSource
      self.defaultDestination = defaultDestination
      self.dryRun = dryRun
      self.keepSource = keepSource
      self.fetch = fetch
      self.lockTimeout = lockTimeout
      self.pointerFile = pointerFile
      self.version = version
    }
  }

  /// `--fetch`: where the placeholders' content comes from, as for `mn fetch`.
  public struct FetchRequest: Sendable, Equatable {
    /// `--fetch-from`, absolute: another copy of the data folder, or an archive.
    public var from: AbsolutePath?
    /// `--fetch-exec`: a shell command per placeholder.
    public var command: String?
    /// `--fetch-timeout`, in seconds, for both folders together.
    public var timeout: Double

    public init(from: AbsolutePath?, command: String?, timeout: Double) {
      self.from = from
      self.command = command
      self.timeout = timeout
    }

    /// Whether stale files (a newer version not downloaded yet, mn.md §15) are fetched too:
    /// only when the system is the source (`--fetch-from` and `--fetch-exec` bring
    /// placeholders only).
    var fetchesStaleFiles: Bool { from == nil && command == nil }
  }

  /// The side effects the migration may use, passed in (style.md (d)): the system's,
  /// forwarded (`context.fileSystem`), and the ones that are migrate's own.
  @dynamicMemberLookup
  public struct Context {
    /// The disk, sleeping (waiting for a lock), the clock (`nowSeconds`, for the backup's
    /// name and manifest) and the sync provider, which says which files are current, moves
    /// into iCloud Drive and lists conflict versions.
    public var system: SystemContext
    /// The backup directory, asked for only when a backup is made.
    public var backupDirectory: () throws -> AbsolutePath
    /// The context of `--fetch`'s fetch from `source`, with the number of files to fetch.
    public var fetchContext: (_ source: FetchSource, _ total: Int) -> FetchContext
    /// Asked once, after the plan, before anything changes: false stops with `.declined`.
    public var confirm: (MigrationPlan) throws -> Bool
    /// Told what happens on the way, in order.
    public var event: (Event) throws -> Void

    public init(
      system: SystemContext, backupDirectory: @escaping () throws -> AbsolutePath,
      fetchContext: @escaping (FetchSource, Int) -> FetchContext,
      confirm: @escaping (MigrationPlan) throws -> Bool,
      event: @escaping (Event) throws -> Void = { _ in }
    ) {
      self.system = system
      self.backupDirectory = backupDirectory
      self.fetchContext = fetchContext
      self.confirm = confirm
      self.event = event
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<SystemContext, Value>) -> Value {
      system[keyPath: keyPath]
    }
  }

  /// What happens on the way, reported as it happens.
  public enum Event {
    /// A journal in the destination cannot be read (why); it is ignored.
    case journalIgnored(String)
    /// One of mn's leftover temporaries was removed (absolute path).
    case removedTemporary(String)
    /// `--fetch` fetched (both folders in one report; what is still missing is left to the
    /// plan's blocker).
    case fetched(FetchReport)
    /// The plan, checked: `blocked` when a blocker stops the migration (thrown right after);
    /// `wouldFetch` lists what `--dry-run --fetch` would fetch.
    case planned(MigrationPlan, wouldFetch: [FetchPlan], blocked: Bool)
    /// An unfinished migration, recorded in this journal, is resumed.
    case resuming(journal: AbsolutePath)
    /// The verified backup of both folders was written here.
    case backupWritten(AbsolutePath)
    /// The documents and files are about to be migrated, this many steps.
    case executing(total: Int)
    /// This document or file is migrated now (logical name).
    case migrating(String)
  }

  /// Why there is nothing to migrate.
  public enum NothingReason: Sendable, Equatable {
    /// The (default) source does not exist.
    case sourceMissing
    /// The source holds no documents.
    case noDocuments
  }

  /// How a migration ended, short of an error.
  public enum Outcome {
    /// Nothing to do (a rerun after a finished migration): the empty plan, and why.
    case nothingToDo(MigrationPlan, NothingReason)
    /// `--dry-run`: the plan, checked; nothing changed.
    case checked(MigrationPlan)
    /// The confirmation was refused; nothing changed.
    case declined(MigrationPlan)
    /// Done: the plan executed, what was done, and the backup's path (nil when there was
    /// nothing to back up).
    case migrated(MigrationPlan, MigrationReport, backup: AbsolutePath?)
  }

  /// Runs a migration.
  ///
  /// - Parameters:
  ///   - request: the folders and options.
  ///   - context: the file system, the sync provider, the clock and the callbacks.
  /// - Returns: how it ended.
  /// - Throws: `MigrationError` (`noDefaultFolder`, `nested`, `unfinishedMigration`,
  ///   `noSuchSource`, `noSuchDestination`, a plan's blocker, and what `Migration.execute`
  ///   throws), `LockError`, `StorageError`, `FetchError`, `ArchiveError` from the backup,
  ///   `FileSystemError` from recording the lineage (`BackupLineage`), and what `context`'s
  ///   callbacks throw. Every error before the backup leaves both
  ///   folders as they were; the locks are released on every path.
  public static func run(_ request: Request, context: Context) throws -> Outcome {
    let fs = context.fileSystem
    guard let destination = request.to ?? request.defaultDestination else {
      throw MigrationError.noDefaultFolder
    }
    var previous: MigrationJournal?
    switch MigrationJournal.read(destination: destination, fileSystem: fs) {
    case .found(let journal): previous = journal
    case .unreadable(let why): try context.event(.journalIgnored(why))
    case .none: break
    }
    if let from = request.from, let previous, from != previous.source {
      throw MigrationError.unfinishedMigration(
        journal: MigrationJournal.path(destination: destination).string,
        source: previous.source.string, requested: from.string)
    }
    guard let source = request.from ?? previous?.source ?? request.defaultSource else {
      throw MigrationError.noDefaultFolder
    }
    try Migration.checkRoots(source: source, destination: destination, fileSystem: fs)
    if !isDirectory(source, fs) && previous == nil {
      if request.from != nil { throw MigrationError.noSuchSource(source.string) }
      return .nothingToDo(empty(source, destination, fs), .sourceMissing)
    }
    let destinationExists = isDirectory(destination, fs)
    let locks = try Migration.lock(
      [source, destination].filter { isDirectory($0, fs) }, destination: destination,
      timeout: request.lockTimeout, fileSystem: fs, sleep: context.sleep)
    defer { locks.release() }
    var plan = try Migration.plan(
      source: source, destination: destination, fileSystem: fs,
      syncProvider: context.syncProvider)
    if plan.sourceListing.documents.isEmpty && previous == nil {
      return .nothingToDo(empty(source, destination, fs), .noDocuments)
    }
    if !destinationExists && request.to == nil {
      throw MigrationError.noSuchDestination(destination.string)
    }
    try removeTemporaries(plan, context)
    plan = try check(plan, request, context)
    if let previous {
      try context.event(
        .resuming(journal: MigrationJournal.path(destination: previous.destination)))
    }
    if request.dryRun { return .checked(plan) }
    guard try context.confirm(plan) else { return .declined(plan) }
    if !destinationExists {
      try Migration.createDestination(destination, fileSystem: fs)
      try Migration.lockDestination(destination, in: locks)
      plan = try Migration.plan(
        source: source, destination: destination, fileSystem: fs,
        syncProvider: context.syncProvider)
      if let blocker = plan.blocker { throw blocker }
    }
    var backup: AbsolutePath?
    if plan.hasWork(keepSource: request.keepSource) {
      let directory = try context.backupDirectory()
      let (from, to) = (source, destination)
      let target = BackupTarget(
        directory: { directory }, moving: from, to: to, version: request.version,
        now: { context.nowSeconds }, fileSystem: fs)
      let path = try target.make(Migration.backupFiles(plan), reason: "migrate")
      backup = path
      try context.event(.backupWritten(path))
      // Before anything moves: from now on the destination holds the source's documents, so
      // the source's backups are the destination's too (mn repair, mn.md §14).
      try BackupLineage.record(
        source: from, destination: to, directory: directory, now: context.nowSeconds,
        fileSystem: fs, wait: request.lockTimeout, sleep: context.sleep)
    }
    if !plan.conflicts.isEmpty || !plan.versions.isEmpty {
      plan = try Migration.mergeConflicts(
        plan, keepSource: request.keepSource, backupPath: backup, fileSystem: fs,
        syncProvider: context.syncProvider)
      if let blocker = plan.blocker { throw blocker }
    }
    try context.event(.executing(total: plan.documents.count + plan.files.count))
    let report = try Migration.execute(
      plan, keepSource: request.keepSource, pointerFile: request.pointerFile,
      previous: previous, fileSystem: fs, syncProvider: context.syncProvider,
      progress: { name in try? context.event(.migrating(name)) })
    return .migrated(plan, report, backup: backup)
  }

  /// Fetches with `--fetch` (not with `--dry-run`), reports the plan, and throws its
  /// blocker (mn.md §7, step 2); returns the plan to go on with.
  static func check(_ plan: MigrationPlan, _ request: Request, _ context: Context) throws
    -> MigrationPlan
  {
    var plan = plan
    let stale: any SyncProvider =
      request.fetch?.fetchesStaleFiles == true ? context.syncProvider : NoSyncProvider()
    var checked = plan
    var wouldFetch: [FetchPlan] = []
    if let fetch = request.fetch, !Migration.fetchPlans(plan, staleFrom: stale).isEmpty {
      if request.dryRun {
        wouldFetch = Migration.fetchPlans(plan, staleFrom: stale)
        checked.placeholders = Migration.unfetchable(plan, staleFrom: stale)
      } else {
        plan = try self.fetch(plan, fetch, stale: stale, context)
        checked = plan
      }
    }
    let blocker = checked.blocker
    try context.event(.planned(plan, wouldFetch: wouldFetch, blocked: blocker != nil))
    if let blocker { throw blocker }
    return plan
  }

  /// Fetches the placeholders of both folders (both locks held) and returns the new plan.
  static func fetch(
    _ plan: MigrationPlan, _ request: FetchRequest, stale: any SyncProvider, _ context: Context
  ) throws -> MigrationPlan {
    var source = FetchSource.sync
    if let from = request.from {
      source = try Migration.fetchSource(from: from, plan: plan, fileSystem: context.fileSystem)
    } else if let command = request.command {
      source = .command(command)
    }
    let total = Migration.fetchPlans(plan, staleFrom: stale).reduce(0) { $0 + $1.items.count }
    let (report, again) = try Migration.fetch(
      plan, source: source, options: FetchOptions(timeout: request.timeout),
      context: context.fetchContext(source, total))
    try context.event(.fetched(report))
    return again
  }

  /// Removes mn's leftover temporaries in both folders (mn.md §6); both locks are held.
  static func removeTemporaries(_ plan: MigrationPlan, _ context: Context) throws {
    for listing in [plan.sourceListing] + (plan.destinationListing.map { [$0] } ?? []) {
      for name in TemporaryCleanup.removeStale(listing, fileSystem: context.fileSystem) {
        try context.event(.removedTemporary(listing.root.appending(name).string))
      }
    }
  }

  /// The plan of a migration with nothing to do.
  static func empty(_ source: AbsolutePath, _ destination: AbsolutePath, _ fs: any FileSystem)
    -> MigrationPlan
  {
    MigrationPlan(
      source: source, destination: destination, destinationExists: isDirectory(destination, fs))
  }

  static func isDirectory(_ path: AbsolutePath, _ fs: any FileSystem) -> Bool {
    (try? fs.infoFollowingLinks(path))??.kind == .directory
  }
}
