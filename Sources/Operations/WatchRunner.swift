import Platform
import Storage

/// The loop of `mn watch`: waits for the notifier, feeds `WatchState`, does what it asks
/// (mn.md §12).
///
/// Merges go through `MergeConflictsOperation` exactly as `merge-conflicts` does (backup
/// first, read back, verify, only then remove), with only the copies that are quiet, under
/// the write lock, which is taken for that write alone and waited for as long as it takes.
/// A `kill -9` at any moment loses nothing (`ConflictMerge`'s guarantee); a restart's first
/// scan picks up what is left.
///
/// In a synced folder (mn.md §15) only current inputs are merged (`SyncReadiness`: a stale
/// or dataless one is left, and fetched with `--fetch`), and iCloud's conflict versions
/// (`NSFileVersion`) are merged as `merge-conflicts` merges them (`ConflictVersions`, through
/// the same operation: their bytes in the backup first, resolved only once the merged file
/// is durable and verified).
/// A version has no file to watch: the provider is asked for versions on every full scan
/// and after each change of a document, never on a timer.
public struct WatchRunner {
  /// While the folder is gone, how often it is looked for besides the notifier's events (a
  /// file system mounted on the folder's place sends none).
  public static let folderCheckInterval = 2.0
  /// How often a held lock is tried again.
  public static let lockRetryInterval = 0.1

  public private(set) var state: WatchState
  let context: WatchContext
  let once: Bool
  private var queue: [WatchAction] = []
  private var done = false
  private var rescanQueued = false
  private var ignorePlaceholdersOnce = false
  /// Whether the refused watches were reported (once a run).
  private var warnedUnwatched = false
  /// Whether the system's privacy controls refusing the folder was said (once until it
  /// can be read again).
  private var saidNotPermitted = false

  /// A runner.
  ///
  /// - Parameters:
  ///   - policy: The options.
  ///   - once: One full pass, then return (`--once`): merges the copies whose modification
  ///     time is `quietFor` old, fetches, backs up when due.
  ///   - lastBackup: When the newest scheduled backup was written (`WatchPaths`).
  ///   - context: Everything from outside.
  public init(policy: WatchPolicy, once: Bool, lastBackup: Double?, context: WatchContext) {
    self.state = WatchState(policy: policy, lastBackup: lastBackup, now: context.now())
    self.context = context
    self.once = once
  }

  /// Runs until SIGTERM or SIGINT (or, with `once`, until the pass is done).
  ///
  /// - Throws: `ChangeNotifierError` when the system's notifications cannot be used.
  public mutating func run() throws(ChangeNotifierError) {
    context.report(.watching(root: context.root, once: once))
    if once {
      feed(.needsRescan)
      try drainActions()
      if !done {
        let left = state.due.keys.sorted { $0.string.precedesByBytes($1.string) }
        if !left.isEmpty { context.report(.notQuietYet(left)) }
      }
      return
    }
    if folderExists() {
      do {
        try context.notifier.watchTree(root: context.root)
        noteCoverage()
        feed(.needsRescan)
      } catch {
        if folderExists() { throw error }
        feed(.folderGone)
      }
    } else {
      feed(.folderGone)
    }
    while true {
      takeSignals()
      feed(.tick)
      try drainActions()
      if done { return }
      let timeout: Double?
      if state.folderPresent {
        timeout = state.deadline().map { max(0, $0 - context.now()) }
      } else {
        timeout = Self.folderCheckInterval
      }
      let events = try context.notifier.wait(timeout: timeout)
      take(events)
      if state.folderPresent { noteCoverage() }
      if !state.folderPresent && folderExists() { feed(.folderBack) }
    }
  }

  /// Tells the state how many directories the notifier could not watch, and says so the
  /// first time (mn.md §12: never silently blind).
  private mutating func noteCoverage() {
    let count = context.notifier.unwatched.count
    if count != state.unwatched { feed(.coverage(unwatched: count)) }
    if count > 0 && !warnedUnwatched {
      warnedUnwatched = true
      context.report(
        .notWatched(
          count: count, setting: ChangeNotifierLimit.setting,
          every: state.policy.unwatchedRescanEvery))
    }
  }

  /// Feeds one input to the state and queues what it asks for that is not queued already
  /// (each input of one pass asks again for what is due: one backup, not one per input).
  private mutating func feed(_ input: WatchInput) {
    for action in state.step(input, at: context.now()) where !queue.contains(action) {
      queue.append(action)
    }
  }

  private mutating func takeSignals() {
    if context.isTerminating() {
      feed(.terminate)
      return
    }
    if context.takeHangups() > 0 {
      context.report(.rescanning(reason: .hangup))
      feed(.hangup)
    }
  }

