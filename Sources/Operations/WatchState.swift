import Platform

/// A conflict copy that a scan found (downloaded; placeholders are not copies to merge yet).
public struct WatchCopy: Sendable, Equatable {
  /// The copy's absolute path.
  public var path: AbsolutePath
  /// Its modification time, seconds since the epoch.
  public var modified: Double

  public init(path: AbsolutePath, modified: Double) {
    self.path = path
    self.modified = modified
  }
}

/// What happened, as `WatchState` takes it. The time comes with each step.
public enum WatchInput: Sendable, Equatable {
  /// Time passed (a wait ended with nothing new).
  case tick
  /// A conflict copy was created or written.
  case copyChanged(AbsolutePath)
  /// A conflict copy was removed or renamed away.
  case copyRemoved(AbsolutePath)
  /// A full scan found these downloaded copies (every other copy is gone).
  case scanned([WatchCopy])
  /// A placeholder was seen (by a scan or a change).
  case placeholderSeen
  /// Something happened that only a full scan can tell (a new directory, lost events).
  case needsRescan
  /// Documents that have unresolved conflict versions (iCloud's `NSFileVersion`, mn.md §15),
  /// with their files' modification times: found by a full scan (`all`: no other document
  /// has any), or after a document changed (then it changed `now`).
  case versionsFound([WatchCopy], all: Bool)
  /// A merge of versions ended: the documents settled (every version resolved, or kept
  /// and reported), those to try again once quiet (they changed during the merge).
  case versionsMerged(settled: [AbsolutePath], retry: [AbsolutePath])
  /// A merge of versions failed as a whole: try again after `retryAfter`.
  case versionsFailed([AbsolutePath])
  /// A merge ended: the copies removed, those to try again once quiet (they changed during
  /// the merge, or it was interrupted), those to leave until they change (unreadable,
  /// refused).
  case mergeFinished(removed: [AbsolutePath], retry: [AbsolutePath], dropped: [AbsolutePath])
  /// A merge failed as a whole (a write, the backup, the lock file): try again after
  /// `retryAfter`.
  case mergeFailed([AbsolutePath])
  /// A fetch ended (whatever it brought; what is still missing waits for the next change).
  case fetchFinished
  /// A scheduled backup was written (`written`), or failed: then it is tried again at the
  /// next period, and nothing is pruned.
  case backupFinished(written: Bool)
  /// The folder is not there any more.
  case folderGone
  /// The folder is back.
  case folderBack
  /// The notifier watches all but `unwatched` directories of the folder (the system
  /// refused the others): while that is not zero, the folder is rescanned every
  /// `unwatchedRescanEvery` seconds.
  case coverage(unwatched: Int)
  /// SIGHUP.
  case hangup
  /// SIGTERM or SIGINT.
  case terminate
}

/// What `WatchState` asks for.
public enum WatchAction: Sendable, Equatable {
  /// Scan the whole folder and report `.scanned` (and `.placeholderSeen`).
  case rescan
  /// Merge these copies (absolute paths, sorted), each quiet for long enough.
  case merge([AbsolutePath])
  /// Merge the conflict versions of these documents (absolute paths, sorted), each quiet
  /// for long enough, as `merge-conflicts` does (`ConflictVersions`).
  case mergeVersions([AbsolutePath])
  /// Fetch the placeholders.
  case fetch
  /// Write a scheduled backup.
  case backup
  /// Apply the retention to the backups, after a scheduled backup.
  case prune(BackupKeepPolicy)
  /// Wait for the folder to come back.
  case waitForFolder
  /// Watch the folder again (it is back), then rescan.
  case watchAgain
  /// Exit (status 0).
  case stop
}

/// The decisions of `mn watch`, with no clock and no disk: events and the time in, actions
/// out (mn.md §12).
///
/// A copy is due `quietFor` seconds after its last change (or, found by a scan, after its
/// modification time: a copy that was renamed into place whole may be old already). Only
/// names that the conflict-copy table matches are copies (the caller tells them): a
/// document that the app rewrites under the lock is never one. While the folder is gone,
/// nothing is due. After `.terminate`, the only action is `.stop`.
///
/// A conflict version has no file of its own to watch: the caller asks the provider for
/// versions on every full scan and after each change of a document, and reports what it
/// found (`.versionsFound`). A document with versions is due `quietFor` seconds after its
/// file last changed, as a copy is.
///
/// When the system refuses to watch some directories (`.coverage`), a rescan is due every
/// `unwatchedRescanEvery` seconds, so that no copy there is missed (mn.md §12). A copy that
/// does not decode is taken for one still arriving until it has been unchanged for
/// `policy.arrivingFor` seconds (`isArriving`).
public struct WatchState: Sendable {
  public let policy: WatchPolicy
  /// Each pending copy's path and the time it is due.
  public private(set) var due: [AbsolutePath: Double] = [:]
  /// Each document with unresolved conflict versions and the time their merge is due.
  public private(set) var versionsDue: [AbsolutePath: Double] = [:]
  /// Whether a fetch is wanted.
  public private(set) var fetchWanted = false
  /// When the next scheduled backup is due; nil when there is none.
  public private(set) var nextBackup: Double?
  /// Whether the folder is there.
  public private(set) var folderPresent = true
  /// Whether SIGTERM or SIGINT arrived.
  public private(set) var stopping = false
  /// How many directories the notifier could not watch.
  public private(set) var unwatched = 0
  /// When the next rescan for the unwatched directories is due; nil while all are watched.
  public private(set) var nextUnwatchedRescan: Double?

