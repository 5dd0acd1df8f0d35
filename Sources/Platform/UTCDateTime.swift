/// A calendar date and time in UTC, computed from seconds since the epoch without Foundation.
///
/// Used for the manifest's `created` field (ISO 8601) and backup file names.
public struct UTCDateTime: Sendable, Equatable {
  public var year: Int
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int

  /// The UTC calendar time of `seconds` since 1970-01-01T00:00:00Z (proleptic Gregorian).
  public init(secondsSinceEpoch seconds: Int64) {
    let secondsPerDay: Int64 = 86_400
    var days = seconds / secondsPerDay
    var rest = seconds % secondsPerDay
    if rest < 0 {
      rest += secondsPerDay
      days -= 1
    }
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    year = Int(yoe + era * 400 + (m <= 2 ? 1 : 0))
    month = Int(m)
    day = Int(d)
    hour = Int(rest / 3600)
    minute = Int(rest % 3600 / 60)
    second = Int(rest % 60)
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return value < 0 ? "-" + padded : padded
  }

  /// ISO 8601 in UTC: `2026-09-06T15:45:12Z`.
  public var iso8601: String {
    guard (0...9999).contains(year) else { return paddedISO8601 }
    // Written byte by byte: `ls --json` makes one per file.
    return String(unsafeUninitializedCapacity: 20) { out in
      var at = 0
      func put(_ value: Int, _ width: Int, then separator: UInt8) {
        NameBytes.putDigits(value, width: width, into: out, at: &at)
        out[at] = separator
        at += 1
      }
      put(year, 4, then: UInt8(ascii: "-"))
      put(month, 2, then: UInt8(ascii: "-"))
      put(day, 2, then: UInt8(ascii: "T"))
      put(hour, 2, then: UInt8(ascii: ":"))
      put(minute, 2, then: UInt8(ascii: ":"))
      put(second, 2, then: UInt8(ascii: "Z"))
      return at
    }
  }

  /// `iso8601` for any year (negative or past 9999), from padded strings.
  var paddedISO8601: String {
    "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T"
      + "\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))Z"
  }

  /// The compact form used in file names: `20260906-154512`.
  public var compact: String {
    "\(Self.pad(year, 4))\(Self.pad(month, 2))\(Self.pad(day, 2))-"
      + "\(Self.pad(hour, 2))\(Self.pad(minute, 2))\(Self.pad(second, 2))"
  }
}