  /// Turns the notifier's events into inputs; several rescans in one batch are one.
  private mutating func take(_ events: [ChangeEvent]) {
    var rescan = false
    for event in events {
      switch event {
      case .changed(let path):
        switch WatchPaths.kind(of: path, root: context.root) {
        case .copy: feed(.copyChanged(path))
        case .placeholder: feed(.placeholderSeen)
        case .document: documentChanged(path)
        case .other: break
        }
      case .removed(let path):
        if WatchPaths.kind(of: path, root: context.root) == .copy {
          feed(.copyRemoved(path))
        }
      case .directoryAdded, .directoryChanged:
        rescan = true
      case .overflow:
        if !rescan { context.report(.rescanning(reason: .overflow)) }
        rescan = true
      case .rootGone:
        if !folderExists() { feed(.folderGone) }
      case .woken:
        if context.takeHangups() > 0 {
          context.report(.rescanning(reason: .hangup))
          feed(.hangup)
        }
      case .ancestorChanged:
        break
      }
    }
    if rescan && state.folderPresent && !rescanQueued {
      rescanQueued = true
      feed(.needsRescan)
    }
  }

  /// Does every queued action, and those they lead to.
  private mutating func drainActions() throws(ChangeNotifierError) {
    while !queue.isEmpty && !done {
      let action = queue.removeFirst()
      try perform(action)
      if !done && context.isTerminating() { feed(.terminate) }
    }
  }

  private mutating func perform(_ action: WatchAction) throws(ChangeNotifierError) {
    switch action {
    case .rescan:
      rescanQueued = false
      rescan()
    case .merge(let paths):
      try merge(paths)
    case .mergeVersions(let paths):
      try mergeVersions(paths)
    case .fetch:
      try fetch()
    case .backup:
      backup()
    case .prune(let policy):
      do {
        context.report(.pruned(try context.prune(policy)))
      } catch {
        context.report(.failed(action: "prune backups", error: error))
      }
    case .waitForFolder:
      context.report(.folderGone(root: context.root))
      guard !once else {
        done = true
        return
      }
      // Refused, the folder is still looked for every `folderCheckInterval`.
      try? context.notifier.watchForAppearance(of: context.root)
      if folderExists() { feed(.folderBack) }
    case .watchAgain:
      context.report(.folderBack(root: context.root))
      do {
        try context.notifier.watchTree(root: context.root)
        noteCoverage()
      } catch {
        if folderExists() { throw error }
        feed(.folderGone)
      }
    case .stop:
      context.report(.stopping)
      done = true
    }
  }

  /// Whether the folder is there; one that the system's privacy controls keep mn from
  /// looking at (`EPERM`) is there (its scan says what to grant), never gone.
  private func folderExists() -> Bool {
    do {
      return try context.fileSystem.infoFollowingLinks(context.root)?.kind
        == .directory
    } catch let error as FileSystemError where error.errno == .notPermitted {
      return true
    } catch {
      return false
    }
  }

  /// Scans the folder (without downloading anything, mn.md §15); a folder that cannot be
  /// listed any more is gone.
  private mutating func scan(readingStaleStubs: Bool = false) -> FolderListing? {
    do {
      let context = self.context
      let listing = try context.syncProvider.withoutMaterializing {
        try FolderScan.scan(
          root: context.root, fileSystem: context.fileSystem,
          readingStaleStubs: readingStaleStubs)
      }
      saidNotPermitted = false
      return listing
    } catch {
      if let denied = StorageError.privacyDenial(error, root: context.root) {
        // macOS's privacy controls (mn.md §15): a permission to grant, not a folder gone.
        if !saidNotPermitted {
          saidNotPermitted = true
          context.report(.failed(action: "read the data folder", error: denied))
        }
      } else if !folderExists() {
        feed(.folderGone)
      }
      return nil
    }
  }

  private mutating func rescan() {
    guard let listing = scan() else { return }
    var copies: [WatchCopy] = []
    var placeholders = false
    for document in listing.documents {
      if !document.placeholders.isEmpty { placeholders = true }
      for copy in document.copies {
        if copy.placeholder != nil {
          placeholders = true
          continue
        }
        let modified = (try? context.fileSystem.info(copy.path)).flatMap { $0 }.map {
          Double($0.modificationSeconds) + Double($0.modificationNanoseconds) / 1e9
        }
        copies.append(WatchCopy(path: copy.path, modified: modified ?? context.now()))
      }
    }
    feed(.scanned(copies))
    let (versions, _) = ConflictVersions.list(
      listing.documents, root: context.root, provider: context.syncProvider)
    let documents = listing.documents.compactMap { document -> WatchCopy? in
      guard versions[document.logicalName] != nil else { return nil }
      return WatchCopy(
        path: document.name.path(root: context.root),
        modified: modified(document))
    }
    feed(.versionsFound(documents, all: true))
    if placeholders && !ignorePlaceholdersOnce { feed(.placeholderSeen) }
    ignorePlaceholdersOnce = false
  }

