import Platform

/// What `mn watch` did, one value per action, for the verb to print (mn.md §12).
public enum WatchReport {
  /// Watching started (or `--once` started its pass).
  case watching(root: AbsolutePath, once: Bool)
  /// A full scan on request (SIGHUP) or after lost events.
  case rescanning(reason: WatchRescanReason)
  /// The app (or another `mn`) holds the write lock; waiting for it.
  case waitingForLock(path: AbsolutePath)
  /// The lock was free again after `waited` seconds.
  case lockTaken(waited: Double)
  /// A backup was written: before a merge, or on schedule.
  case backedUp(path: AbsolutePath, scheduled: Bool)
  /// A document's quiet copies were merged (or refused, or some kept: the value says).
  case merged(ConflictMergeDocument)
  /// A document's conflict versions were merged and resolved (or refused, or some kept
  /// unresolved: the value says).
  case mergedVersions(VersionMergeDocument)
  /// Placeholders were fetched.
  case fetched(FetchReport)
  /// Backups removed by the retention after a scheduled backup.
  case pruned([AbsolutePath])
  /// An action failed; it is tried again later.
  case failed(action: String, error: any Error)
  /// `--once`: copies left because they changed less than `--quiet-for` ago.
  case notQuietYet([AbsolutePath])
  /// The folder went away; waiting for it.
  case folderGone(root: AbsolutePath)
  /// The folder is back.
  case folderBack(root: AbsolutePath)
  /// The system refused to watch `count` directories of the folder (Linux: the inotify
  /// watch limit, `setting`); they are rescanned every `every` seconds. Reported once.
  case notWatched(count: Int, setting: String, every: Double)
  /// Copies that do not decode yet but changed recently: still arriving, waited for.
  case arriving([AbsolutePath])
  /// SIGTERM or SIGINT: exiting.
  case stopping
}

/// Why a full scan was made.
public enum WatchRescanReason: String, Sendable {
  case hangup = "SIGHUP"
  case overflow = "lost events"
}
