/// The canonical column encoders of §5.3 to §5.10.
///
/// `RLEEncoder` is the state machine of §5.3 exactly; change hashes depend on its bytes.
/// Encoders are reusable: `take()` returns the bytes and resets the state, keeping capacity.

/// A value that an RLE column can hold.
protocol RLEValue {
  /// How the encoder keeps its pending value (a string's bytes live in a reused buffer).
  associatedtype Stored
  /// The stored value before any is kept.
  static var none: Stored { get }
  /// Equality as the encoder sees it (strings compare by UTF-8 bytes, not Unicode).
  static func same(_ stored: Stored, _ x: Self) -> Bool
  /// Keeps `x` as the pending value.
  static func store(_ x: Self, in stored: inout Stored)
  /// Writes the value's encoding. Static, with the value passed in: a non-mutating method
  /// called with `&scratch` would read a copy of the encoder, and the copy's reference to
  /// `scratch` would make every append copy the whole literal run (quadratic).
  static func write(_ v: Stored, to w: inout ByteWriter)
}

extension UInt64: RLEValue {
  static var none: UInt64 { 0 }
  @inline(__always) static func same(_ a: UInt64, _ b: UInt64) -> Bool { a == b }
  @inline(__always) static func store(_ x: UInt64, in stored: inout UInt64) { stored = x }
  @inline(__always) static func write(_ v: UInt64, to w: inout ByteWriter) { w.uleb(v) }
}

extension Int64: RLEValue {
  static var none: Int64 { 0 }
  @inline(__always) static func same(_ a: Int64, _ b: Int64) -> Bool { a == b }
  @inline(__always) static func store(_ x: Int64, in stored: inout Int64) { stored = x }
  @inline(__always) static func write(_ v: Int64, to w: inout ByteWriter) { w.sleb(v) }
}

/// A string given as its UTF-8 bytes, kept in a reused buffer: appending allocates nothing
/// once the buffers have grown.
extension UnsafeBufferPointer<UInt8>: RLEValue {
  static var none: [UInt8] { [] }
  @inline(__always) static func same(_ stored: [UInt8], _ x: Self) -> Bool {
    guard stored.count == x.count else { return false }
    return stored.withUnsafeBufferPointer { v in
      for i in 0..<v.count where v[i] != x[i] { return false }
      return true
    }
  }
  @inline(__always) static func store(_ x: Self, in stored: inout [UInt8]) {
    stored.removeAll(keepingCapacity: true)
    stored.append(contentsOf: x)
  }
  @inline(__always) static func write(_ v: [UInt8], to w: inout ByteWriter) {
    w.uleb(UInt64(v.count))
    w.append(v)
  }
}

/// The RLE encoder of string columns (§5.3), fed UTF-8 bytes.
typealias StringRLEEncoder = RLEEncoder<UnsafeBufferPointer<UInt8>>

extension RLEEncoder where V == UnsafeBufferPointer<UInt8> {
  /// Appends a string value.
  mutating func append(_ s: String) {
    var s = s
    s.withUTF8 { append($0) }
  }
}

/// The canonical RLE encoder (§5.3).
struct RLEEncoder<V: RLEValue>: ~Copyable {
  private enum State { case empty, nulls, lone, run, literal }
  private var out = ByteWriter()
  /// Values of the current literal run, except its last (held in `value`).
  private var scratch = ByteWriter()
  private var state = State.empty
  /// Null count, run length, or number of values in `scratch`.
  private var count = 0
  /// The pending value (meaningful in the lone, run and literal states).
  private var value = V.none
  private var leading = true

  init() {}

  mutating func appendNull() {
    switch state {
    case .empty:
      state = .nulls
      count = 1
      leading = true
      return
    case .nulls:
      count += 1
      return
    case .lone, .run, .literal:
      flushValue()
    }
    state = .nulls
    count = 1
    leading = false
  }

  /// Appends a value. A value equal to the run's (the common case: an actor, an action or
  /// a flag repeated op after op) only counts it, inlined where the encoder is used; every
  /// other case goes through `appendChangingState`.
  @inline(__always) mutating func append(_ x: V) {
    if state == .run && V.same(value, x) {
      count += 1
      return
    }
    appendChangingState(x)
  }

  @inline(never) private mutating func appendChangingState(_ x: V) {
    switch state {
    case .empty:
      break
    case .nulls:
      out.sleb(0)
      out.uleb(UInt64(count))
    case .lone:
      if V.same(value, x) {
        state = .run
        count = 2
      } else {
        scratch.removeAll()
        V.write(value, to: &scratch)
        count = 1
        state = .literal
        V.store(x, in: &value)
      }
      return
    case .run:
      if V.same(value, x) {
        count += 1
        return
      }
      flushValue()
    case .literal:
      if V.same(value, x) {
        out.sleb(-Int64(count))
        out.append(scratch)
        state = .run
        count = 2
        return
      }
      V.write(value, to: &scratch)
      count += 1
      V.store(x, in: &value)
      return
    }
    state = .lone
    V.store(x, in: &value)
  }

  /// Emits the pending lone value, run or literal.
  private mutating func flushValue() {
    switch state {
    case .lone:
      out.sleb(-1)
      V.write(value, to: &out)
    case .run:
      out.sleb(Int64(count))
      V.write(value, to: &out)
    case .literal:
      out.sleb(-Int64(count + 1))
      out.append(scratch)
      V.write(value, to: &out)
    default:
      return
    }
    state = .empty
  }

  /// Finishes the column and returns its bytes; the encoder is empty afterwards.
  mutating func take() -> [UInt8] {
    var w = ByteWriter()
    _ = flush(into: &w)
    return w.bytes
  }