  /// A document's file changed: in a synced folder, iCloud may have kept a conflict version
  /// of it, so the provider is asked (one call; nothing is read).
  private mutating func documentChanged(_ path: AbsolutePath) {
    guard context.syncProvider.folderKind(of: path) != .plain,
      let versions = context.syncProvider.conflictVersions(of: path), !versions.isEmpty
    else { return }
    feed(.versionsFound([WatchCopy(path: path, modified: context.now())], all: false))
  }

  /// The modification time of a document's file; now when it cannot be told.
  private func modified(_ document: DocumentEntry) -> Double {
    let info =
      (try? context.fileSystem.info(document.name.path(root: context.root))) ?? nil
    return info.map {
      Double($0.modificationSeconds) + Double($0.modificationNanoseconds) / 1e9
    } ?? context.now()
  }

  /// Takes the write lock, waiting as long as it takes (the events that arrive meanwhile
  /// are taken too), runs `body`, and releases the lock. Nil when SIGTERM came first.
  private mutating func withLock<T>(_ body: (inout WatchRunner) throws -> T) throws -> T? {
    var waitingSince: Double?
    while true {
      if context.isTerminating() { return nil }
      if let lock = try context.tryLock() {
        defer { lock.release() }
        if let since = waitingSince { context.report(.lockTaken(waited: context.now() - since)) }
        return try body(&self)
      }
      if waitingSince == nil {
        context.report(
          .waitingForLock(path: DataFolder.lockPath(root: context.root)))
        waitingSince = context.now()
      }
      take(try context.notifier.wait(timeout: Self.lockRetryInterval))
    }
  }

  private mutating func merge(_ paths: [AbsolutePath]) throws(ChangeNotifierError) {
    do {
      guard
        let outcome = try withLock({ runner -> WatchInput? in
          guard let listing = runner.scan() else { return nil }
          _ = TemporaryCleanup.removeStale(listing, fileSystem: runner.context.fileSystem)
          return try runner.mergeQuiet(paths, listing)
        })
      else {
        feed(.mergeFinished(removed: [], retry: paths, dropped: []))
        return
      }
      feed(outcome ?? .mergeFailed(paths))
    } catch let error as ChangeNotifierError {
      throw error
    } catch {
      context.report(.failed(action: "merge", error: error))
      feed(.mergeFailed(paths))
    }
  }

  /// Merges the copies among `paths` that the scan still finds, each document with only its
  /// quiet copies (a copy still being written stays out of the merge and in the folder).
  private mutating func mergeQuiet(_ paths: [AbsolutePath], _ listing: FolderListing) throws
    -> WatchInput
  {
    let wanted = Set(paths)
    var entries: [DocumentEntry] = []
    for var document in listing.documents where document.hasCopies {
      document.copies = document.copies.filter { wanted.contains($0.path) }
      if !document.copies.isEmpty { entries.append(document) }
    }
    let plan = try MergeConflictsOperation.plan(
      entries, listing: listing, inputs: .copies, provider: context.syncProvider,
      fileSystem: context.fileSystem)
    let result = try runMerge(plan).copies
    var removed: [AbsolutePath] = []
    var retry: [AbsolutePath] = []
    var dropped: [AbsolutePath] = []
    var seen = Set<AbsolutePath>()
    var placeholder = false
    var arriving: [AbsolutePath] = []
    for var document in result.documents {
      for copy in document.copies { seen.insert(copy.copy.path) }
      // A copy that does not decode but changed recently is still being written: waited
      // for, not reported as damaged (mn.md §12).
      let waiting = document.copies.filter { isArriving($0) }.map(\.copy.path)
      if !waiting.isEmpty {
        arriving += waiting
        retry += waiting
        document.copies.removeAll { waiting.contains($0.copy.path) }
        if document.copies.isEmpty { continue }
      }
      let paths = document.copies.map(\.copy.path)
      if let refusal = document.refusal {
        context.report(.merged(document))
        switch refusal {
        case .changedDuringRun: retry += paths
        case .notDownloaded, .notCurrent:
          placeholder = true
          dropped += paths
        default: dropped += paths
        }
        continue
      }
      guard document.completed else {
        retry += paths
        continue
      }
      context.report(.merged(document))
      for copy in document.copies {
        switch copy.problem {
        case .none:
          if copy.removed {
            removed.append(copy.copy.path)
          } else {
            retry.append(copy.copy.path)
          }
        case .changedDuringRun: retry.append(copy.copy.path)
        case .notDownloaded:
          placeholder = true
          dropped.append(copy.copy.path)
        default: dropped.append(copy.copy.path)
        }
      }
    }
    if !arriving.isEmpty { context.report(.arriving(arriving)) }
    // Copies the scan no longer found went away by themselves.
    removed += paths.filter { !seen.contains($0) }
    if placeholder { feed(.placeholderSeen) }
    return .mergeFinished(removed: removed, retry: retry, dropped: dropped)
  }

