/// Small helpers over the UTF-8 bytes of a file name, shared by the conflict-copy patterns.
///
/// The patterns work on bytes, not on `Character`s: file names arrive as bytes from the
/// disk, byte comparison is fast (a scan of 10,000 names must cost next to nothing), and
/// the markers every service writes are ASCII (the few localized Dropbox wordings are
/// compared as exact UTF-8 bytes). Nothing here traps on any input.
///
/// The small helpers are `@inlinable`: Storage's scan and name table call them for every
/// byte of every name, and across a module boundary only an inlinable body is inlined.
public enum NameBytes {
  public static let space: UInt8 = 0x20
  public static let dot: UInt8 = 0x2E
  public static let dash: UInt8 = 0x2D
  public static let openParen: UInt8 = 0x28
  public static let closeParen: UInt8 = 0x29
  public static let openBracket: UInt8 = 0x5B
  public static let closeBracket: UInt8 = 0x5D

  @inlinable public static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
  @inlinable public static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
  @inlinable public static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
  @inlinable public static func isAlnum(_ b: UInt8) -> Bool {
    isDigit(b) || isUpper(b) || isLower(b)
  }
  @inlinable public static func lower(_ b: UInt8) -> UInt8 { isUpper(b) ? b + 0x20 : b }

  /// Whether every byte of a name is ASCII (read from contiguous storage when the string
  /// has it, as names read from a directory do).
  @inlinable public static func isASCII(_ name: String) -> Bool {
    withBytes(name) { bytes in
      guard let base = bytes.baseAddress else { return true }
      var i = 0
      // Eight bytes at a time: a byte of 0x80 or more has its high bit set.
      while i + 8 <= bytes.count {
        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
        if word & 0x8080_8080_8080_8080 != 0 { return false }
        i += 8
      }
      while i < bytes.count {
        if bytes[i] >= 0x80 { return false }
        i += 1
      }
      return true
    }
  }

  /// Calls `body` with the UTF-8 bytes of `name` in place (a copy only for a string that
  /// has no contiguous storage): byte loops over it cost a fraction of `String.UTF8View`'s.
  @inlinable public static func withBytes<R>(
    _ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R {
    var name = name
    return name.withUTF8(body)
  }

  /// Whether `bytes` equals the literal.
  @inlinable public static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString)
    -> Bool
  {
    bytes.count == literal.utf8CodeUnitCount && hasSuffix(bytes, literal)
  }

  /// Whether `bytes` ends with the literal: a plain loop over the two pointers (the scan asks
  /// this of every name; the generic `elementsEqual` costs several times as much).
  @inlinable public static func hasSuffix(
    _ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString
  ) -> Bool {
    let n = literal.utf8CodeUnitCount
    guard bytes.count >= n else { return false }
    guard n > 0, let base = bytes.baseAddress else { return true }
    let tail = base + (bytes.count - n)
    let suffix = literal.utf8Start
    for k in 0..<n where tail[k] != suffix[k] { return false }
    return true
  }

  /// The text of `bytes` as a String (invalid UTF-8 repaired, which only matters for display).
  @inlinable public static func string(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  /// An ISO date and time, `YYYY-MM-DDTHH:MM:SS`, from its two parts.
  @inlinable public static func dateTime(_ date: String, _ time: String) -> String {
    var out = date
    out.append("T")
    out.append(time)
    return out
  }

  /// The decimal value of `bytes[range]` when every byte is a digit (at most 9 of them).
  @inlinable public static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
    guard !range.isEmpty, range.count <= 9, range.lowerBound >= 0, range.upperBound <= bytes.count
    else { return nil }
    var value = 0
    for i in range {
      guard isDigit(bytes[i]) else { return nil }
      value = value * 10 + Int(bytes[i] - 0x30)
    }
    return value
  }

  /// A counter as services write it: digits, no leading zero, at most 4 digits.
  @inlinable public static func counter(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
    guard range.count <= 4, range.lowerBound >= 0, range.lowerBound < bytes.count,
      bytes[range.lowerBound] != 0x30
    else {
      return nil
    }
    return number(bytes, range)
  }

