/// Writes JSON text as it goes, without building a `JSONValue` tree first: the form for long
/// listings (`ls --json` over thousands of files), where the tree would cost more than the
/// text. The output is byte for byte what `JSONWriter` writes for the same value.
///
/// Calls must nest properly (`beginObject`, then `key` before each value, `endObject`); the
/// stream does not check it. The text is kept in a buffer that copies of a stream share: a
/// stream has one writer.
public struct JSONStream {
  /// The text so far (since the last `drain`).
  public var bytes: [UInt8] { buffer.bytes }
  /// How many bytes `bytes` holds.
  public var count: Int { buffer.count }

  /// Hands the text so far to `write`, in place, and forgets it: a long listing is written
  /// out in pieces, in the same memory, instead of being held whole.
  public mutating func drain(_ write: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    try buffer.drain(write)
  }
  private var buffer: ByteBuffer
  private let indent: Int
  private var level = 0
  /// Whether the container being written has no member yet.
  private var empty = true
  /// Whether a key was just written, so the next value follows it on the same line.
  private var afterKey = false

  /// A stream that pretty-prints with `indent` spaces per level (0: compact).
  public init(indent: Int = 0, reservingCapacity capacity: Int = 0) {
    self.indent = indent
    buffer = ByteBuffer(capacity: capacity)
  }

  public mutating func beginArray() { open(UInt8(ascii: "[")) }
  public mutating func endArray() { close(UInt8(ascii: "]")) }
  public mutating func beginObject() { open(UInt8(ascii: "{")) }
  public mutating func endObject() { close(UInt8(ascii: "}")) }

  /// The key of the next member of an object.
  public mutating func key(_ name: String) {
    separate()
    JSONWriter.writeString(name, to: &buffer)
    colon()
  }

  /// A key known when compiling, copied as it is: it must need no escape (`"size"`).
  public mutating func literalKey(_ name: StaticString) {
    let key = name.utf8CodeUnitCount
    let colon = indent > 0 ? 2 : 1
    separated(then: key + 2 + colon) { out in
      out[0] = UInt8(ascii: "\"")
      (out + 1).initialize(from: name.utf8Start, count: key)
      out[key + 1] = UInt8(ascii: "\"")
      out[key + 2] = UInt8(ascii: ":")
      if colon > 1 { out[key + 3] = UInt8(ascii: " ") }
    }
    afterKey = true
  }

  private mutating func colon() {
    buffer.put(UInt8(ascii: ":"))
    if indent > 0 { buffer.put(UInt8(ascii: " ")) }
    afterKey = true
  }

  public mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { bytes in
      guard !JSONWriter.needsEscape(bytes), let source = bytes.baseAddress else {
        separate()
        JSONWriter.writeString(bytes, to: &buffer)
        return
      }
      separated(then: bytes.count + 2) { out in
        out[0] = UInt8(ascii: "\"")
        (out + 1).initialize(from: source, count: bytes.count)
        out[bytes.count + 1] = UInt8(ascii: "\"")
      }
    }
  }

  /// A line break after the outermost value (text for a terminal or a pipe ends with one).
  public mutating func endLine() { buffer.put(UInt8(ascii: "\n")) }

  public mutating func int(_ value: Int64) {
    separate()
    if value < 0 { buffer.put(UInt8(ascii: "-")) }
    let magnitude = value.magnitude
    var divisor: UInt64 = 1
    while divisor <= magnitude / 10 { divisor *= 10 }
    while divisor > 0 {
      buffer.put(UInt8(0x30 + magnitude / divisor % 10))
      divisor /= 10
    }
  }

  public mutating func null() {
    separate()
    for byte in "null".utf8 { buffer.put(byte) }
  }

  /// Any value, through `JSONWriter`.
  public mutating func value(_ value: JSONValue) {
    separate()
    var text: [UInt8] = []
    JSONWriter.write(value, into: &text, indent: indent, level: level)
    text.withUnsafeBufferPointer { buffer.put($0) }
  }

  private mutating func open(_ bracket: UInt8) {
    separate()
    buffer.put(bracket)
    level += 1
    empty = true
  }

  private mutating func close(_ bracket: UInt8) {
    level -= 1
    if !empty { newline() }
    buffer.put(bracket)
    empty = false
  }

  /// What `separate` writes, then `count` bytes that `body` writes, in one run: a listing
  /// writes thousands of keys and strings, and one capacity check for each costs less than
  /// one per part.
  private mutating func separated(
    then count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void
  ) {
    let separating = !afterKey && level > 0
    let comma = separating && !empty ? 1 : 0
    let line = separating && indent > 0 ? 1 + indent * level : 0
    buffer.put(count: comma + line + count) { out in
      if comma > 0 { out[0] = UInt8(ascii: ",") }
      if line > 0 {
        out[comma] = UInt8(ascii: "\n")
        (out + comma + 1).initialize(repeating: UInt8(ascii: " "), count: line - 1)
      }
      body(out + comma + line)
    }
    if afterKey {
      afterKey = false
    } else if level > 0 {
      empty = false
    }
  }

  /// What comes before a value or a key: nothing after a key; otherwise a comma after an
  /// earlier member and the new line and indentation of the member.
  private mutating func separate() { separated(then: 0) { _ in } }

  private mutating func newline() {
    guard indent > 0 else { return }
    buffer.put(UInt8(ascii: "\n"))
    buffer.put(UInt8(ascii: " "), count: indent * level)
  }
}
