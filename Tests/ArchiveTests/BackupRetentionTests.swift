import Archive
import Platform
import Testing

@testable import TestSupport

/// `BackupRetention.apply` against tables of backup times and the survivors each policy
/// keeps, with the reasons.
///
/// The reference is restic's documented behaviour of `forget --keep-*`: the example of the
/// restic manual (one backup every Sunday for twelve weeks; `--keep-daily 4` keeps the last
/// four), its "one backup a day, --keep-daily 7 --keep-weekly 5 --keep-monthly ..." example,
/// and an irregular set crossing a year, an ISO week and month ends. Every expectation whose
/// rules run out before the oldest backup was checked against restic 0.14's own `forget
/// --dry-run --json --group-by ''` on snapshots made with those `--time`s (TZ=UTC); the
/// `oldest ...` rows follow restic's later rule (0.16; a rule with periods left at the
/// oldest backup keeps it too, named `oldest` since 0.17), which 0.14 predates.
@Suite struct BackupRetentionTests {
  /// `"2026-03-03 09:00:00"` as seconds since the epoch (UTC).
  static func seconds(_ text: String) -> Int64 {
    let digits = text.filter(\.isNumber)
    let name = "minuta-backup-\(digits.prefix(8))-\(digits.dropFirst(8))-x.tar.gz"
    return BackupCatalog.Name(name)?.time ?? -1
  }

  static let sundays = [
    "2019-09-01 11:00:00", "2019-09-08 11:00:00", "2019-09-15 11:00:00", "2019-09-22 11:00:00",
    "2019-09-29 11:00:00", "2019-10-06 11:00:00", "2019-10-13 11:00:00", "2019-10-20 11:00:00",
    "2019-10-27 11:00:00", "2019-11-03 11:00:00", "2019-11-10 11:00:00", "2019-11-17 11:00:00",
  ]

  static let irregular = [
    "2025-12-01 09:00:00", "2025-12-15 18:30:00", "2025-12-28 23:59:59", "2025-12-29 00:00:00",
    "2025-12-31 12:00:00", "2026-01-01 08:00:00", "2026-01-01 20:00:00", "2026-01-04 10:00:00",
    "2026-01-05 07:00:00", "2026-01-20 12:00:00", "2026-01-31 23:00:00", "2026-02-01 01:00:00",
    "2026-02-10 10:00:00", "2026-02-10 10:30:00", "2026-02-10 11:00:00", "2026-02-28 12:00:00",
    "2026-03-01 00:30:00", "2026-03-02 09:00:00", "2026-03-02 21:00:00", "2026-03-03 09:00:00",
  ]

