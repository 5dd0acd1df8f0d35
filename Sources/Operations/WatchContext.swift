import Archive
import Platform
import Storage

/// What the runner needs from outside: the disk, the clock, the lock, the signals and the
/// verb's backup, fetch and output (style.md (d): Operations reads none of them itself).
public struct WatchContext {
  /// The data folder.
  public var root: String
  public var fileSystem: any FileSystem
  public var notifier: any ChangeNotifier
  /// Seconds since the epoch.
  public var now: () -> Double
  /// Tries the write lock once: the held lock, or nil when another writer holds it.
  public var tryLock: () throws -> WriteLocks?
  /// Where the verified backups go: before a merge, and the scheduled ones.
  public var backup: BackupTarget
  /// Fetches the placeholders of a scan, with `--fetch`'s source; nil without `--fetch`.
  public var fetch: ((FolderListing) throws -> FetchReport)?
  /// Applies the retention (`WatchRetention.apply`); returns the backups removed.
  public var prune: (BackupKeepPolicy) throws -> [String]
  /// Whether SIGTERM or SIGINT arrived (asked between documents, too).
  public var isTerminating: () -> Bool
  /// How many SIGHUPs arrived since it was last asked.
  public var takeHangups: () -> Int
  /// Takes each report as it happens.
  public var report: (WatchReport) -> Void
  /// The random part of temporary names.
  public var random: () -> String
  /// Says which files are current, lists and resolves conflict versions (mn.md §15);
  /// `NoSyncProvider` where there is none. Pass the one `fileSystem` coordinates through.
  public var syncProvider: any SyncProvider

  public init(
    root: String, fileSystem: any FileSystem, notifier: any ChangeNotifier,
    now: @escaping () -> Double, tryLock: @escaping () throws -> WriteLocks?,
    backup: BackupTarget,
    fetch: ((FolderListing) throws -> FetchReport)?,
    prune: @escaping (BackupKeepPolicy) throws -> [String],
    isTerminating: @escaping () -> Bool, takeHangups: @escaping () -> Int,
    report: @escaping (WatchReport) -> Void,
    random: @escaping () -> String = AtomicFile.randomSuffix,
    syncProvider: any SyncProvider = NoSyncProvider()
  ) {
    self.syncProvider = syncProvider
    self.root = root
    self.fileSystem = fileSystem
    self.notifier = notifier
    self.now = now
    self.tryLock = tryLock
    self.backup = backup
    self.fetch = fetch
    self.prune = prune
    self.isTerminating = isTerminating
    self.takeHangups = takeHangups
    self.report = report
    self.random = random
  }
}