  /// The bytes of a literal, without allocating (a static string lives for the whole run).
  @inlinable @inline(__always)
  public static func bytes(_ literal: StaticString) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
  }

  /// Whether `bytes` ends with the literal `suffix`.
  @inlinable public static func hasSuffix(_ bytes: [UInt8], _ suffix: StaticString) -> Bool {
    hasSuffix(bytes, Self.bytes(suffix))
  }

  /// Whether `bytes[at...]` starts with the literal `prefix`.
  @inlinable public static func matches(
    _ bytes: [UInt8], at: Int, _ prefix: StaticString, ignoringCase: Bool = false
  )
    -> Bool
  {
    matches(bytes, at: at, Self.bytes(prefix), ignoringCase: ignoringCase)
  }

  /// The last index where the literal `needle` starts in `bytes`.
  @inlinable public static func lastIndex(of needle: StaticString, in bytes: [UInt8]) -> Int? {
    lastIndex(of: Self.bytes(needle), in: bytes)
  }

  /// Whether `bytes` ends with `suffix`.
  @inlinable public static func hasSuffix(_ bytes: [UInt8], _ suffix: [UInt8]) -> Bool {
    suffix.withUnsafeBufferPointer { hasSuffix(bytes, $0) }
  }

  @inlinable public static func hasSuffix(_ bytes: [UInt8], _ suffix: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    guard suffix.count <= bytes.count else { return false }
    let start = bytes.count - suffix.count
    for k in 0..<suffix.count where bytes[start + k] != suffix[k] { return false }
    return true
  }

  /// Whether `bytes[at...]` starts with `prefix`.
  @inlinable public static func matches(
    _ bytes: [UInt8], at: Int, _ prefix: [UInt8], ignoringCase: Bool = false
  )
    -> Bool
  {
    prefix.withUnsafeBufferPointer { matches(bytes, at: at, $0, ignoringCase: ignoringCase) }
  }

  @inlinable public static func matches(
    _ bytes: [UInt8], at: Int, _ prefix: UnsafeBufferPointer<UInt8>, ignoringCase: Bool = false
  ) -> Bool {
    guard at >= 0, at <= bytes.count, prefix.count <= bytes.count - at else { return false }
    for k in 0..<prefix.count {
      let a = bytes[at + k]
      let b = prefix[k]
      if ignoringCase ? lower(a) != lower(b) : a != b { return false }
    }
    return true
  }

  /// The last index where `needle` starts in `bytes`.
  @inlinable public static func lastIndex(of needle: UnsafeBufferPointer<UInt8>, in bytes: [UInt8])
    -> Int?
  {
    guard !needle.isEmpty, needle.count <= bytes.count, let first = needle.first else { return nil }
    var i = bytes.count - needle.count
    while i >= 0 {
      if bytes[i] == first && matches(bytes, at: i, needle) { return i }
      i -= 1
    }
    return nil
  }

  /// The index of the `(` that opens the group closed by the final `)` of `bytes`, nesting
  /// respected; nil when `bytes` does not end with `)` or the parentheses do not balance.
  @inlinable public static func openingOfFinalGroup(_ bytes: [UInt8], open: UInt8, close: UInt8)
    -> Int?
  {
    guard let last = bytes.last, last == close else { return nil }
    var depth = 0
    var i = bytes.count - 1
    while i >= 0 {
      if bytes[i] == close {
        depth += 1
      } else if bytes[i] == open {
        depth -= 1
        if depth == 0 { return i }
      }
      i -= 1
    }
    return nil
  }

  /// `YYYY-MM-DD` at `bytes[at..<at+10]` as an ISO date string, when the fields are in range.
  public static func dashedDate(_ bytes: [UInt8], at: Int) -> String? {
    guard at >= 0, at + 10 <= bytes.count, bytes[at + 4] == dash, bytes[at + 7] == dash,
      let y = number(bytes, at..<at + 4), let m = number(bytes, at + 5..<at + 7),
      let d = number(bytes, at + 8..<at + 10)
    else { return nil }
    return isoDate(y, m, d)
  }

  /// `HH-MM-SS` at `bytes[at..<at+8]` as `HH:MM:SS`, when the fields are in range.
  public static func dashedTime(_ bytes: [UInt8], at: Int) -> String? {
    guard at >= 0, at + 8 <= bytes.count, bytes[at + 2] == dash, bytes[at + 5] == dash,
      let h = number(bytes, at..<at + 2), let m = number(bytes, at + 3..<at + 5),
      let s = number(bytes, at + 6..<at + 8)
    else { return nil }
    return isoTime(h, m, s)
  }

  /// The English month abbreviations, as Go's `Jan` layout writes them (in every locale).
  private static let monthAbbreviations: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"

  /// The month (1…12) whose abbreviation (`Jan`…`Dec`, exactly so capitalized) is at
  /// `bytes[at..<at+3]`.
  public static func monthAbbreviation(_ bytes: [UInt8], at: Int) -> Int? {
    guard at >= 0, at + 3 <= bytes.count else { return nil }
    let names = Self.bytes(monthAbbreviations)
    for month in 0..<12
    where bytes[at] == names[3 * month] && bytes[at + 1] == names[3 * month + 1]
      && bytes[at + 2] == names[3 * month + 2]
    {
      return month + 1
    }
    return nil
  }

  /// `HHMMSS` at `bytes[at..<at+6]` as `HH:MM:SS`.
  public static func compactTime(_ bytes: [UInt8], at: Int) -> String? {
    guard let (h, m, s) = compactTimeFields(bytes, at: at) else { return nil }
    return isoTime(h, m, s)
  }

  /// `YYYYMMDD` at `bytes[date...]` and `HHMMSS` at `bytes[time...]` as
  /// `YYYY-MM-DDTHH:MM:SS`: one string, built once (Syncthing names a copy of every file so).
  public static func compactDateTime(_ bytes: [UInt8], date: Int, time: Int) -> String? {
    guard let y = number(bytes, date..<date + 4), let mo = number(bytes, date + 4..<date + 6),
      let d = number(bytes, date + 6..<date + 8), isDate(y, mo, d),
      let (h, mi, s) = compactTimeFields(bytes, at: time), isTime(h, mi, s)
    else { return nil }
    return String(unsafeUninitializedCapacity: 19) { out in
      var at = 0
      putFields(y, firstWidth: 4, mo, d, separator: dash, into: out, at: &at)
      out[at] = 0x54
      at += 1
      putFields(h, firstWidth: 2, mi, s, separator: 0x3A, into: out, at: &at)
      return at
    }
  }

  private static func compactTimeFields(_ bytes: [UInt8], at: Int) -> (Int, Int, Int)? {
    guard let h = number(bytes, at..<at + 2), let m = number(bytes, at + 2..<at + 4),
      let s = number(bytes, at + 4..<at + 6)
    else { return nil }
    return (h, m, s)
  }

  @inlinable public static func isDate(_ y: Int, _ m: Int, _ d: Int) -> Bool {
    (0...9999).contains(y) && (1...12).contains(m) && (1...31).contains(d)
  }

  @inlinable public static func isTime(_ h: Int, _ m: Int, _ s: Int) -> Bool {
    (0...23).contains(h) && (0...59).contains(m) && (0...60).contains(s)
  }

  public static func isoDate(_ y: Int, _ m: Int, _ d: Int) -> String? {
    guard isDate(y, m, d) else { return nil }
    return fields(y, firstWidth: 4, m, d, separator: dash)
  }

  public static func isoTime(_ h: Int, _ m: Int, _ s: Int) -> String? {
    guard isTime(h, m, s) else { return nil }
    return fields(h, firstWidth: 2, m, s, separator: 0x3A)
  }

  /// Three zero-padded numbers joined by `separator` (`2026-09-06`, `15:45:12`), written
  /// byte by byte; short enough to be a small string, so nothing is allocated.
  private static func fields(_ a: Int, firstWidth: Int, _ b: Int, _ c: Int, separator: UInt8)
    -> String
  {
    String(unsafeUninitializedCapacity: firstWidth + 6) { out in
      var at = 0
      putFields(a, firstWidth: firstWidth, b, c, separator: separator, into: out, at: &at)
      return at
    }
  }

  private static func putFields(
    _ a: Int, firstWidth: Int, _ b: Int, _ c: Int, separator: UInt8,
    into out: UnsafeMutableBufferPointer<UInt8>, at: inout Int
  ) {
    putDigits(a, width: firstWidth, into: out, at: &at)
    out[at] = separator
    at += 1
    putDigits(b, width: 2, into: out, at: &at)
    out[at] = separator
    at += 1
    putDigits(c, width: 2, into: out, at: &at)
  }

  /// Writes the last `width` decimal digits of `value` (not negative), zero-padded, at
  /// `out[at...]`, and moves `at` past them: names and dates built byte by byte.
  @inlinable public static func putDigits(
    _ value: Int, width: Int, into out: UnsafeMutableBufferPointer<UInt8>, at: inout Int
  ) {
    var rest = value
    var i = at + width
    while i > at {
      i -= 1
      out[i] = UInt8(0x30 + rest % 10)
      rest /= 10
    }
    at += width
  }

  @inlinable public static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }

  /// `bytes` without leading and trailing ASCII spaces.
  @inlinable public static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var s = bytes
    while let f = s.first, f == space { s = s.dropFirst() }
    while let l = s.last, l == space { s = s.dropLast() }
    return s
  }
  /// Whether `name` can be a file name: one component (`LogicalName.isComponent`), at most
  /// 1,024 bytes.
  @inlinable public static func isValidComponent(_ name: String) -> Bool {
    name.utf8.count <= 1024 && LogicalName.isComponent(name)
  }
}

extension String {
  /// Whether this string sorts before `other` by the bytes of their UTF-8, the order mn lists
  /// names in. Compared in place: `utf8.lexicographicallyPrecedes` walks the views' indices,
  /// about forty instructions a byte.
  @inlinable public func precedesByBytes(_ other: String) -> Bool {
    NameBytes.withBytes(self) { a in
      NameBytes.withBytes(other) { b in
        for k in 0..<Swift.min(a.count, b.count) where a[k] != b[k] { return a[k] < b[k] }
        return a.count < b.count
      }
    }
  }

}