  /// One backup a day at 11:00 from 2026-01-01 to 2026-04-10 (100 days).
  static let daily: [String] = (0..<100).map { day in
    let time = seconds("2026-01-01 11:00:00") + Int64(day) * 86_400
    let iso = UTCDateTime(secondsSinceEpoch: time).iso8601
    return iso.prefix(10) + " " + iso.dropFirst(11).prefix(8)
  }

  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var times: [String]
    var policy: BackupRetention.Policy
    /// Survivors, newest first: `"time reasons"`.
    var kept: [String]
    var description: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "manual: twelve Sundays, keep-daily 4", times: sundays,
      policy: .init(daily: 4),
      kept: [
        "2019-11-17 11:00:00 daily", "2019-11-10 11:00:00 daily", "2019-11-03 11:00:00 daily",
        "2019-10-27 11:00:00 daily",
      ]),
    Case(
      name: "Sundays, keep-last 3", times: sundays, policy: .init(last: 3),
      kept: [
        "2019-11-17 11:00:00 last", "2019-11-10 11:00:00 last", "2019-11-03 11:00:00 last",
      ]),
    Case(
      name: "Sundays, keep-weekly 2", times: sundays, policy: .init(weekly: 2),
      kept: ["2019-11-17 11:00:00 weekly", "2019-11-10 11:00:00 weekly"]),
    Case(
      name: "Sundays, keep-monthly 2: the last Sunday of each month", times: sundays,
      policy: .init(monthly: 2),
      kept: ["2019-11-17 11:00:00 monthly", "2019-10-27 11:00:00 monthly"]),
    Case(
      name: "manual: one a day, keep-daily 7 keep-weekly 5 keep-monthly 3", times: daily,
      policy: .init(daily: 7, weekly: 5, monthly: 3),
      kept: [
        "2026-04-10 11:00:00 daily, weekly, monthly", "2026-04-09 11:00:00 daily",
        "2026-04-08 11:00:00 daily", "2026-04-07 11:00:00 daily", "2026-04-06 11:00:00 daily",
        "2026-04-05 11:00:00 daily, weekly", "2026-04-04 11:00:00 daily",
        "2026-03-31 11:00:00 monthly", "2026-03-29 11:00:00 weekly",
        "2026-03-22 11:00:00 weekly", "2026-03-15 11:00:00 weekly",
        "2026-02-28 11:00:00 monthly",
      ]),
    Case(
      name: "one a day, keep-monthly 12: four months, then the oldest", times: daily,
      policy: .init(monthly: 12),
      kept: [
        "2026-04-10 11:00:00 monthly", "2026-03-31 11:00:00 monthly",
        "2026-02-28 11:00:00 monthly", "2026-01-31 11:00:00 monthly",
        "2026-01-01 11:00:00 oldest monthly",
      ]),
    Case(
      name: "irregular, keep-last 5", times: irregular, policy: .init(last: 5),
      kept: [
        "2026-03-03 09:00:00 last", "2026-03-02 21:00:00 last", "2026-03-02 09:00:00 last",
        "2026-03-01 00:30:00 last", "2026-02-28 12:00:00 last",
      ]),
    Case(
      name: "irregular, keep-daily 5: the newest of each day", times: irregular,
      policy: .init(daily: 5),
      kept: [
        "2026-03-03 09:00:00 daily", "2026-03-02 21:00:00 daily", "2026-03-01 00:30:00 daily",
        "2026-02-28 12:00:00 daily", "2026-02-10 11:00:00 daily",
      ]),
    Case(
      name: "irregular, keep-weekly 4: weeks start on Monday", times: irregular,
      policy: .init(weekly: 4),
      kept: [
        "2026-03-03 09:00:00 weekly", "2026-03-01 00:30:00 weekly",
        "2026-02-10 11:00:00 weekly", "2026-02-01 01:00:00 weekly",
      ]),
    Case(
      name: "irregular, keep-weekly 10: Sunday 23:59:59 and Monday 00:00 are two weeks",
      times: irregular, policy: .init(weekly: 10),
      kept: [
        "2026-03-03 09:00:00 weekly", "2026-03-01 00:30:00 weekly",
        "2026-02-10 11:00:00 weekly", "2026-02-01 01:00:00 weekly",
        "2026-01-20 12:00:00 weekly", "2026-01-05 07:00:00 weekly",
        "2026-01-04 10:00:00 weekly", "2025-12-28 23:59:59 weekly",
        "2025-12-15 18:30:00 weekly", "2025-12-01 09:00:00 weekly",
      ]),
    Case(
      name: "irregular, keep-monthly 3", times: irregular, policy: .init(monthly: 3),
      kept: [
        "2026-03-03 09:00:00 monthly", "2026-02-28 12:00:00 monthly",
        "2026-01-31 23:00:00 monthly",
      ]),
    Case(
      name: "irregular, keep-last 2 keep-daily 3: the rules are ORed", times: irregular,
      policy: .init(last: 2, daily: 3),
      kept: [
        "2026-03-03 09:00:00 last, daily", "2026-03-02 21:00:00 last, daily",
        "2026-03-01 00:30:00 daily",
      ]),
    Case(
      name: "irregular, keep-daily 3 keep-weekly 3 keep-monthly 3", times: irregular,
      policy: .init(daily: 3, weekly: 3, monthly: 3),
      kept: [
        "2026-03-03 09:00:00 daily, weekly, monthly", "2026-03-02 21:00:00 daily",
        "2026-03-01 00:30:00 daily, weekly", "2026-02-28 12:00:00 monthly",
        "2026-02-10 11:00:00 weekly", "2026-01-31 23:00:00 monthly",
      ]),
    Case(
      name: "irregular, one of each rule: only the newest", times: irregular,
      policy: .init(last: 1, daily: 1, weekly: 1, monthly: 1),
      kept: ["2026-03-03 09:00:00 last, daily, weekly, monthly"]),
    Case(
      name: "irregular, keep-monthly 10: four months, then the oldest", times: irregular,
      policy: .init(monthly: 10),
      kept: [
        "2026-03-03 09:00:00 monthly", "2026-02-28 12:00:00 monthly",
        "2026-01-31 23:00:00 monthly", "2025-12-31 12:00:00 monthly",
        "2025-12-01 09:00:00 oldest monthly",
      ]),
    Case(
      name: "irregular, keep-daily 20: more days asked than there are", times: irregular,
      policy: .init(daily: 20),
      kept: [
        "2026-03-03 09:00:00 daily", "2026-03-02 21:00:00 daily", "2026-03-01 00:30:00 daily",
        "2026-02-28 12:00:00 daily", "2026-02-10 11:00:00 daily", "2026-02-01 01:00:00 daily",
        "2026-01-31 23:00:00 daily", "2026-01-20 12:00:00 daily", "2026-01-05 07:00:00 daily",
        "2026-01-04 10:00:00 daily", "2026-01-01 20:00:00 daily", "2025-12-31 12:00:00 daily",
        "2025-12-29 00:00:00 daily", "2025-12-28 23:59:59 daily", "2025-12-15 18:30:00 daily",
        "2025-12-01 09:00:00 daily",
      ]),
    Case(
      name: "two the same day, keep-daily 2: the oldest is kept too",
      times: ["2026-05-01 08:00:00", "2026-05-01 09:00:00"], policy: .init(daily: 2),
      kept: ["2026-05-01 09:00:00 daily", "2026-05-01 08:00:00 oldest daily"]),
  ]

  @Test(arguments: cases) func survivors(_ c: Case) {
    let decisions = BackupRetention.apply(c.policy, to: c.times, time: Self.seconds)
    #expect(decisions.count == c.times.count)
    let kept = decisions.filter(\.keep).map { decision in
      decision.item + " " + decision.reasons.map(\.description).joined(separator: ", ")
    }
    #expect(kept == c.kept)
    // Everything not kept is removed, and nothing is both.
    let removed = Set(decisions.filter { !$0.keep }.map(\.item))
    #expect(removed.count + kept.count == c.times.count)
    #expect(removed.isDisjoint(with: c.kept.map { String($0.prefix(19)) }))
  }

  @Test func theNewestIsAlwaysKeptAndDecisionsAreNewestFirst() {
    let shuffled = [Self.irregular[5], Self.irregular[19], Self.irregular[0], Self.irregular[12]]
    for policy in [
      BackupRetention.Policy(last: 1), .init(daily: 1), .init(weekly: 1), .init(monthly: 1),
    ] {
      let decisions = BackupRetention.apply(policy, to: shuffled, time: Self.seconds)
      #expect(decisions.map(\.item) == shuffled.sorted(by: >))
      #expect(decisions.first?.keep == true)
      #expect(decisions.filter(\.keep).count == 1)
    }
  }

  @Test func anEmptyPolicyRemovesNothing() {
    let decisions = BackupRetention.apply(.init(), to: Self.sundays, time: Self.seconds)
    #expect(decisions.allSatisfy { $0.reasons == [.noPolicy] })
    #expect(BackupRetention.apply(.init(daily: 3), to: [String](), time: Self.seconds).isEmpty)
  }

  @Test func unlimitedKeepsOnePerPeriodForever() {
    let decisions = BackupRetention.apply(
      .init(weekly: BackupRetention.Policy.unlimited), to: Self.daily, time: Self.seconds)
    // 2026-01-01 is a Thursday: its week and the 14 full weeks after, the last one partial.
    #expect(decisions.filter { $0.reasons == [.rule(.weekly)] }.count == 15)
    #expect(decisions.last?.reasons == [.oldest(.weekly)])
  }

  @Test func equalTimesCountTheLaterItemAsNewer() {
    let items = [("a", Int64(100)), ("b", Int64(100)), ("c", Int64(50))]
    let decisions = BackupRetention.apply(.init(last: 1), to: items, time: \.1)
    #expect(decisions.map(\.item.0) == ["b", "a", "c"])
    #expect(decisions.map(\.keep) == [true, false, false])
  }

  @Test func localDaysFollowTheOffset() {
    // 23:30 UTC and 00:30 UTC the next day: two days at UTC, one at UTC+2.
    let times = ["2026-05-01 23:30:00", "2026-05-02 00:30:00"]
    let utc = BackupRetention.apply(.init(daily: 5), to: times, time: Self.seconds)
    #expect(utc.filter(\.keep).count == 2)
    #expect(utc.map { $0.reasons } == [[.rule(.daily)], [.rule(.daily)]])
    let east = BackupRetention.apply(
      .init(daily: 1), to: times, time: Self.seconds, offset: { _ in 7200 })
    #expect(east.map(\.keep) == [true, false])
    let eastTwo = BackupRetention.apply(
      .init(daily: 2), to: times, time: Self.seconds, offset: { _ in 7200 })
    #expect(eastTwo.map(\.reasons) == [[.rule(.daily)], [.oldest(.daily)]])
  }
}
