import Foundation
import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import TestSupport

/// A notifier that hands out scripted batches of events; each wait moves a simulated clock
/// on by its timeout (or one second), so that the runner is tested without sleeping. Unchecked
/// `Sendable`, as `FakeClock` is: a test drives it from one thread, and the system's `now`
/// (a `@Sendable` closure) reads its clock.
final class ScriptedNotifier: ChangeNotifier, @unchecked Sendable {
  var batches: [[ChangeEvent]]
  var clock: Double = 1000
  var waits: [Double?] = []
  var watchedTrees: [AbsolutePath] = []
  var appearanceWatches = 0
  /// The directories "the system refused to watch".
  var unwatched: [AbsolutePath] = []
  /// Called when the script is used up (ends the run).
  var exhausted: () -> Void = {}
  /// Run at the wait of that index, before it returns (a file appearing unseen).
  var atWait: [Int: () -> Void] = [:]

  init(_ batches: [[ChangeEvent]]) { self.batches = batches }

  func watchTree(root: AbsolutePath) throws(ChangeNotifierError) { watchedTrees.append(root) }
  func watchForAppearance(of root: AbsolutePath) throws(ChangeNotifierError) {
    appearanceWatches += 1
  }

  func wait(timeout: Double?) throws(ChangeNotifierError) -> [ChangeEvent] {
    waits.append(timeout)
    clock += timeout ?? 1
    atWait[waits.count - 1]?()
    guard !batches.isEmpty else {
      exhausted()
      return [.woken]
    }
    return batches.removeFirst()
  }
}

/// `WatchRunner` against a real folder, a scripted notifier and a simulated clock.
@Suite struct WatchRunnerTests {
  final class Run {
    let folder: ScratchFolder
    let notifier: ScriptedNotifier
    var reports: [WatchReport] = []
    var backups: [String] = []
    var prunes: [BackupKeepPolicy] = []
    var terminating = false
    var lockHeldUntil: Double = 0

    init(_ batches: [[ChangeEvent]]) throws {
      folder = try ScratchFolder()
      notifier = ScriptedNotifier(batches)
      notifier.exhausted = { [unowned self] in self.terminating = true }
    }

    func run(
      _ policy: WatchPolicy, once: Bool = false, fileSystem: any FileSystem = LiveFileSystem()
    ) throws {
      let fs = fileSystem
      let root = folder.path
      let context = WatchContext(
        system: SystemContext(fileSystem: fs, now: { [notifier] in notifier.clock }),
        root: AbsolutePath(root), notifier: notifier,
        tryLock: { [unowned self] in
          guard notifier.clock >= lockHeldUntil else { return nil }
          return try WriteLocks.acquire(
            [AbsolutePath(root)], timeout: 0, fileSystem: fs, sleep: { _ in })
        },
        backup: BackupTarget { [unowned self] files, reason in
          backups.append(reason)
          return AbsolutePath("/backups/\(backups.count)-\(reason)")
        },
        fetch: nil,
        prune: { [unowned self] keep in
          prunes.append(keep)
          return try WatchRetention.apply(
            keep, root: AbsolutePath(root), directory: "/backups", wait: 10, fileSystem: fs,
            sleep: { _ in },
            offset: { _ in 0 })
        },
        isTerminating: { [unowned self] in terminating }, takeHangups: { 0 },
        report: { [unowned self] in reports.append($0) })
      var runner = WatchRunner(policy: policy, once: once, lastBackup: nil, context: context)
      try runner.run()
    }

    var merged: [ConflictMergeDocument] {
      reports.compactMap { if case .merged(let d) = $0 { return d } else { return nil } }
    }
  }

  static let month = "records/2026/09.automerge"
  static let copy = "records/2026/09 2.automerge"

  func fill(_ folder: ScratchFolder) throws {
    try folder.write(Self.month, try ConflictFixtures.bytes("seed-01/device-0/" + Self.month))
  }

  @Test func aCopyThatArrivesIsMergedAfterTheQuietPeriodWithABackupFirst() throws {
    let run = try Run([])
    try fill(run.folder)
    let path = run.folder.location(Self.copy)
    run.notifier.batches = [[], [.changed(path)]]
    try run.folder.write(Self.copy, try ConflictFixtures.bytes("seed-01/device-1/" + Self.month))
    try run.run(WatchPolicy(quietFor: 5))
    #expect(run.notifier.watchedTrees == [run.folder.location()])
    #expect(run.merged.map(\.logicalName) == [Self.month])
    #expect(run.merged.first?.copies.first?.removed == true)
    #expect(run.backups == [WatchPaths.mergeBackupReason])
    #expect(!FileManager.default.fileExists(atPath: path.string))
    // The first scan found it already (its modification time is now, on the real clock: far
    // from the simulated one, so it is due at once); the event then changed nothing.
    let held = try SampleDocuments.hashes(
      Array(try Data(contentsOf: URL(fileURLWithPath: run.folder.absolute(Self.month)))))
    let copied = try SampleDocuments.hashes(
      try ConflictFixtures.bytes("seed-01/device-1/" + Self.month))
    #expect(copied.isSubset(of: held))
    if case .stopping = run.reports.last {} else { Issue.record("ends with stopping") }
  }

