import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import TestSupport

/// `mn watch` in a simulated iCloud Drive container (mn.md §12, §15): conflict versions are
/// merged through the workflow of `merge-conflicts` (backup first, resolved only once the
/// merged file is durable and verified), learnt of on full scans and after a document's
/// change, never by polling; only current inputs are merged.
@Suite struct SyncWatchTests {
  struct BackupFailed: Error {}

  final class Run {
    let sim: SimulatedFolder
    let notifier: ScriptedNotifier
    var reports: [WatchReport] = []
    var backups: [[ExportFile]] = []
    var logAtBackup: [String] = []
    var failBackup = false
    var terminating = false

    init(_ sim: SimulatedFolder, _ batches: [[ChangeEvent]] = []) {
      self.sim = sim
      notifier = ScriptedNotifier(batches)
      notifier.exhausted = { [unowned self] in self.terminating = true }
    }

    func run(_ policy: WatchPolicy = WatchPolicy(quietFor: 0), once: Bool = false) throws {
      let root = sim.root
      let fs = sim.fileSystem
      let context = WatchContext(
        system: SystemContext(
          fileSystem: fs, now: { [notifier] in notifier.clock }, syncProvider: sim.provider),
        root: AbsolutePath(root), notifier: notifier,
        tryLock: {
          try WriteLocks.acquire([AbsolutePath(root)], timeout: 0, fileSystem: fs, sleep: { _ in })
        },
        backup: BackupTarget { [unowned self] files, reason in
          if failBackup { throw BackupFailed() }
          backups.append(files)
          logAtBackup = sim.provider.snapshot.log
          return AbsolutePath("/backups/\(backups.count)-\(reason)")
        },
        fetch: nil, prune: { _ in [] },
        isTerminating: { [unowned self] in terminating }, takeHangups: { 0 },
        report: { [unowned self] in reports.append($0) })
      var runner = WatchRunner(policy: policy, once: once, lastBackup: nil, context: context)
      try runner.run()
    }

    var versionReports: [VersionMergeDocument] {
      reports.compactMap { if case .mergedVersions(let d) = $0 { return d } else { return nil } }
    }

    var merged: [ConflictMergeDocument] {
      reports.compactMap { if case .merged(let d) = $0 { return d } else { return nil } }
    }

    var failures: [String] {
      reports.compactMap {
        if case .failed(let action, _) = $0 { return action } else { return nil }
      }
    }
  }

  /// Every change of device 0 and of each of `devices`.
  func union(_ devices: [Int]) throws -> Set<ChangeHash> {
    try ([0] + devices).reduce(into: Set()) {
      $0.formUnion(try SimulatedFolder.hashes(try SimulatedFolder.device($1)))
    }
  }

  @Test func aVersionFoundByAPassIsBackedUpFirstMergedAndResolvedOnceDurable() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let version = try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    let run = Run(sim)
    try run.run(once: true)

