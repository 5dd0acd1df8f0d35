/// A cursor over borrowed bytes with strict LEB128 and length-prefixed fields (§2).
///
/// The reader never owns its bytes: callers create it inside `withUnsafeBufferPointer` and use
/// it only there. `base` is the absolute offset of `buffer[0]` in the input, so that errors
/// name the byte where the problem is. Every length read from the input is checked against
/// the bytes that remain before anything is allocated.
///
/// LEB128 policy: one strict reader everywhere (headers, column metadata, value payloads and
/// the runs inside columns). Overlong forms and values beyond 64 bits are errors. Rust 2.x
/// reads in-column runs leniently, Rust 3.x (the reference for our fixtures) strictly; no
/// canonical writer produces overlong forms, so strict is the safe choice.
struct ByteReader {
  let buffer: UnsafeBufferPointer<UInt8>
  private(set) var position: Int
  let end: Int
  let base: Int

  init(_ buffer: UnsafeBufferPointer<UInt8>, base: Int = 0) {
    self.buffer = buffer
    self.position = 0
    self.end = buffer.count
    self.base = base
  }

  init(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, base: Int = 0) {
    self.buffer = buffer
    self.position = start
    self.end = end
    self.base = base
  }

  /// The number of bytes left.
  @inline(__always) var remaining: Int { end - position }
  /// Whether every byte has been read.
  @inline(__always) var isAtEnd: Bool { position >= end }
  /// The absolute offset of the next byte.
  @inline(__always) var offset: Int { base + position }

  @inline(__always) mutating func byte(_ what: @autoclosure () -> String = "byte") throws -> UInt8 {
    guard position < end else { throw AutomergeDecodeError.truncated(what: what(), offset: offset) }
    let b = buffer[position]
    position += 1
    return b
  }

  /// Reads a strict unsigned LEB128 (§2.1).
  @inline(__always) mutating func uleb(_ what: @autoclosure () -> String = "uleb128") throws
    -> UInt64
  {
    guard position < end else { throw AutomergeDecodeError.truncated(what: what(), offset: offset) }
    let first = buffer[position]
    if first < 0x80 {
      position += 1
      return UInt64(first)
    }
    return try ulebSlow(what())
  }

  private mutating func ulebSlow(_ what: String) throws -> UInt64 {
    let start = offset
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < end else { throw AutomergeDecodeError.truncated(what: what, offset: start) }
      let b = buffer[position]
      position += 1
      if shift == 63 {
        if b == 0 {
          throw AutomergeDecodeError.invalidLEB(reason: "overlong encoding", offset: start)
        }
        if b != 1 {
          throw AutomergeDecodeError.invalidLEB(reason: "value too large", offset: start)
        }
      }
      result |= UInt64(b & 0x7f) << shift
      if b & 0x80 == 0 {
        if b == 0 && shift > 0 {
          throw AutomergeDecodeError.invalidLEB(reason: "overlong encoding", offset: start)
        }
        return result
      }
      shift += 7
    }
  }

  /// Reads a strict signed LEB128 (§2.2).
  @inline(__always) mutating func sleb(_ what: @autoclosure () -> String = "sleb128") throws
    -> Int64
  {
    guard position < end else { throw AutomergeDecodeError.truncated(what: what(), offset: offset) }
    let first = buffer[position]
    if first < 0x80 {
      position += 1
      return first & 0x40 == 0 ? Int64(first) : Int64(first) - 0x80
    }
    return try slebSlow(what())
  }

  private mutating func slebSlow(_ what: String) throws -> Int64 {
    let start = offset
    var result: Int64 = 0
    var shift: Int64 = 0
    var previous: UInt8 = 0
    while true {
      guard position < end else { throw AutomergeDecodeError.truncated(what: what, offset: start) }
      let b = buffer[position]
      position += 1
      if shift == 63 && b != 0 && b != 0x7f {
        throw AutomergeDecodeError.invalidLEB(reason: "value too large", offset: start)
      }
      result |= Int64(b & 0x7f) << shift
      shift += 7
      if b & 0x80 == 0 {
        if shift > 7 && ((b == 0 && previous & 0x40 == 0) || (b == 0x7f && previous & 0x40 != 0)) {
          throw AutomergeDecodeError.invalidLEB(reason: "overlong encoding", offset: start)
        }
        if shift < 64 && b & 0x40 != 0 { result |= -1 << shift }
        return result
      }
      previous = b
    }
  }

  /// Reads a uLEB that must fit `Int` and be at most `limit`.
  mutating func length(_ what: String, limit: Int) throws -> Int {
    let start = offset
    let v = try uleb(what)
    guard v <= UInt64(limit) else {
      throw AutomergeDecodeError.truncated(what: what, offset: start)
    }
    return Int(v)
  }

  /// Skips `count` bytes, returning the range they occupy in `buffer`.
  mutating func skip(_ count: Int, _ what: @autoclosure () -> String) throws -> Range<Int> {
    guard count >= 0, count <= remaining else {
      throw AutomergeDecodeError.truncated(what: what(), offset: offset)
    }
    let r = position..<(position + count)
    position += count
    return r
  }

  /// Reads `count` bytes into a new array.
  mutating func bytes(_ count: Int, _ what: @autoclosure () -> String) throws -> [UInt8] {
    let r = try skip(count, what())
    return Array(UnsafeBufferPointer(rebasing: buffer[r]))
  }

  /// Reads a byte string: uLEB length, then that many bytes (§2.3).
  mutating func byteString(_ what: String) throws -> [UInt8] {
    let n = try length(what, limit: remaining)
    return try bytes(n, what)
  }

  /// Reads a length-prefixed UTF-8 string (§2.3); invalid UTF-8 is an error.
  mutating func string(_ what: String) throws -> String {
    let n = try length(what, limit: remaining)
    let start = offset
    let r = try skip(n, what)
    guard let s = UTF8Validation.string(UnsafeBufferPointer(rebasing: buffer[r])) else {
      throw AutomergeDecodeError.invalidUTF8(offset: start)
    }
    return s
  }

  /// Reads a uLEB count and that many 32-byte hashes (dependencies, heads).
  mutating func hashes(count countWhat: String, each what: String) throws -> [ChangeHash] {
    let n = try length(countWhat, limit: remaining / 32)
    var out: [ChangeHash] = []
    out.reserveCapacity(n)
    for _ in 0..<n { out.append(try hash(what)) }
    return out
  }

  /// Reads a 32-byte change hash (§2.3).
  mutating func hash(_ what: String) throws -> ChangeHash {
    let r = try skip(32, what)
    return ChangeHash(UnsafeBufferPointer(rebasing: buffer[r]))
  }
}

