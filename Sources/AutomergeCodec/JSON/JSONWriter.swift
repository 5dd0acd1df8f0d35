/// Serializes `JSONValue`s as compact or indented JSON text.
public enum JSONWriter {
  /// The JSON text of `value`; `indent` > 0 pretty-prints with that many spaces per level.
  ///
  /// Doubles that are not finite (NaN, infinities) have no JSON form and are written as null.
  public static func string(_ value: JSONValue, indent: Int = 0) -> String {
    var out: [UInt8] = []
    write(value, into: &out, indent: indent, level: 0)
    return String(decoding: out, as: UTF8.self)
  }

  /// The bytes of `value` as mn writes a JSON report or file: indented by two spaces, with a
  /// final newline.
  public static func document(_ value: JSONValue) -> [UInt8] {
    var out: [UInt8] = []
    write(value, into: &out, indent: 2, level: 0)
    out.append(UInt8(ascii: "\n"))
    return out
  }

  /// Appends the JSON text of `value` to `out`.
  public static func write(
    _ value: JSONValue, into out: inout [UInt8], indent: Int = 0, level: Int = 0
  ) {
    switch value {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .int(let v): out.append(contentsOf: String(v).utf8)
    case .uint(let v): out.append(contentsOf: String(v).utf8)
    case .double(let d): writeDouble(d, into: &out)
    case .string(let s): writeString(s, into: &out)
    case .array(let items):
      if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
      out.append(UInt8(ascii: "["))
      for (i, item) in items.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        newline(&out, indent, level + 1)
        write(item, into: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      if members.isEmpty { out.append(contentsOf: "{}".utf8); return }
      out.append(UInt8(ascii: "{"))
      for (i, (key, item)) in members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        newline(&out, indent, level + 1)
        writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        if indent > 0 { out.append(UInt8(ascii: " ")) }
        write(item, into: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out.append(UInt8(ascii: "}"))
    }
  }

  private static func newline(_ out: inout [UInt8], _ indent: Int, _ level: Int) {
    guard indent > 0 else { return }
    out.append(UInt8(ascii: "\n"))
    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
  }

  /// Writes a double in the shortest form that reads back as the same value.
  public static func writeDouble(_ d: Double, into out: inout [UInt8]) {
    guard d.isFinite else { out.append(contentsOf: "null".utf8); return }
    if d == d.rounded(), abs(d) < 1e15 {
      // Integral values: "3.0" becomes "3", which JSON readers parse as the same number.
      out.append(contentsOf: String(Int64(d)).utf8)
      if d == 0, d.sign == .minus { out.insert(UInt8(ascii: "-"), at: out.count - 1) }
      return
    }
    out.append(contentsOf: d.description.utf8)
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Writes a JSON string literal with the escapes RFC 8259 requires.
  public static func writeString(_ s: String, into out: inout [UInt8]) {
    writeString(s, to: &out)
  }

  /// Writes a JSON string literal to any sink (an array, or `JSONStream`'s buffer).
  static func writeString<Sink: ByteSink>(_ s: String, to out: inout Sink) {
    var s = s
    s.withUTF8 { writeString($0, to: &out) }
  }

  /// Writes the JSON string literal of UTF-8 bytes (a string's, in place).
  static func writeString<Sink: ByteSink>(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout Sink) {
    out.put(UInt8(ascii: "\""))
    if !needsEscape(bytes) {
      out.put(bytes)
    } else {
      // Runs of bytes that need no escape are copied whole.
      var start = 0
      for (i, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5c {
        out.put(UnsafeBufferPointer(rebasing: bytes[start..<i]))
        escape(byte, to: &out)
        start = i + 1
      }
      out.put(UnsafeBufferPointer(rebasing: bytes[start...]))
    }
    out.put(UInt8(ascii: "\""))
  }

  /// Whether any byte of `bytes` is a quote, a backslash or a control character. Eight bytes
  /// are tested at once: a listing's strings are paths, long and with nothing to escape.
  static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    // Nonzero when some byte of `w` is below `n` (n <= 0x80): the subtraction borrows into
    // the high bit of such a byte, and a byte with its own high bit set is masked out.
    func hasByteBelow(_ w: UInt64, _ n: UInt64) -> UInt64 { (w &- ones &* n) & ~w & highs }
    var i = 0
    while i + 8 <= bytes.count {
      let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      let found =
        hasByteBelow(w, 0x20) | hasByteBelow(w ^ (ones &* 0x22), 1)
        | hasByteBelow(w ^ (ones &* 0x5c), 1)
      if found != 0 { return true }
      i += 8
    }
    while i < bytes.count {
      let byte = bytes[i]
      if byte < 0x20 || byte == 0x22 || byte == 0x5c { return true }
      i += 1
    }
    return false
  }

  /// The escape sequence of a quote, a backslash or a control character.
  private static func escape<Sink: ByteSink>(_ byte: UInt8, to out: inout Sink) {
    out.put(UInt8(ascii: "\\"))
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.put(byte)
    case 0x0a: out.put(UInt8(ascii: "n"))
    case 0x0d: out.put(UInt8(ascii: "r"))
    case 0x09: out.put(UInt8(ascii: "t"))
    case 0x08: out.put(UInt8(ascii: "b"))
    case 0x0c: out.put(UInt8(ascii: "f"))
    default:
      out.put(UInt8(ascii: "u"))
      out.put(0x30)
      out.put(0x30)
      out.put(hexDigits[Int(byte >> 4)])
      out.put(hexDigits[Int(byte & 0xf)])
    }
  }

  /// The JSON string literal of `s`.
  public static func quoted(_ s: String) -> String {
    var out: [UInt8] = []
    writeString(s, into: &out)
    return String(decoding: out, as: UTF8.self)
  }
}