  /// A state at `now`.
  ///
  /// - Parameters:
  ///   - policy: The options.
  ///   - lastBackup: When the newest scheduled backup was written (seconds since the epoch);
  ///     nil for none, which makes the first one due at once.
  ///   - now: The current time.
  public init(policy: WatchPolicy, lastBackup: Double?, now: Double) {
    self.policy = policy
    if let every = policy.backupEvery {
      nextBackup = lastBackup.map { min($0 + every, now + every) } ?? now
    }
  }

  /// Takes one input at `now` and returns what to do, in order.
  public mutating func step(_ input: WatchInput, at now: Double) -> [WatchAction] {
    if stopping { return [] }
    switch input {
    case .tick: break
    case .copyChanged(let path):
      if folderPresent { due[path] = now + policy.quietFor }
    case .copyRemoved(let path):
      due[path] = nil
    case .scanned(let copies):
      var next: [AbsolutePath: Double] = [:]
      for copy in copies {
        let quietSince = min(copy.modified, now)
        next[copy.path] = max(due[copy.path] ?? -.infinity, quietSince + policy.quietFor)
      }
      due = next
    case .placeholderSeen:
      if policy.fetch && folderPresent { fetchWanted = true }
    case .versionsFound(let documents, let all):
      guard folderPresent else { break }
      var next = all ? [:] : versionsDue
      for document in documents {
        let quietSince = min(document.modified, now)
        let earliest = all ? versionsDue[document.path] ?? -.infinity : -.infinity
        next[document.path] = max(earliest, quietSince + policy.quietFor)
      }
      versionsDue = next
    case .versionsMerged(let settled, let retry):
      for path in settled { versionsDue[path] = nil }
      for path in retry { versionsDue[path] = now + policy.quietFor }
    case .versionsFailed(let paths):
      for path in paths { versionsDue[path] = now + policy.retryAfter }
    case .coverage(let count):
      unwatched = count
      if count == 0 {
        nextUnwatchedRescan = nil
      } else if folderPresent && nextUnwatchedRescan == nil {
        nextUnwatchedRescan = now + policy.unwatchedRescanEvery
      }
    case .needsRescan, .hangup:
      guard folderPresent else { return [] }
      if unwatched > 0 { nextUnwatchedRescan = now + policy.unwatchedRescanEvery }
      return [.rescan] + dueActions(at: now)
    case .mergeFinished(let removed, let retry, let dropped):
      for path in removed + dropped { due[path] = nil }
      for path in retry { due[path] = now + policy.quietFor }
    case .mergeFailed(let paths):
      for path in paths { due[path] = now + policy.retryAfter }
    case .fetchFinished:
      fetchWanted = false
    case .backupFinished(let written):
      if let every = policy.backupEvery { nextBackup = now + every }
      guard written, let keep = policy.keep else { return [] }
      return [.prune(keep)]
    case .folderGone:
      guard folderPresent else { return [] }
      folderPresent = false
      due.removeAll()
      versionsDue.removeAll()
      fetchWanted = false
      unwatched = 0
      nextUnwatchedRescan = nil
      return [.waitForFolder]
    case .folderBack:
      guard !folderPresent else { return [] }
      folderPresent = true
      return [.watchAgain, .rescan]
    case .terminate:
      stopping = true
      return [.stop]
    }
    if folderPresent, let next = nextUnwatchedRescan, next <= now {
      nextUnwatchedRescan = now + policy.unwatchedRescanEvery
      return [.rescan] + dueActions(at: now)
    }
    return dueActions(at: now)
  }

  /// Whether a copy that does not decode, last modified at `modified`, is still arriving
  /// at `now` (a sync client writing it slowly): waited for, not called damaged, until it
  /// has been unchanged for `policy.arrivingFor` seconds.
  public func isArriving(modified: Double, at now: Double) -> Bool {
    now - modified < policy.arrivingFor
  }

  /// The actions due at `now`: the quiet copies' merge, a fetch, a backup.
  func dueActions(at now: Double) -> [WatchAction] {
    guard folderPresent else { return [] }
    var actions: [WatchAction] = []
    let ready = due.filter { $0.value <= now }.keys.sorted { $0.string.precedesByBytes($1.string) }
    if fetchWanted { actions.append(.fetch) }
    if !ready.isEmpty { actions.append(.merge(ready)) }
    let versions = versionsDue.filter { $0.value <= now }.keys.sorted {
      $0.string.precedesByBytes($1.string)
    }
    if !versions.isEmpty { actions.append(.mergeVersions(versions)) }
    if let next = nextBackup, next <= now { actions.append(.backup) }
    return actions
  }

  /// When the next action falls due on its own (a copy turning quiet, a backup, a rescan of
  /// unwatched directories), so that the caller knows how long it may wait for events; nil
  /// when nothing will.
  public func deadline() -> Double? {
    guard folderPresent, !stopping else { return nil }
    let earliest = [due.values.min(), versionsDue.values.min(), nextUnwatchedRescan]
      .compactMap { $0 }.min()
    switch (earliest, nextBackup) {
    case (let a?, let b?): return min(a, b)
    case (let a?, nil): return a
    case (nil, let b): return b
    }
  }
}
