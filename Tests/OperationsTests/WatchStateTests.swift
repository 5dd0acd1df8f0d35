import Testing

@testable import Operations
@testable import Platform
@testable import TestSupport

/// The decisions of `mn watch` (mn.md §12), events and time in, actions out.
@Suite struct WatchStateTests {
  let copy: AbsolutePath = "/d/records/2026/09 2.automerge"
  let other: AbsolutePath = "/d/records/2026/10 (Ada's conflicted copy).automerge"

  @Test func aCopyIsMergedOnceQuietForTheQuietPeriod() {
    var s = WatchState(policy: WatchPolicy(quietFor: 10), lastBackup: nil, now: 0)
    #expect(s.step(.copyChanged(copy), at: 100) == [])
    #expect(s.deadline() == 110)
    #expect(s.step(.tick, at: 109.9) == [])
    #expect(s.step(.tick, at: 110) == [.merge([copy])])
  }

  @Test func everyWriteOfASlowCopyPutsItsMergeOff() {
    var s = WatchState(policy: WatchPolicy(quietFor: 1), lastBackup: nil, now: 0)
    for t in stride(from: 0.0, through: 5, by: 0.5) {
      #expect(s.step(.copyChanged(copy), at: t) == [], "written at \(t)")
      #expect(s.step(.tick, at: t + 0.9) == [])
    }
    #expect(s.step(.tick, at: 6) == [.merge([copy])])
  }

  @Test func aMergeNamesOnlyTheQuietCopiesSorted() {
    var s = WatchState(policy: WatchPolicy(quietFor: 2), lastBackup: nil, now: 0)
    _ = s.step(.copyChanged(other), at: 0)
    _ = s.step(.copyChanged(copy), at: 0.5)
    _ = s.step(.copyChanged("/d/tags 2.automerge"), at: 1.5)
    #expect(s.step(.tick, at: 2.6) == [.merge([copy, other])])
  }

  @Test func aRemovedCopyIsForgotten() {
    var s = WatchState(policy: WatchPolicy(quietFor: 1), lastBackup: nil, now: 0)
    _ = s.step(.copyChanged(copy), at: 0)
    _ = s.step(.copyRemoved(copy), at: 0.5)
    #expect(s.step(.tick, at: 5) == [])
    #expect(s.deadline() == nil)
  }

  @Test func aScanTakesModificationTimesAndForgetsWhatIsGone() {
    var s = WatchState(policy: WatchPolicy(quietFor: 10), lastBackup: nil, now: 0)
    _ = s.step(.copyChanged(other), at: 95)
    // An old copy renamed into place whole is due at once; a fresh one waits.
    let actions = s.step(
      .scanned([
        WatchCopy(path: copy, modified: 50), WatchCopy(path: "/d/tags 2.automerge", modified: 99),
      ]),
      at: 100)
    #expect(actions == [.merge([copy])])
    #expect(s.due["/d/tags 2.automerge"] == 109)
    #expect(s.due[other] == nil)
    // A modification time in the future counts as now.
    _ = s.step(.scanned([WatchCopy(path: other, modified: 10_000)]), at: 100)
    #expect(s.due[other] == 110)
  }

  @Test func mergeOutcomesRetryDropOrForget() {
    var s = WatchState(policy: WatchPolicy(quietFor: 1, retryAfter: 60), lastBackup: nil, now: 0)
    for p: AbsolutePath in ["/a", "/b", "/c", "/e"] { _ = s.step(.copyChanged(p), at: 0) }
    #expect(s.step(.tick, at: 1) == [.merge(["/a", "/b", "/c", "/e"])])
    _ = s.step(.mergeFinished(removed: ["/a"], retry: ["/b"], dropped: ["/c"]), at: 1)
    _ = s.step(.mergeFailed(["/e"]), at: 1)
    #expect(s.due == ["/b": 2, "/e": 61])
    // A dropped copy (unreadable) is tried again when it changes.
    _ = s.step(.copyChanged("/c"), at: 3)
    #expect(s.due["/c"] == 4)
  }

  @Test func placeholdersAreFetchedOnlyWithFetch() {
    var without = WatchState(policy: WatchPolicy(), lastBackup: nil, now: 0)
    #expect(without.step(.placeholderSeen, at: 1) == [])
    var with = WatchState(policy: WatchPolicy(fetch: true), lastBackup: nil, now: 0)
    #expect(with.step(.placeholderSeen, at: 1) == [.fetch])
    #expect(with.step(.fetchFinished, at: 2) == [])
  }

  @Test func backupsFollowThePeriodAndTheLastBackup() {
    let day = 86_400.0
    var first = WatchState(policy: WatchPolicy(backupEvery: day), lastBackup: nil, now: 1000)
    #expect(first.step(.tick, at: 1000) == [.backup])
    #expect(first.step(.backupFinished(written: true), at: 1001) == [])
    #expect(first.deadline() == 1001 + day)
    #expect(first.step(.tick, at: 1000 + day) == [])
    #expect(first.step(.tick, at: 1001 + day) == [.backup])
    // A restart an hour after the last backup waits for the rest of the day.
    let restarted = WatchState(policy: WatchPolicy(backupEvery: day), lastBackup: 500, now: 4100)
    #expect(restarted.deadline() == 500 + day)
    // A last backup in the future (a clock set back) is not waited for past one period.
    let skewed = WatchState(policy: WatchPolicy(backupEvery: day), lastBackup: 9e9, now: 100)
    #expect(skewed.deadline() == 100 + day)
    #expect(WatchState(policy: WatchPolicy(), lastBackup: nil, now: 0).deadline() == nil)
  }

