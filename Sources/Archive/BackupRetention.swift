import Platform

/// Which backups a retention policy keeps: the rules of `restic forget`'s `--keep-last`,
/// `--keep-daily`, `--keep-weekly` and `--keep-monthly` (mn.md §13).
///
/// A pure function of the backups' times: no file system, no clock. `BackupCatalog.prune`
/// applies it to the backup folder, and `mn watch` after each scheduled backup.
///
/// The rules, as restic applies them:
/// - Backups are taken newest first. Each rule with a count `n` keeps the newest backup of
///   each of the `n` most recent periods (for `last`: of each backup) that have a backup;
///   periods without one do not count. A day runs from 00:00 to 23:59, a week from Monday
///   to Sunday, a month from the 1st to its last day, all in the time zone that `offset`
///   gives (UTC by default).
/// - A backup is kept when any rule keeps it (the rules are ORed); each rule counts on its
///   own, so one backup can use up a day, a week and a month at once.
/// - When a rule still has periods left at the oldest backup, the oldest backup is kept too
///   (`oldest daily`), even if its period was already counted: the history kept is as long
///   as the counts allow.
/// - The newest backup is always kept. An empty policy (every count 0) keeps everything:
///   like restic, it refuses to act on no policy at all.
public enum BackupRetention {
  /// How many periods each rule keeps; 0 turns a rule off, `unlimited` keeps every period.
  public struct Policy: Sendable, Equatable {
    /// A count that never runs out (`--keep-daily unlimited`).
    public static let unlimited = Int.max

    /// The newest `last` backups.
    public var last: Int
    /// The newest backup of each of the `daily` most recent days with a backup.
    public var daily: Int
    /// The newest backup of each of the `weekly` most recent ISO weeks with a backup.
    public var weekly: Int
    /// The newest backup of each of the `monthly` most recent months with a backup.
    public var monthly: Int

    public init(last: Int = 0, daily: Int = 0, weekly: Int = 0, monthly: Int = 0) {
      self.last = last
      self.daily = daily
      self.weekly = weekly
      self.monthly = monthly
    }

    /// Whether no rule is on (then nothing is removed).
    public var isEmpty: Bool { last <= 0 && daily <= 0 && weekly <= 0 && monthly <= 0 }
  }

  /// One of the policy's rules.
  public enum Rule: String, Sendable, Equatable, CaseIterable {
    case last
    case daily
    case weekly
    case monthly
  }

  /// Why a backup is kept.
  public enum Reason: Sendable, Equatable, CustomStringConvertible {
    /// A rule kept it as the newest of its period (for `last`: one of the newest backups).
    case rule(Rule)
    /// A rule had periods left when it reached the oldest backup, whose period it had
    /// already counted.
    case oldest(Rule)
    /// The newest backup, which is always kept.
    case newest
    /// The policy is empty, so nothing is removed.
    case noPolicy

    /// `last`, `daily`, ..., `oldest weekly`, `newest`, `no policy`.
    public var description: String {
      switch self {
      case .rule(let rule): return rule.rawValue
      case .oldest(let rule): return "oldest \(rule.rawValue)"
      case .newest: return "newest"
      case .noPolicy: return "no policy"
      }
    }
  }

  /// What the policy decided for one item.
  public struct Decision<Item> {
    public var item: Item
    /// Why it is kept, in rule order; empty when it is to be removed.
    public var reasons: [Reason]
    /// Whether it is kept.
    public var keep: Bool { !reasons.isEmpty }
  }

  /// Applies `policy` to `items`.
  ///
  /// - Parameters:
  ///   - policy: the counts of each rule.
  ///   - items: the backups, in any order; of two with the same time, the later in `items`
  ///     counts as the newer.
  ///   - time: an item's time, seconds since the epoch.
  ///   - offset: the time zone's offset from UTC, in seconds, at a given time (for local
  ///     days, weeks and months); UTC when left out.
  /// - Returns: one decision per item, newest first.
  public static func apply<Item>(
    _ policy: Policy, to items: [Item], time: (Item) -> Int64,
    offset: (Int64) -> Int64 = { _ in 0 }
  ) -> [Decision<Item>] {
    let order = items.indices.sorted { a, b in
      let (ta, tb) = (time(items[a]), time(items[b]))
      return ta != tb ? ta > tb : a > b
    }
    if policy.isEmpty {
      return order.map { Decision(item: items[$0], reasons: [.noPolicy]) }
    }
    var counters: [(rule: Rule, left: Int, previous: Int64?)] = [
      (.last, policy.last, nil), (.daily, policy.daily, nil), (.weekly, policy.weekly, nil),
      (.monthly, policy.monthly, nil),
    ]
    var decisions: [Decision<Item>] = []
    decisions.reserveCapacity(order.count)
    for (position, index) in order.enumerated() {
      let seconds = time(items[index])
      let local = seconds + offset(seconds)
      let isOldest = position == order.count - 1
      var reasons: [Reason] = []
      for c in counters.indices where counters[c].left > 0 {
        let period = self.period(counters[c].rule, local: local, position: position)
        let isNewPeriod = period != counters[c].previous
        guard isNewPeriod || isOldest else { continue }
        reasons.append(isNewPeriod ? .rule(counters[c].rule) : .oldest(counters[c].rule))
        counters[c].previous = period
        if counters[c].left != Policy.unlimited { counters[c].left -= 1 }
      }
      if position == 0, reasons.isEmpty { reasons = [.newest] }
      decisions.append(Decision(item: items[index], reasons: reasons))
    }
    return decisions
  }

  /// The number of the period that a rule counts `local` (seconds since the epoch, shifted
  /// to local time) in: the position itself for `last`, else the day, the Monday-based week
  /// or the month since the epoch.
  static func period(_ rule: Rule, local: Int64, position: Int) -> Int64 {
    let day = floorDivide(local, 86_400)
    switch rule {
    case .last: return Int64(position)
    case .daily: return day
    // 1970-01-01 was a Thursday: the Monday that starts its ISO week is day -3.
    case .weekly: return floorDivide(day + 3, 7)
    case .monthly:
      let civil = UTCDateTime(secondsSinceEpoch: local)
      return Int64(civil.year) * 12 + Int64(civil.month - 1)
    }
  }

  static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
  }
}