  @Test func theQuietPeriodIsWaitedOutWithoutPolling() throws {
    let run = try Run([])
    try fill(run.folder)
    let path = run.folder.location(Self.copy)
    try run.folder.write(Self.copy, try ConflictFixtures.bytes("seed-01/device-1/" + Self.month))
    run.notifier.batches = [[], []]
    // Modified "now" on the simulated clock: due five seconds later.
    let date = Date(timeIntervalSince1970: run.notifier.clock)
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path.string)
    try run.run(WatchPolicy(quietFor: 5))
    #expect(run.notifier.waits.first == 5, "one wait for the quiet period, not a poll")
    #expect(run.merged.count == 1)
    // After the merge nothing is due: the next wait has no timeout.
    #expect(run.notifier.waits.dropFirst().first == .some(nil))
  }

  @Test func lostEventsMakeAFullRescanThatFindsTheCopies() throws {
    let run = try Run([])
    try fill(run.folder)
    run.notifier.batches = [[], [.overflow, .overflow], []]
    let copy = try ConflictFixtures.bytes("seed-01/device-1/" + Self.month)
    run.notifier.atWait[1] = { [unowned run] in _ = try? run.folder.write(Self.copy, copy) }
    try run.run(WatchPolicy(quietFor: 0))
    #expect(run.merged.map(\.logicalName) == [Self.month])
    let rescans = run.reports.filter {
      if case .rescanning(.overflow) = $0 { true } else { false }
    }
    #expect(rescans.count == 1, "one line for a batch")
  }

  @Test func theDocumentRewrittenByTheAppIsNeverACopy() throws {
    let run = try Run([])
    try fill(run.folder)
    let path = run.folder.location(Self.month)
    run.notifier.batches = [[.changed(path)], [.changed(path)], [.removed(path), .changed(path)]]
    try run.run(WatchPolicy(quietFor: 1))
    #expect(run.merged.isEmpty)
    #expect(run.backups.isEmpty)
    #expect(run.notifier.waits.allSatisfy { $0 == nil }, "nothing ever due")
  }

  @Test func aHeldLockIsWaitedForWithALineAndThenTaken() throws {
    let run = try Run([])
    try fill(run.folder)
    try run.folder.write(Self.copy, try ConflictFixtures.bytes("seed-01/device-1/" + Self.month))
    run.lockHeldUntil = run.notifier.clock + 3
    run.notifier.batches = Array(repeating: [], count: 60)
    try run.run(WatchPolicy(quietFor: 0))
    let waiting = run.reports.filter { if case .waitingForLock = $0 { true } else { false } }
    #expect(waiting.count == 1, "one line, however long the wait")
    #expect(run.reports.contains { if case .lockTaken = $0 { true } else { false } })
    #expect(run.merged.count == 1)
    #expect(run.notifier.waits.prefix(30).allSatisfy { $0 == WatchRunner.lockRetryInterval })
  }

  @Test func theRetentionCallSiteIsReachedAfterEachScheduledBackup() throws {
    let run = try Run([[], []])
    try fill(run.folder)
    let keep = try #require(BackupKeepPolicy(last: 2, weekly: 4))
    try run.run(WatchPolicy(quietFor: 1, backupEvery: 1, keep: keep))
    #expect(run.backups.filter { $0 == WatchPaths.backupReason }.count >= 2)
    #expect(run.prunes.count == run.backups.filter { $0 == WatchPaths.backupReason }.count)
    #expect(run.prunes.allSatisfy { $0 == keep })
    #expect(run.reports.contains { if case .pruned = $0 { true } else { false } })
  }

  @Test func onceMergesWhatIsQuietAndLeavesWhatIsNot() throws {
    let run = try Run([])
    try fill(run.folder)
    try run.folder.write(Self.copy, try ConflictFixtures.bytes("seed-01/device-1/" + Self.month))
    let fresh = "records/2026/09 (Ada's conflicted copy 2026-09-06).automerge"
    try run.folder.write(fresh, try ConflictFixtures.bytes("seed-01/device-2/" + Self.month))
    let old = Date(timeIntervalSince1970: run.notifier.clock - 60)
    try FileManager.default.setAttributes(
      [.modificationDate: old], ofItemAtPath: run.folder.absolute(Self.copy))
    let now = Date(timeIntervalSince1970: run.notifier.clock)
    try FileManager.default.setAttributes(
      [.modificationDate: now], ofItemAtPath: run.folder.absolute(fresh))
    try run.run(WatchPolicy(quietFor: 10), once: true)
    #expect(run.notifier.watchedTrees.isEmpty)
    #expect(run.merged.first?.copies.map(\.copy.logicalName) == [Self.copy])
    #expect(FileManager.default.fileExists(atPath: run.folder.absolute(fresh)))
    #expect(
      run.reports.contains {
        if case .notQuietYet([run.folder.location(fresh)]) = $0 { true } else { false }
      })
  }

  @Test func aFolderThatIsGoneIsWaitedForAndWatchedAgain() throws {
    let run = try Run([])
    try fill(run.folder)
    let root = run.folder.path
    let away = root + ".away"
    try FileManager.default.moveItem(atPath: root, toPath: away)
    defer { try? FileManager.default.removeItem(atPath: away) }
    var calls = 0
    run.notifier.exhausted = { [unowned run] in
      calls += 1
      if calls == 1 {
        try? FileManager.default.moveItem(atPath: away, toPath: root)
      } else {
        run.terminating = true
      }
    }
    try run.run(WatchPolicy(quietFor: 1))
    #expect(run.notifier.appearanceWatches == 1)
    #expect(run.notifier.watchedTrees == [AbsolutePath(root)])
    let kinds = run.reports.compactMap { r -> String? in
      switch r {
      case .folderGone: return "gone"
      case .folderBack: return "back"
      default: return nil
      }
    }
    #expect(kinds == ["gone", "back"])
    #expect(run.notifier.waits.first == WatchRunner.folderCheckInterval)
  }

  /// The system refused to watch the month's directory (the inotify limit): the runner says
  /// so once, naming the setting, and a copy written there, which sends no event, is merged
  /// by the periodic rescan that the deadline brings (no polling loop, no sleep).
  @Test func aCopyInAnUnwatchedDirectoryIsMergedByPeriodicRescans() throws {
    let run = try Run([])
    try fill(run.folder)
    run.notifier.unwatched = [run.folder.location("records/2026")]
    run.notifier.batches = Array(repeating: [], count: 6)
    let copy = try ConflictFixtures.bytes("seed-01/device-1/" + Self.month)
    run.notifier.atWait[0] = { [unowned run] in
      _ = try? run.folder.write(Self.copy, copy)
      let old = Date(timeIntervalSince1970: run.notifier.clock - 60)
      try? FileManager.default.setAttributes(
        [.modificationDate: old], ofItemAtPath: run.folder.absolute(Self.copy))
    }
    try run.run(WatchPolicy(quietFor: 5, unwatchedRescanEvery: 30))
    #expect(run.notifier.waits.first == 30, "the first wait ends at the rescan's deadline")
    #expect(run.merged.map(\.logicalName) == [Self.month])
    #expect(!FileManager.default.fileExists(atPath: run.folder.absolute(Self.copy)))
    let warnings = run.reports.compactMap { report -> Int? in
      if case .notWatched(let count, let setting, let every) = report {
        #expect(setting == ChangeNotifierLimit.setting)
        #expect(every == 30)
        return count
      }
      return nil
    }
    #expect(warnings == [1], "said once")
  }

  /// A copy that does not decode yet and was written recently is still arriving: no error,
  /// an `.arriving` report (printed with -v only), tried again; once it has stayed unchanged
  /// for `arrivingFor`, it is reported as not a valid document, once.
  @Test func aCopyStillArrivingIsWaitedForThenCalledDamaged() throws {
    let run = try Run([])
    try fill(run.folder)
    let start = Date().timeIntervalSince1970.rounded(.down)
    run.notifier.clock = start
    let bytes = try ConflictFixtures.bytes("seed-01/device-1/" + Self.month)
    try run.folder.write(Self.copy, Array(bytes.prefix(bytes.count / 2)))
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: start)],
      ofItemAtPath: run.folder.absolute(Self.copy))
    run.notifier.batches = Array(repeating: [], count: 30)
    let policy = WatchPolicy(quietFor: 1)
    try run.run(policy)
    let arriving = run.reports.filter { if case .arriving = $0 { true } else { false } }
    #expect(arriving.count >= 4, "tried again every quiet period while arriving")
    #expect(run.merged.count == 1, "called damaged once")
    if case .notAutomerge = run.merged.first?.copies.first?.problem {
    } else {
      Issue.record("reported as not a valid document: \(String(describing: run.merged.first))")
    }
    #expect(FileManager.default.fileExists(atPath: run.folder.absolute(Self.copy)), "kept")
    // Nothing merged or reported before it had been quiet for `arrivingFor`.
    let firstMerged = try #require(
      run.reports.firstIndex { if case .merged = $0 { true } else { false } })
    #expect(
      run.reports[..<firstMerged].allSatisfy {
        if case .merged = $0 { false } else { true }
      })
    #expect(run.notifier.clock >= start + policy.arrivingFor)
  }
}