  /// Finishes the column, appends its bytes to `w` and returns their count; the encoder
  /// is empty afterwards and keeps its buffers.
  mutating func flush(into w: inout ByteWriter) -> Int {
    let n = close()
    drain(into: &w)
    return n
  }

  /// Finishes the column in place and returns its byte count; `drain` then moves the bytes
  /// out. (A writer that needs every column's length before any column's bytes, as a
  /// change chunk's header does, closes them all first.)
  mutating func close() -> Int {
    switch state {
    case .empty: break
    case .nulls:
      if !leading {
        out.sleb(0)
        out.uleb(UInt64(count))
      }
    default: flushValue()
    }
    state = .empty
    count = 0
    leading = true
    return out.count
  }

  /// Appends the closed column's bytes to `sink`; the encoder is empty afterwards and
  /// keeps its buffers.
  @inline(__always) mutating func drain<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    out.drain(into: &sink)
  }
}

/// Delta encoding over `RLEEncoder<Int64>` (§5.6): nulls keep the accumulator.
struct DeltaEncoder: ~Copyable {
  private var rle = RLEEncoder<Int64>()
  private var previous: Int64 = 0

  init() {}

  mutating func appendNull() { rle.appendNull() }

  mutating func append(_ v: Int64) {
    rle.append(v &- previous)
    previous = v
  }

  mutating func take() -> [UInt8] {
    previous = 0
    return rle.take()
  }

  /// As `RLEEncoder.close`.
  mutating func close() -> Int {
    previous = 0
    return rle.close()
  }

  /// As `RLEEncoder.drain`.
  @inline(__always) mutating func drain<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    rle.drain(into: &sink)
  }
}

/// Boolean columns (§5.7): alternating run lengths, starting with false.
struct BooleanEncoder: ~Copyable {
  private var out = ByteWriter()
  private var current = false
  private var count: UInt64 = 0
  private var rows = 0
  /// Whether any row was true.
  private(set) var anyTrue = false

  init() {}

  @inline(__always) mutating func append(_ b: Bool) {
    rows += 1
    if b == current {
      count += 1
    } else {
      out.uleb(count)
      current = b
      count = 1
      anyTrue = true
    }
  }

  mutating func take() -> [UInt8] {
    var w = ByteWriter()
    _ = flush(into: &w)
    return w.bytes
  }

  /// Finishes the column into `w` (unless `keep` is false: then nothing is written) and
  /// returns the byte count written.
  mutating func flush(into w: inout ByteWriter, keep: Bool = true) -> Int {
    let n = close(keep: keep)
    drain(into: &w)
    return n
  }

  /// Finishes the column in place (unless `keep` is false: then it is dropped) and returns
  /// its byte count; `drain` then moves the bytes out (as `RLEEncoder.close`).
  mutating func close(keep: Bool = true) -> Int {
    if keep {
      if rows > 0 { out.uleb(count) }
    } else if !out.isEmpty {
      out.removeAll()
    }
    current = false
    count = 0
    rows = 0
    anyTrue = false
    return out.count
  }

  /// As `RLEEncoder.drain`.
  @inline(__always) mutating func drain<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    out.drain(into: &sink)
  }
}

/// Value metadata and raw value columns (§5.9).
struct ValueEncoder: ~Copyable {
  private var meta = RLEEncoder<UInt64>()
  private var raw = ByteWriter()
  private var scratch = ByteWriter()

  init() {}

  mutating func append(_ v: ScalarValue) {
    let code: UInt64
    let start = raw.count
    switch v {
    case .null: code = 0
    case .bool(let b): code = b ? 2 : 1
    case .uint(let u):
      code = 3
      raw.uleb(u)
    case .int(let i):
      code = 4
      raw.sleb(i)
    case .f64(let d):
      code = 5
      let bits = d.bitPattern
      for i in 0..<8 { raw.put(UInt8(truncatingIfNeeded: bits >> UInt64(8 * i))) }
    case .string(let s):
      code = 6
      var s = s
      s.withUTF8 { raw.put($0) }
    case .bytes(let b):
      code = 7
      raw.append(b)
    case .counter(let c):
      code = 8
      raw.sleb(c)
    case .timestamp(let t):
      code = 9
      raw.sleb(t)
    case .unknown(let c, let b):
      code = UInt64(c & 0x0f)
      raw.append(b)
    }
    meta.append(UInt64(raw.count - start) << 4 | code)
  }

  /// Appends a value already in its encoded form: the metadata word and its payload.
  @inline(__always) mutating func appendEncoded(meta m: UInt64, payload: UnsafeBufferPointer<UInt8>)
  {
    // Most payloads are a few bytes (a character, a small integer): appended one by one
    // they cost a fraction of `append(contentsOf:)`'s call.
    if payload.count <= 8 {
      for b in payload { raw.put(b) }
    } else {
      raw.put(payload)
    }
    meta.append(m)
  }

  /// Appends a null value.
  @inline(__always) mutating func appendNull() { meta.append(0) }

  /// The metadata and raw columns; the encoder is empty afterwards.
  mutating func take() -> (meta: [UInt8], raw: [UInt8]) {
    let r = raw.bytes
    raw.removeAll()
    return (meta.take(), r)
  }

  /// Finishes the metadata column in place, returning its length (as `RLEEncoder.close`).
  mutating func closeMeta() -> Int { meta.close() }

  /// The raw column's length so far.
  var rawCount: Int { raw.count }

  /// Appends the closed metadata column to `bytes` (as `RLEEncoder.drain`).
  @inline(__always) mutating func drainMeta<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    meta.drain(into: &sink)
  }

  /// Appends the raw column to `bytes`; the encoder's raw column is empty afterwards.
  @inline(__always) mutating func drainRaw<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    raw.drain(into: &sink)
  }
}