  @Test func theRetentionIsAppliedAfterEachWrittenScheduledBackup() throws {
    let keep = try #require(BackupKeepPolicy(last: 3, daily: 7))
    var s = WatchState(policy: WatchPolicy(backupEvery: 60, keep: keep), lastBackup: nil, now: 0)
    #expect(s.step(.tick, at: 0) == [.backup])
    #expect(s.step(.backupFinished(written: true), at: 1) == [.prune(keep)])
    #expect(s.step(.tick, at: 61) == [.backup])
    #expect(s.step(.backupFinished(written: false), at: 62) == [], "nothing pruned after a failure")
    #expect(BackupKeepPolicy() == nil)
  }

  @Test func aFolderThatIsGoneIsWaitedForAndNothingIsDueMeanwhile() {
    var s = WatchState(policy: WatchPolicy(quietFor: 1, backupEvery: 10), lastBackup: 0, now: 0)
    _ = s.step(.copyChanged(copy), at: 0)
    #expect(s.step(.folderGone, at: 0.5) == [.waitForFolder])
    #expect(s.step(.folderGone, at: 0.6) == [])
    #expect(s.step(.copyChanged(copy), at: 0.7) == [])
    #expect(s.step(.tick, at: 100) == [])
    #expect(s.deadline() == nil)
    #expect(s.step(.folderBack, at: 101) == [.watchAgain, .rescan])
    #expect(s.step(.tick, at: 101) == [.backup])
  }

  @Test func terminationStopsEverything() {
    var s = WatchState(policy: WatchPolicy(quietFor: 1), lastBackup: nil, now: 0)
    _ = s.step(.copyChanged(copy), at: 0)
    #expect(s.step(.terminate, at: 0.5) == [.stop])
    #expect(s.step(.tick, at: 5) == [])
    #expect(s.step(.hangup, at: 5) == [])
    #expect(s.deadline() == nil)
  }

  /// Directories the system refused to watch are covered by a rescan every
  /// `unwatchedRescanEvery` seconds, as a deadline (no polling loop), until all are watched.
  @Test func unwatchedDirectoriesAreRescannedPeriodically() {
    var s = WatchState(
      policy: WatchPolicy(quietFor: 10, unwatchedRescanEvery: 30), lastBackup: nil, now: 0)
    #expect(s.deadline() == nil)
    #expect(s.step(.coverage(unwatched: 3), at: 100) == [])
    #expect(s.deadline() == 130)
    #expect(s.step(.tick, at: 129.9) == [])
    #expect(s.step(.tick, at: 130) == [.rescan])
    #expect(s.deadline() == 160)
    // Any other full scan puts the next one off.
    #expect(s.step(.hangup, at: 150) == [.rescan])
    #expect(s.deadline() == 180)
    // A copy found meanwhile keeps its own, earlier, deadline.
    _ = s.step(.copyChanged(copy), at: 160)
    #expect(s.deadline() == 170)
    _ = s.step(.copyRemoved(copy), at: 161)
    #expect(s.step(.coverage(unwatched: 0), at: 162) == [])
    #expect(s.deadline() == nil)
    #expect(s.step(.tick, at: 500) == [])
    // The folder gone: nothing to rescan until it is back and watched again.
    _ = s.step(.coverage(unwatched: 1), at: 600)
    _ = s.step(.folderGone, at: 601)
    #expect(s.step(.tick, at: 700) == [])
  }

  /// A copy that does not decode is still arriving until it has been unchanged for
  /// `arrivingQuietPeriods` quiet periods; only then is it damaged (mn.md §12).
  @Test func anUndecodableCopyIsArrivingUntilQuietForLong() {
    let s = WatchState(policy: WatchPolicy(quietFor: 10), lastBackup: nil, now: 0)
    #expect(WatchPolicy(quietFor: 10).arrivingFor == 60)
    #expect(s.isArriving(modified: 1000, at: 1000))
    #expect(s.isArriving(modified: 1000, at: 1059.9))
    #expect(!s.isArriving(modified: 1000, at: 1060))
    // With --quiet-for 0 nothing is waited for.
    let eager = WatchState(policy: WatchPolicy(quietFor: 0), lastBackup: nil, now: 0)
    #expect(!eager.isArriving(modified: 1000, at: 1000))
  }

  @Test func hangupAndLostEventsRescan() {
    var s = WatchState(policy: WatchPolicy(), lastBackup: nil, now: 0)
    #expect(s.step(.hangup, at: 1) == [.rescan])
    #expect(s.step(.needsRescan, at: 1) == [.rescan])
  }

  @Test(arguments: [
    ("90", 90.0), ("30s", 30), ("30m", 1800), ("12h", 43_200), ("1d", 86_400), ("1w", 604_800),
    ("1h30m", 5400), ("0.5h", 1800),
  ])
  func durationsParse(_ text: String, _ seconds: Double) {
    #expect(WatchPolicy.parseDuration(text) == seconds)
  }

  @Test(arguments: ["", "0", "0d", "d", "1x", "1d2", "-1h", "1 d", "inf", "nan"])
  func badDurationsDoNot(_ text: String) {
    #expect(WatchPolicy.parseDuration(text) == nil)
  }
}
