/// Writes JSON text as it goes, without building a `JSONValue` tree first: the form for long
/// listings (`ls --json` over thousands of files), where the tree would cost more than the
/// text. The output is byte for byte what `JSONWriter` writes for the same value.
///
/// Calls must nest properly (`beginObject`, then `key` before each value, `endObject`); the
/// stream does not check it.
public struct JSONStream {
  /// The text so far.
  public private(set) var bytes: [UInt8] = []
  private let indent: Int
  private var level = 0
  /// Whether the container being written has no member yet.
  private var empty = true
  /// Whether a key was just written, so the next value follows it on the same line.
  private var afterKey = false

  /// A stream that pretty-prints with `indent` spaces per level (0: compact).
  public init(indent: Int = 0, reservingCapacity capacity: Int = 0) {
    self.indent = indent
    bytes.reserveCapacity(capacity)
  }

  public mutating func beginArray() { open(UInt8(ascii: "[")) }
  public mutating func endArray() { close(UInt8(ascii: "]")) }
  public mutating func beginObject() { open(UInt8(ascii: "{")) }
  public mutating func endObject() { close(UInt8(ascii: "}")) }

  /// The key of the next member of an object.
  public mutating func key(_ name: String) {
    separate()
    JSONWriter.writeString(name, into: &bytes)
    colon()
  }

  /// A key known when compiling, copied as it is: it must need no escape (`"size"`).
  public mutating func literalKey(_ name: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(UInt8(ascii: "\""))
    colon()
  }

  private mutating func colon() {
    bytes.append(UInt8(ascii: ":"))
    if indent > 0 { bytes.append(UInt8(ascii: " ")) }
    afterKey = true
  }

  public mutating func string(_ value: String) {
    separate()
    JSONWriter.writeString(value, into: &bytes)
  }

  public mutating func int(_ value: Int64) {
    separate()
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    let magnitude = value.magnitude
    var divisor: UInt64 = 1
    while divisor <= magnitude / 10 { divisor *= 10 }
    while divisor > 0 {
      bytes.append(UInt8(0x30 + magnitude / divisor % 10))
      divisor /= 10
    }
  }

  public mutating func null() {
    separate()
    bytes.append(contentsOf: "null".utf8)
  }

  /// Any value, through `JSONWriter`.
  public mutating func value(_ value: JSONValue) {
    separate()
    JSONWriter.write(value, into: &bytes, indent: indent, level: level)
  }

  private mutating func open(_ bracket: UInt8) {
    separate()
    bytes.append(bracket)
    level += 1
    empty = true
  }

  private mutating func close(_ bracket: UInt8) {
    level -= 1
    if !empty { newline() }
    bytes.append(bracket)
    empty = false
  }

  /// What comes before a value or a key: nothing after a key; otherwise a comma after an
  /// earlier member and the new line and indentation of the member.
  private mutating func separate() {
    if afterKey {
      afterKey = false
      return
    }
    guard level > 0 else { return }
    if !empty { bytes.append(UInt8(ascii: ",")) }
    empty = false
    newline()
  }

  private mutating func newline() {
    guard indent > 0 else { return }
    bytes.append(UInt8(ascii: "\n"))
    for _ in 0..<(indent * level) { bytes.append(UInt8(ascii: " ")) }
  }
}
