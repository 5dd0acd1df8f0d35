import Platform

/// Change times for `mn log` and `mn diff`: reading a change's time, parsing `--since` and
/// `--until`, printing a time in local time or UTC. "Now" and the local time zone's offset
/// are passed in (style.md: the libraries never read the clock).
public enum ChangeTime {
  /// A change's time in seconds since the epoch; nil when it is unknown (0).
  ///
  /// Automerge leaves the unit to the writer (§6.1): Automerge's own libraries write
  /// seconds, some writers milliseconds. A magnitude of 10^11 or more (seconds after the
  /// year 5000) is read as milliseconds.
  public static func seconds(_ time: Int64) -> Int64? {
    if time == 0 { return nil }
    return time.magnitude >= 100_000_000_000 ? time / 1000 : time
  }

  /// Parses a `--since`/`--until` value: a duration back from `now` (`90`, `30m`, `12h`,
  /// `2d`, `1w`, as `watch --backup-every`), a date `YYYY-MM-DD` (local midnight), or a
  /// date and time `YYYY-MM-DDTHH:MM[:SS]` (a space for the `T` works too) in local time, or
  /// in UTC with a `Z` suffix or at a given offset (`+02:00`).
  ///
  /// - Parameters:
  ///   - text: the value.
  ///   - now: seconds since the epoch.
  ///   - utcOffset: the local time zone's offset from UTC in seconds at a given time.
  /// - Returns: seconds since the epoch, or nil when `text` is none of these.
  public static func parse(
    _ text: String, now: Int64, utcOffset: (Int64) -> Int64
  ) -> Int64? {
    if let duration = WatchPolicy.parseDuration(text) { return now - Int64(duration) }
    let bytes = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= bytes.count else { return nil }
      var n = 0
      for b in bytes[range] {
        guard b >= 0x30, b <= 0x39 else { return nil }
        n = n * 10 + Int(b - 0x30)
      }
      return n
    }
    guard bytes.count >= 10, bytes[4] == 0x2d, bytes[7] == 0x2d,
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
    else { return nil }
    var (hour, minute, second) = (0, 0, 0)
    var rest = bytes[10...]
    if let first = rest.first, first == 0x54 || first == 0x20 {
      guard bytes.count >= 16, bytes[13] == 0x3a, let h = number(11..<13), let m = number(14..<16),
        h < 24, m < 60
      else { return nil }
      (hour, minute) = (h, m)
      rest = bytes[16...]
      if rest.first == 0x3a {
        guard let s = number(17..<19), s < 60 else { return nil }
        second = s
        rest = bytes[19...]
      }
    }
    let civil =
      daysFromCivil(year: year, month: month, day: day) * 86_400
      + Int64(hour * 3600 + minute * 60 + second)
    if rest.isEmpty { return civil - utcOffset(civil - utcOffset(civil)) }
    if rest.count == 1, rest.first == 0x5a { return civil }
    let zone = Array(rest)
    guard zone.count == 6, zone[0] == 0x2b || zone[0] == 0x2d, zone[3] == 0x3a else { return nil }
    let start = rest.startIndex
    guard let h = number((start + 1)..<(start + 3)), let m = number((start + 4)..<(start + 6))
    else { return nil }
    let offset = Int64(h * 3600 + m * 60)
    return zone[0] == 0x2b ? civil - offset : civil + offset
  }

  /// `YYYY-MM-DD HH:MM:SS` in the local time zone with its offset (`+0200`), or in UTC with
  /// a `Z` when `utc`.
  public static func format(_ seconds: Int64, utc: Bool, utcOffset: (Int64) -> Int64) -> String {
    let offset = utc ? 0 : utcOffset(seconds)
    let t = UTCDateTime(secondsSinceEpoch: seconds + offset)
    let minutes = Int(offset.magnitude / 60)
    let sign = UInt8(ascii: offset < 0 ? "-" : "+")
    guard (0...9999).contains(t.year), minutes < 100 * 60 else {
      return padded(t, utc: utc, sign: sign, minutes: minutes)
    }
    // Byte by byte: `mn log` prints one per change.
    return String(unsafeUninitializedCapacity: 25) { out in
      var at = 0
      func put(_ value: Int, _ width: Int, then separator: UInt8? = nil) {
        NameBytes.putDigits(value, width: width, into: out, at: &at)
        if let separator {
          out[at] = separator
          at += 1
        }
      }
      put(t.year, 4, then: UInt8(ascii: "-"))
      put(t.month, 2, then: UInt8(ascii: "-"))
      put(t.day, 2, then: UInt8(ascii: " "))
      put(t.hour, 2, then: UInt8(ascii: ":"))
      put(t.minute, 2, then: UInt8(ascii: ":"))
      if utc {
        put(t.second, 2, then: UInt8(ascii: "Z"))
      } else {
        put(t.second, 2, then: UInt8(ascii: " "))
        out[at] = sign
        at += 1
        put(minutes / 60, 2)
        put(minutes % 60, 2)
      }
      return at
    }
  }

  /// `format` for any year (negative or past 9999) and offset, from padded strings.
  static func padded(_ t: UTCDateTime, utc: Bool, sign: UInt8, minutes: Int) -> String {
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value.magnitude)
      let zeros = String(repeating: "0", count: max(0, width - digits.count))
      return (value < 0 ? "-" : "") + zeros + digits
    }
    let text =
      "\(pad(t.year, 4))-\(pad(t.month, 2))-\(pad(t.day, 2)) "
      + "\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))"
    if utc { return text + "Z" }
    return text + " " + String(UnicodeScalar(sign)) + pad(minutes / 60, 2) + pad(minutes % 60, 2)
  }

  /// The days from 1970-01-01 to a civil date (proleptic Gregorian; Howard Hinnant's
  /// `days_from_civil`).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let m = Int64(month)
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
