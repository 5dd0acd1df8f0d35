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

/// The one place where `mn watch` applies backup retention (mn.md §13).
public enum WatchRetention {
  /// Applies `policy` to the backups in `directory` and returns the paths removed.
  ///
  /// RETENTION CALL SITE (issue 17): `mn backups` and its pure `BackupRetention` are being
  /// written on another branch. Until they are merged this removes nothing; when merging,
  /// apply `BackupRetention` here (only backups `mn` wrote, the newest always kept). The
  /// watch tests check that this is reached after each scheduled backup.
  ///
  /// - Parameters:
  ///   - policy: The rules.
  ///   - directory: The backup folder.
  ///   - now: Seconds since the epoch.
  ///   - fileSystem: Where the backups are.
  /// - Returns: The backups removed (none yet).
  /// - Throws: The retention's errors (a backup that cannot be listed or removed).
  public static func apply(
    _ policy: BackupKeepPolicy, directory: String, now: Int64, fileSystem: any FileSystem
  ) throws -> [String] {
    []
  }
}