    // The backup holds the document and the version's bytes, before any write or resolve.
    #expect(run.backups.count == 1)
    #expect(
      Set(run.backups.first?.map(\.absolutePath.string) ?? []) == [month, version.path.string])
    #expect(!run.logAtBackup.contains { $0.hasPrefix("exchange") || $0.hasPrefix("resolve") })
    let report = try #require(run.versionReports.first)
    #expect(report.written && report.versions.allSatisfy(\.resolved))
    #expect(sim.provider.unresolved(month).isEmpty)
    #expect(sim.provider.snapshot.violations.isEmpty)
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == union([1]))
    // Written inside a coordinated replace, synced, then resolved.
    let log = sim.provider.snapshot.log
    #expect(
      log.contains {
        $0.hasPrefix("replaceItem \(month) ") && $0.hasSuffix("[in replacing \(month)]")
      })
    let exchanged = try #require(log.firstIndex { $0.hasPrefix("replaceItem \(month) ") })
    let synced = try #require(log.lastIndex { $0.hasPrefix("syncDirectory ") })
    let resolved = try #require(log.firstIndex { $0.hasPrefix("resolve") })
    #expect(exchanged < synced && synced < resolved)
  }

  @Test func aVersionAfterADocumentsChangeIsMergedWithoutPollingOrARescan() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let run = Run(sim, [[], [.changed(AbsolutePath(month))], []])
    // The version appears unseen (a version has no file); the document's change tells.
    run.notifier.atWait[1] = {
      _ = try? sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    }
    try run.run(WatchPolicy(quietFor: 5))

    #expect(run.versionReports.count == 1)
    #expect(sim.provider.unresolved(month).isEmpty)
    #expect(sim.provider.snapshot.violations.isEmpty)
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == union([1]))
    #expect(!run.reports.contains { if case .rescanning = $0 { true } else { false } })
    // Nothing due at first (no timeout: no polling), then the quiet period, then nothing.
    #expect(run.notifier.waits.first == .some(nil))
    #expect(run.notifier.waits.dropFirst(2).first == 5)
    #expect(run.notifier.waits.last == .some(nil))
  }

  @Test func anUnreadableVersionStaysUnresolvedIsReportedAndIsNotTriedInALoop() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    let unreadable = try sim.provider.addVersion(
      of: month, bytes: try SimulatedFolder.device(2), readable: false)
    let run = Run(sim, [[], [], []])
    try run.run()

    #expect(run.versionReports.count == 1, "settled: not tried again until something changes")
    let report = try #require(run.versionReports.first)
    #expect(report.versions.map(\.resolved) == [true, false])
    #expect(report.versions[1].problem?.description.contains("kept unresolved") == true)
    #expect(!report.removedOthers)
    #expect(sim.provider.unresolved(month).map(\.value) == [unreadable])
    #expect(!(run.backups.first?.contains { $0.absolutePath == unreadable.path } ?? true))
    #expect(sim.provider.snapshot.violations.isEmpty)
  }

  @Test func aFailedBackupResolvesNothingAndIsTriedAgainLater() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    let before = try sim.hashesOnDisk(SimulatedFolder.month)
    let run = Run(sim)
    run.failBackup = true
    try run.run(WatchPolicy(quietFor: 0, retryAfter: 60))

    #expect(run.failures == ["merge conflict versions"])
    #expect(sim.provider.unresolved(month).count == 1)
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == before)
    #expect(
      !sim.provider.snapshot.log.contains { $0.hasPrefix("exchange") || $0.hasPrefix("resolve") })
    // The next attempt waits for the retry period (a timeout, not a poll).
    #expect(run.notifier.waits.first == 60)
  }

  @Test func aStaleDocumentsVersionsWaitUntilItIsCurrent() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    sim.provider.makeStale(month, newer: try SimulatedFolder.device(2))
    let run = Run(sim)
    try run.run(once: true)

    let report = try #require(run.versionReports.first)
    #expect(report.refusal == .notCurrent(path: AbsolutePath(month), .stale))
    #expect(sim.provider.unresolved(month).count == 1)
    #expect(!sim.provider.snapshot.log.contains { $0.hasPrefix("read \(month)") })
    #expect(run.backups.isEmpty)
  }

  @Test func aStaleCopyIsNeverMergedByTheWatcher() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    let copy = try sim.write(SimulatedFolder.copy, device: 1)
    sim.provider.makeStale(copy, newer: try SimulatedFolder.device(2))
    let before = try sim.hashesOnDisk(SimulatedFolder.month)
    let run = Run(sim)
    try run.run(once: true)

    #expect(run.merged.first?.refusal == .notCurrent(path: AbsolutePath(copy), .stale))
    #expect(FileManager.default.fileExists(atPath: copy))
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == before)
    #expect(!sim.provider.snapshot.log.contains { $0.hasPrefix("read \(copy)") })
  }

  @Test func aPlainFolderNeverAsksForVersions() throws {
    let sim = try SimulatedFolder(kind: .plain)
    let month = try sim.write(SimulatedFolder.month, device: 0)
    try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    let run = Run(sim, [[.changed(AbsolutePath(month))]])
    try run.run()
    #expect(run.versionReports.isEmpty)
    #expect(sim.provider.unresolved(month).count == 1)
  }

  @Test func versionsAreDueOnceTheirDocumentIsQuiet() {
    var state = WatchState(policy: WatchPolicy(quietFor: 10), lastBackup: nil, now: 100)
    let a: AbsolutePath = "/d/records/2026/09.automerge"
    let b: AbsolutePath = "/d/records/2026/10.automerge"
    let found = state.step(.versionsFound([WatchCopy(path: a, modified: 95)], all: true), at: 100)
    #expect(found == [])
    #expect(state.deadline() == 105)
    // A change of the document pushes its merge back; another document joins.
    _ = state.step(.versionsFound([WatchCopy(path: a, modified: 103)], all: false), at: 103)
    _ = state.step(.versionsFound([WatchCopy(path: b, modified: 104)], all: false), at: 104)
    #expect(state.step(.tick, at: 113) == [.mergeVersions([a])])
    #expect(state.step(.tick, at: 114) == [.mergeVersions([a, b])])
    #expect(state.step(.versionsMerged(settled: [a], retry: [b]), at: 114) == [])
    #expect(state.versionsDue == [b: 124])
    #expect(state.step(.versionsFailed([b]), at: 124) == [])
    #expect(state.versionsDue == [b: 184])
    // A full scan that finds none forgets them; a folder that goes away forgets them too.
    _ = state.step(.versionsFound([], all: true), at: 125)
    #expect(state.versionsDue.isEmpty)
    _ = state.step(.versionsFound([WatchCopy(path: a, modified: 125)], all: false), at: 125)
    _ = state.step(.folderGone, at: 126)
    #expect(state.versionsDue.isEmpty && state.deadline() == nil)
  }
}
