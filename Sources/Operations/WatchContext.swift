import Archive
import Platform
import Storage

/// What the runner needs from outside: the system's side effects, forwarded
/// (`context.fileSystem`, `context.now()`), and the watcher's own: the notifier, the lock,
/// the signals and the verb's backup, fetch and output (style.md (d): Operations reads none
/// of them itself).
@dynamicMemberLookup
public struct WatchContext {
  /// The disk, the clock (seconds since the epoch), the random part of temporary names, and
  /// the sync provider, which says which files are current and lists and resolves conflict
  /// versions (mn.md §15) and through which the disk coordinates.
  public var system: SystemContext
  /// The data folder.
  public var root: AbsolutePath
  public var notifier: any ChangeNotifier
  /// Tries the write lock once: the held lock, or nil when another writer holds it.
  public var tryLock: () throws -> WriteLocks?
  /// Where the verified backups go: before a merge, and the scheduled ones.
  public var backup: BackupTarget
  /// Fetches the placeholders of a scan, with `--fetch`'s source; nil without `--fetch`.
  public var fetch: ((FolderListing) throws -> FetchReport)?
  /// Applies the retention (`WatchRetention.apply`); returns the backups removed.
  public var prune: (BackupKeepPolicy) throws -> [AbsolutePath]
  /// Whether SIGTERM or SIGINT arrived (asked between documents, too).
  public var isTerminating: () -> Bool
  /// How many SIGHUPs arrived since it was last asked.
  public var takeHangups: () -> Int
  /// Takes each report as it happens.
  public var report: (WatchReport) -> Void

  public init(
    system: SystemContext, root: AbsolutePath, notifier: any ChangeNotifier,
    tryLock: @escaping () throws -> WriteLocks?,
    backup: BackupTarget,
    fetch: ((FolderListing) throws -> FetchReport)?,
    prune: @escaping (BackupKeepPolicy) throws -> [AbsolutePath],
    isTerminating: @escaping () -> Bool, takeHangups: @escaping () -> Int,
    report: @escaping (WatchReport) -> Void
  ) {
    self.system = system
    self.root = root
    self.notifier = notifier
    self.tryLock = tryLock
    self.backup = backup
    self.fetch = fetch
    self.prune = prune
    self.isTerminating = isTerminating
    self.takeHangups = takeHangups
    self.report = report
  }

  public subscript<Value>(dynamicMember keyPath: KeyPath<SystemContext, Value>) -> Value {
    system[keyPath: keyPath]
  }
}