  /// Runs a merge as `merge-conflicts` does, its backup made first and reported (not a
  /// scheduled one), SIGTERM asked between documents.
  private func runMerge(_ plan: MergeConflictsOperation.Plan) throws
    -> MergeConflictsOperation.Report
  {
    let context = self.context
    return try MergeConflictsOperation.execute(
      plan, backup: .make(context.backup, reason: WatchPaths.mergeBackupReason),
      provider: context.syncProvider, fileSystem: context.fileSystem,
      progress: { step in
        if case .backedUp(let path) = step {
          context.report(.backedUp(path: path, scheduled: false))
        }
      },
      isCancelled: context.isTerminating, random: context.random)
  }

  /// Whether a copy the merge found undecodable is still arriving (`WatchState.isArriving`,
  /// by its modification time now).
  private func isArriving(_ copy: ConflictMergeCopy) -> Bool {
    guard case .notAutomerge = copy.problem,
      let info = (try? context.fileSystem.info(copy.copy.path)) ?? nil
    else { return false }
    let modified =
      Double(info.modificationSeconds) + Double(info.modificationNanoseconds) / 1e9
    return state.isArriving(modified: modified, at: context.now())
  }

  private mutating func mergeVersions(_ paths: [AbsolutePath]) throws(ChangeNotifierError) {
    do {
      guard
        let outcome = try withLock({ runner -> WatchInput? in
          guard let listing = runner.scan() else { return nil }
          return try runner.mergeVersions(paths, listing)
        })
      else {
        feed(.versionsMerged(settled: [], retry: paths))
        return
      }
      feed(outcome ?? .versionsFailed(paths))
    } catch let error as ChangeNotifierError {
      throw error
    } catch {
      context.report(.failed(action: "merge conflict versions", error: error))
      feed(.versionsFailed(paths))
    }
  }

  /// Merges the conflict versions of the documents at `paths` that the scan still finds,
  /// through the workflow of `merge-conflicts` (`MergeConflictsOperation`, versions only): the
  /// versions' bytes and their documents in a verified backup first, then each document
  /// merged, written, made durable and read back, and only then its merged versions
  /// resolved. A version that cannot be read stays unresolved and is reported; a document
  /// that is not current is left (and fetched with `--fetch`).
  private mutating func mergeVersions(_ paths: [AbsolutePath], _ listing: FolderListing) throws
    -> WatchInput
  {
    let context = self.context
    let wanted = Set(paths)
    let documents = listing.documents.filter {
      wanted.contains($0.name.path(root: context.root))
    }
    let plan = try MergeConflictsOperation.plan(
      documents, listing: listing, inputs: .versions, provider: context.syncProvider,
      fileSystem: context.fileSystem)
    let report = try runMerge(plan).versions
    var retry: [AbsolutePath] = []
    var placeholder = false
    for document in report.documents {
      context.report(.mergedVersions(document))
      guard let refusal = document.refusal else { continue }
      if refusal == .changedDuringRun { retry.append(document.path) }
      if refusal == .notDownloaded || refusal.isNotCurrent { placeholder = true }
    }
    if placeholder { feed(.placeholderSeen) }
    let again = Set(retry)
    return .versionsMerged(settled: paths.filter { !again.contains($0) }, retry: retry)
  }

  private mutating func fetch() throws(ChangeNotifierError) {
    guard let fetch = context.fetch else {
      feed(.fetchFinished)
      return
    }
    do {
      let report = try withLock { runner -> FetchReport? in
        guard let listing = runner.scan(readingStaleStubs: true) else { return nil }
        return try fetch(listing)
      }
      if let report = report ?? nil,
        !report.fetched.isEmpty || !report.failed.isEmpty || !report.missing.isEmpty
      {
        context.report(.fetched(report))
      }
    } catch let error as ChangeNotifierError {
      throw error
    } catch {
      context.report(.failed(action: "fetch", error: error))
    }
    feed(.fetchFinished)
    // What was fetched may be copies to merge: look again, but a placeholder that is still
    // there waits for its next change (or SIGHUP), not for another fetch at once.
    ignorePlaceholdersOnce = true
    feed(.needsRescan)
  }

  private mutating func backup() {
    guard let listing = scan() else {
      feed(.backupFinished(written: false))
      return
    }
    do {
      let path = try context.backup.make(
        FolderFiles.exportFiles(listing, includeCopies: true), reason: WatchPaths.backupReason)
      context.report(.backedUp(path: path, scheduled: true))
      feed(.backupFinished(written: true))
    } catch {
      context.report(.failed(action: "backup", error: error))
      feed(.backupFinished(written: false))
    }
  }
}
