/// How `mn watch` keeps a folder (mn.md §12): the options, as values.
public struct WatchPolicy: Sendable, Equatable {
  /// How long a conflict copy must go unchanged before it is merged, in seconds.
  public var quietFor: Double
  /// How often a scheduled backup is written, in seconds; nil: never.
  public var backupEvery: Double?
  /// Whether placeholders are fetched (`--fetch`).
  public var fetch: Bool
  /// The retention applied after each scheduled backup; nil: none.
  public var keep: BackupKeepPolicy?
  /// How long a failed merge waits before it is tried again, in seconds (at least `quietFor`).
  public var retryAfter: Double
  /// How often the folder is rescanned while the system refuses to watch some of its
  /// directories (`ChangeNotifier.unwatched`, mn.md §12), in seconds.
  public var unwatchedRescanEvery: Double

  /// `--quiet-for`'s default, in seconds: written here once, read by the option (so help,
  /// man pages and completions say it) and by `init`.
  public static let defaultQuietFor = 10.0

  /// How many quiet periods a copy that does not decode must stay unchanged before it is
  /// called damaged: until then it is a copy still arriving (a sync client writing it
  /// slowly), waited for and not reported (mn.md §12).
  public static let arrivingQuietPeriods = 6.0

  /// How long (seconds since its last modification) a copy that does not decode is taken
  /// for one still arriving: `arrivingQuietPeriods` times `quietFor`.
  public var arrivingFor: Double { quietFor * Self.arrivingQuietPeriods }

  public init(
    quietFor: Double = WatchPolicy.defaultQuietFor, backupEvery: Double? = nil, fetch: Bool = false,
    keep: BackupKeepPolicy? = nil, retryAfter: Double = 60, unwatchedRescanEvery: Double = 30
  ) {
    self.quietFor = quietFor
    self.backupEvery = backupEvery
    self.fetch = fetch
    self.keep = keep
    self.retryAfter = max(retryAfter, quietFor)
    self.unwatchedRescanEvery = unwatchedRescanEvery
  }
}

extension WatchPolicy {
  /// Parses a duration: a number of seconds (`90`), or numbers with units `s`, `m`, `h`, `d`,
  /// `w` (`30m`, `12h`, `1d`, `1h30m`). Nil for anything else, and for zero.
  public static func parseDuration(_ text: String) -> Double? {
    if let seconds = Double(text) { return seconds > 0 && seconds.isFinite ? seconds : nil }
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
    var total = 0.0
    var number = ""
    for character in text {
      if character.isASCII && (character.isNumber || character == ".") {
        number.append(character)
      } else if let unit = units[character], let value = Double(number) {
        total += value * unit
        number = ""
      } else {
        return nil
      }
    }
    guard number.isEmpty, total > 0, total.isFinite else { return nil }
    return total
  }
}
