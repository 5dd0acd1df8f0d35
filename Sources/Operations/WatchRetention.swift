import Archive
import Platform

/// The retention `mn watch` applies after each scheduled backup (`--keep-last`,
/// `--keep-daily`, `--keep-weekly`, `--keep-monthly`; mn.md §12, §13).
public struct BackupKeepPolicy: Sendable, Equatable {
  public var last: Int?
  public var daily: Int?
  public var weekly: Int?
  public var monthly: Int?

  /// A policy; nil when no rule is given (then nothing is pruned).
  public init?(last: Int? = nil, daily: Int? = nil, weekly: Int? = nil, monthly: Int? = nil) {
    guard last != nil || daily != nil || weekly != nil || monthly != nil else { return nil }
    self.last = last
    self.daily = daily
    self.weekly = weekly
    self.monthly = monthly
  }
}

/// The one place where `mn watch` applies backup retention (mn.md §13): `mn backups prune`
/// with the watcher's keep options, after each scheduled backup.
public enum WatchRetention {
  /// Applies `policy` to the backups in `directory` of the watched folder and returns the
  /// paths removed: only backups `mn` wrote of that folder (or of one it was migrated from)
  /// are considered, the newest is always kept (`BackupCatalog.prune`); another folder's
  /// backups in a shared backup folder are left alone.
  ///
  /// - Parameters:
  ///   - policy: The rules.
  ///   - root: The watched data folder.
  ///   - directory: The backup folder.
  ///   - wait: How long another prune may hold the backup folder's lock, in seconds
  ///     (`--wait`'s default: the verb passes it).
  ///   - fileSystem: Where the backups are.
  ///   - sleep: Waits while another prune holds the backup folder's lock.
  ///   - offset: The local time zone's offset from UTC at a time, for days and weeks.
  /// - Returns: The backups removed.
  /// - Throws: `BackupCatalogError` (a folder that cannot be listed, a lock held).
  public static func apply(
    _ policy: BackupKeepPolicy, root: AbsolutePath, directory: AbsolutePath, wait: Double,
    fileSystem: any FileSystem, sleep: (Double) -> Void, offset: (Int64) -> Int64
  ) throws -> [AbsolutePath] {
    let rules = BackupRetention.Policy(
      last: policy.last ?? 0, daily: policy.daily ?? 0, weekly: policy.weekly ?? 0,
      monthly: policy.monthly ?? 0)
    let report = try BackupCatalog.prune(
      directory: directory, policy: rules, dryRun: false, wait: wait, fileSystem: fileSystem,
      sleep: sleep, offset: offset,
      folders: BackupLineage.ofFolder(root, in: directory, fileSystem: fileSystem))
    return report.removed.filter { $0.removal == .removed }.map(\.entry.path)
  }
}