/// UTF-8 validation without Foundation (§2.3: invalid UTF-8 is an error, never replaced).
enum UTF8Validation {
  /// The string of `bytes`, or nil when they are not valid UTF-8.
  static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    var ascii = true
    for b in bytes where b >= 0x80 {
      ascii = false
      break
    }
    if ascii || isValid(bytes) { return String(decoding: bytes, as: UTF8.self) }
    return nil
  }

  /// Whether `bytes` is well-formed UTF-8, with a fast pass for ASCII.
  @inline(__always) static func isValidOrASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for b in bytes where b >= 0x80 { return isValid(bytes) }
    return true
  }

  /// Whether `bytes` is well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
  static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
      let b0 = bytes[i]
      if b0 < 0x80 {
        i += 1
        continue
      }
      func cont(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xc0 == 0x80 }
      switch b0 {
      case 0xc2...0xdf:
        guard cont(1) else { return false }
        i += 2
      case 0xe0...0xef:
        guard cont(1), cont(2) else { return false }
        let b1 = bytes[i + 1]
        if b0 == 0xe0 && b1 < 0xa0 { return false }
        if b0 == 0xed && b1 >= 0xa0 { return false }
        i += 3
      case 0xf0...0xf4:
        guard cont(1), cont(2), cont(3) else { return false }
        let b1 = bytes[i + 1]
        if b0 == 0xf0 && b1 < 0x90 { return false }
        if b0 == 0xf4 && b1 >= 0x90 { return false }
        i += 4
      default:
        return false
      }
    }
    return true
  }
}

/// The LEB128 writers of §2 (always the shortest form) and the writers built on them, over
/// memory of its own (`ByteBuffer`): emptying it is a store, appending a byte a store and
/// an increment (an `Array`'s `append` checks uniqueness, and its
/// `removeAll(keepingCapacity:)` was 3% of a document check spent emptying the column
/// encoders' arrays). Noncopyable: two writers never share their bytes.
struct ByteWriter: ~Copyable, ByteSink {
  private let buffer: ByteBuffer

  init(capacity: Int = 64) { buffer = ByteBuffer(capacity: capacity) }

  /// The bytes written so far, copied.
  var bytes: [UInt8] { buffer.bytes }

  @inline(__always) var count: Int { buffer.count }

  @inline(__always) var isEmpty: Bool { buffer.count == 0 }

  /// Forgets the bytes written so far; the memory is kept for what follows.
  @inline(__always) mutating func removeAll() { buffer.removeAll() }

  @inline(__always) mutating func put(_ byte: UInt8) { buffer.put(byte) }

  @inline(__always) mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) { buffer.put(bytes) }

  @inline(__always) mutating func uleb(_ value: UInt64) { putULEB(value) }

  @inline(__always) mutating func sleb(_ value: Int64) {
    var v = value
    while true {
      let b = UInt8(truncatingIfNeeded: v) & 0x7f
      v >>= 7
      if (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0) {
        buffer.put(b)
        return
      }
      buffer.put(b | 0x80)
    }
  }

  @inline(__always) mutating func append(_ other: [UInt8]) { buffer.put(other) }

  /// Appends the bytes written to `other`.
  @inline(__always) mutating func append(_ other: borrowing ByteWriter) {
    other.buffer.withBytes { buffer.put($0) }
  }

  /// Runs `body` with the bytes written so far, in place.
  @inline(__always) func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    buffer.withBytes(body)
  }

  /// Appends the bytes written to `sink` and forgets them, keeping the memory.
  @inline(__always) mutating func drain<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    guard buffer.count > 0 else { return }
    buffer.drain { sink.put($0) }
  }

  /// Writes a uLEB length followed by the bytes.
  @inline(__always) mutating func byteString(_ b: [UInt8]) {
    uleb(UInt64(b.count))
    buffer.put(b)
  }

  /// Writes a uLEB length followed by the UTF-8 bytes of the string.
  mutating func string(_ s: String) {
    var s = s
    s.withUTF8 { u in
      uleb(UInt64(u.count))
      buffer.put(u)
    }
  }

  mutating func hash(_ h: ChangeHash) {
    word(h.w0)
    word(h.w1)
    word(h.w2)
    word(h.w3)
  }

  /// A 64-bit word, big-endian (a hash's words are written without an array per hash).
  @inline(__always) private mutating func word(_ w: UInt64) {
    withUnsafeBytes(of: w.bigEndian) { buffer.put($0.assumingMemoryBound(to: UInt8.self)) }
  }

  /// The length of the uLEB encoding of `value`.
  static func ulebLength(_ value: UInt64) -> Int {
    var v = value
    var n = 1
    while v >= 0x80 {
      v >>= 7
      n += 1
    }
    return n
  }
}
