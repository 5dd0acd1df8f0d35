/// Decoders for the column encodings of §5.3 to §5.10, into flat arrays.
///
/// Nulls are represented by sentinels so that a column is one flat array with no optionals:
/// `ColumnDecoder.nullUInt` (`UInt64.max`) for uLEB columns and `nullInt` (`Int64.min`) for
/// delta columns. Both sentinels lie outside every domain the codec accepts (counters and
/// actor indices fit 32 bits, actions are 0 to 7, value metadata lengths are checked against
/// the payload), so a real value equal to a sentinel is rejected as out of domain later.
///
/// Every decoder takes `limit`, the most rows the column may hold; a run that would pass it
/// is an error, so a hostile run length never allocates. Errors are thrown as
/// `invalidColumn(spec:reason:chunkOffset:)`.
enum ColumnDecoder {
  static let nullUInt = UInt64.max
  static let nullInt = Int64.min

  /// The common failure: wraps a reader error or a message with the column's subject.
  static func fail(_ spec: UInt32, _ chunk: Int, _ reason: String) -> AutomergeDecodeError {
    .invalidColumn(spec: spec, reason: reason, chunkOffset: chunk)
  }

  @inline(__always)
  static func wrap<T>(_ spec: UInt32, _ chunk: Int, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as AutomergeDecodeError {
      if case .invalidColumn = e { throw e }
      throw fail(spec, chunk, e.description)
    }
  }

  /// Reads a run header (§5.3) and checks that its length fits in `room`.
  @inline(__always)
  static func runLength(_ r: inout ByteReader, _ room: Int, _ spec: UInt32, _ chunk: Int) throws
    -> Int64
  {
    let n = try r.sleb("run length")
    if n > 0 {
      guard n <= Int64(room) else { throw fail(spec, chunk, "more values than rows") }
    } else if n < 0 {
      guard n >= -Int64(room) else { throw fail(spec, chunk, "more values than rows") }
    }
    return n
  }

  /// RLE of uLEB values (types 0, 1, 2 and 6).
  static func uint(
    _ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int, expected: Int = 0
  ) throws -> [UInt64] {
    try wrap(spec, chunk) {
      var r = ByteReader(data)
      var out: [UInt64] = []
      if !data.isEmpty { out.reserveCapacity(min(expected, limit)) }
      while !r.isAtEnd {
        let n = try runLength(&r, limit - out.count, spec, chunk)
        if n > 0 {
          let v = try r.uleb()
          out.append(contentsOf: repeatElement(v, count: Int(n)))
        } else if n < 0 {
          for _ in 0..<Int(-n) { out.append(try r.uleb()) }
        } else {
          let k = try r.uleb("null run")
          guard k <= UInt64(limit - out.count) else {
            throw fail(spec, chunk, "more values than rows")
          }
          out.append(contentsOf: repeatElement(nullUInt, count: Int(k)))
        }
      }
      return out
    }
  }

  /// RLE of uLEB values, as `uint` (same checks, same errors), at 4 bytes a row.
  static func packedUInt(
    _ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int, expected: Int = 0
  ) throws -> PackedUInts {
    try wrap(spec, chunk) {
      var r = ByteReader(data)
      var out = PackedUInts()
      if !data.isEmpty { out.rows.reserveCapacity(min(expected, limit)) }
      while !r.isAtEnd {
        let n = try runLength(&r, limit - out.count, spec, chunk)
        if n > 0 {
          let v = try r.uleb()
          out.append(v, count: Int(n))
        } else if n < 0 {
          for _ in 0..<Int(-n) { out.append(try r.uleb(), count: 1) }
        } else {
          let k = try r.uleb("null run")
          guard k <= UInt64(limit - out.count) else {
            throw fail(spec, chunk, "more values than rows")
          }
          out.append(nullUInt, count: Int(k))
        }
      }
      return out
    }
  }

  /// RLE of sLEB deltas, accumulated from 0; nulls keep the accumulator (type 3, §5.6).
  static func delta(
    _ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int, expected: Int = 0
  ) throws -> [Int64] {
    try wrap(spec, chunk) {
      var r = ByteReader(data)
      var out: [Int64] = []
      if !data.isEmpty { out.reserveCapacity(min(expected, limit)) }
      var acc: Int64 = 0
      while !r.isAtEnd {
        let n = try runLength(&r, limit - out.count, spec, chunk)
        if n > 0 {
          let d = try r.sleb()
          for _ in 0..<Int(n) {
            acc = acc &+ d
            out.append(acc)
          }
        } else if n < 0 {
          for _ in 0..<Int(-n) {
            acc = acc &+ (try r.sleb())
            out.append(acc)
          }
        } else {
          let k = try r.uleb("null run")
          guard k <= UInt64(limit - out.count) else {
            throw fail(spec, chunk, "more values than rows")
          }
          out.append(contentsOf: repeatElement(nullInt, count: Int(k)))
        }
      }
      return out
    }
  }

  /// Alternating run lengths starting with false (type 4, §5.7).
  static func boolean(
    _ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int, expected: Int = 0
  ) throws -> [Bool] {
    try wrap(spec, chunk) {
      var r = ByteReader(data)
      var out: [Bool] = []
      if !data.isEmpty { out.reserveCapacity(min(expected, limit)) }
      var value = false
      while !r.isAtEnd {
        let k = try r.uleb("boolean run")
        guard k <= UInt64(limit - out.count) else {
          throw fail(spec, chunk, "more values than rows")
        }
        out.append(contentsOf: repeatElement(value, count: Int(k)))
        value.toggle()
      }
      return out
    }
  }

  /// RLE of length-prefixed UTF-8 strings (type 5, §5.8).
  ///
  /// - Returns: per row an index into `table` (-1 for null); each run adds one entry, so
  ///   repeated values share one `String`.
  static func string(
    _ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int, table: inout [String],
    expected: Int = 0
  ) throws -> [Int32] {
    try wrap(spec, chunk) {
      var r = ByteReader(data)
      var out: [Int32] = []
      if !data.isEmpty { out.reserveCapacity(min(expected, limit)) }
      while !r.isAtEnd {
        let n = try runLength(&r, limit - out.count, spec, chunk)
        if n > 0 {
          table.append(try r.string("string value"))
          out.append(contentsOf: repeatElement(Int32(table.count - 1), count: Int(n)))
        } else if n < 0 {
          for _ in 0..<Int(-n) {
            table.append(try r.string("string value"))
            out.append(Int32(table.count - 1))
          }
        } else {
          let k = try r.uleb("null run")
          guard k <= UInt64(limit - out.count) else {
            throw fail(spec, chunk, "more values than rows")
          }
          out.append(contentsOf: repeatElement(-1, count: Int(k)))
        }
      }
      return out
    }
  }
}

/// A value an RLE column holds, as its bytes spell it: uLEB (§5.3) or, in a delta
/// column's runs, sLEB (§5.6).
protocol RunValue {
  static func read(_ reader: inout ByteReader) throws -> Self
}

extension UInt64: RunValue {
  @inline(__always) static func read(_ reader: inout ByteReader) throws -> UInt64 {
    try reader.uleb()
  }
}

extension Int64: RunValue {
  @inline(__always) static func read(_ reader: inout ByteReader) throws -> Int64 {
    try reader.sleb()
  }
}

/// The runs of one RLE column read a row at a time (§5.3), with the checks and errors of
/// `ColumnDecoder.uint` and `ColumnDecoder.delta`; the two cursors below are built on it.
/// Past the column's end every row reads as null (a short column is null there).
///
/// The reader borrows the column's bytes: make and use it inside their
/// `withUnsafeBufferPointer`.
struct RunCursor<Value: RunValue> {
  private var reader: ByteReader
  private let spec: UInt32
  private let chunk: Int
  /// The rows the column may still hold: its row limit less the rows of the runs read.
  private var room: Int
  /// The rows left in the current run, and what they hold.
  private var left = 0
  private enum Run { case repeated, literal, null }
  private var run = Run.null
  /// A repeated run's value.
  private var value: Value?
  /// The rows read that the column's bytes held (the rest read as null).
  private(set) var rows = 0

  /// A cursor over one column's bytes.
  ///
  /// - Parameters:
  ///   - data: The column's bytes.
  ///   - limit: The most rows the column may hold; a run past it is an error.
  ///   - spec: The column's specification, for errors.
  ///   - chunk: The chunk's offset in the file, for errors.
  init(_ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int) {
    reader = ByteReader(data)
    self.spec = spec
    self.chunk = chunk
    room = limit
  }

  /// Whether the column's bytes hold another row.
  mutating func hasNext() throws -> Bool {
    if left > 0 { return true }
    return try startRun()
  }

  /// The next row's value; nil for a null and past the column's end.
  @inline(__always) mutating func next() throws -> Value? {
    if left == 0 {
      guard try startRun() else { return nil }
    }
    left -= 1
    rows += 1
    switch run {
    case .repeated: return value
    case .literal: return try ColumnDecoder.wrap(spec, chunk) { try Value.read(&reader) }
    case .null: return nil
    }
  }

  /// The rows the column's bytes hold after those read, read to the end with the checks
  /// of `next`.
  mutating func countRemaining() throws -> Int {
    var count = 0
    while try startRun() {
      count += left
      if run == .literal {
        for _ in 0..<left { _ = try ColumnDecoder.wrap(spec, chunk) { try Value.read(&reader) } }
      }
      rows += left
      left = 0
    }
    return count
  }

  /// Checks that the column holds no row past those read (zero-length runs aside).
  mutating func finish() throws {
    guard try !hasNext() else {
      throw ColumnDecoder.fail(spec, chunk, "more values than rows")
    }
  }

  /// Reads the next run header with a non-zero length; false at the column's end.
  private mutating func startRun() throws -> Bool {
    while left == 0 {
      if reader.isAtEnd { return false }
      try ColumnDecoder.wrap(spec, chunk) {
        let n = try ColumnDecoder.runLength(&reader, room, spec, chunk)
        if n > 0 {
          value = try Value.read(&reader)
          run = .repeated
          left = Int(n)
        } else if n < 0 {
          run = .literal
          left = Int(-n)
        } else {
          let k = try reader.uleb("null run")
          guard k <= UInt64(room) else {
            throw ColumnDecoder.fail(spec, chunk, "more values than rows")
          }
          run = .null
          left = Int(k)
        }
      }
      room -= left
    }
    return true
  }
}

/// One RLE column of uLEB values (§5.3; types 0, 1, 2 and 6) read a row at a time, with the
/// checks and errors of `ColumnDecoder.uint`: for decoding a column straight into the form
/// its caller keeps (a narrower integer, a packed id), without a temporary array of 8-byte
/// values.
struct UIntColumnCursor {
  private var runs: RunCursor<UInt64>

  init(_ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int) {
    runs = RunCursor(data, limit: limit, spec: spec, chunk: chunk)
  }

  /// The rows read that the column's bytes held (the rest read as null).
  var rows: Int { runs.rows }

  /// Whether the column's bytes hold another row.
  mutating func hasNext() throws -> Bool { try runs.hasNext() }

  /// The next row's value; `nullUInt` for a null and past the column's end.
  @inline(__always) mutating func next() throws -> UInt64 {
    try runs.next() ?? ColumnDecoder.nullUInt
  }

  /// Checks that the column holds no row past those read (zero-length runs aside).
  mutating func finish() throws { try runs.finish() }
}

/// One delta column (§5.6; type 3) read a row at a time, with the checks and errors of
/// `ColumnDecoder.delta` (as `UIntColumnCursor` is to `ColumnDecoder.uint`): nulls, and every
/// row past the column's end, read as `nullInt` and keep the accumulator.
struct DeltaColumnCursor {
  private var runs: RunCursor<Int64>
  private var accumulator: Int64 = 0

  init(_ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int) {
    runs = RunCursor(data, limit: limit, spec: spec, chunk: chunk)
  }

  /// The rows read that the column's bytes held (the rest read as null).
  var rows: Int { runs.rows }

  /// Whether the column's bytes hold another row.
  mutating func hasNext() throws -> Bool { try runs.hasNext() }

  /// The next row's value; `nullInt` for a null and past the column's end.
  @inline(__always) mutating func next() throws -> Int64 {
    guard let delta = try runs.next() else { return ColumnDecoder.nullInt }
    accumulator = accumulator &+ delta
    return accumulator
  }

  /// Checks that the column holds no row past those read (zero-length runs aside).
  mutating func finish() throws { try runs.finish() }

  /// The rows of a delta column, counted with the checks of `next` (for an array sized
  /// before its rows are read).
  static func rows(_ data: UnsafeBufferPointer<UInt8>, limit: Int, spec: UInt32, chunk: Int)
    throws -> Int
  {
    var runs = RunCursor<Int64>(data, limit: limit, spec: spec, chunk: chunk)
    return try runs.countRemaining()
  }
}

/// A decoded uLEB column at 2 bytes a row: values of `UInt16.max` and above (the null
/// sentinel `ColumnDecoder.nullUInt` included) are stored as `UInt16.max` in `rows` and
/// kept aside in `wide`, one entry per run, in row order. The columns kept this way (value
/// metadata, successor counts, the ops' actor indices and object numbers) hold small
/// numbers: a value's metadata reaches `UInt16.max` only for a payload of 4 KiB, an actor
/// index in a document of as many actors.
struct PackedUInts {
  var rows: [UInt16] = []
  var wide: [(start: Int, count: Int, value: UInt64)] = []

  var count: Int { rows.count }
  var isEmpty: Bool { rows.isEmpty }

  /// The value of row `i` (`i < count`).
  @inline(__always) subscript(_ i: Int) -> UInt64 {
    let v = rows[i]
    return v != UInt16.max ? UInt64(v) : wideValue(i)
  }

  private func wideValue(_ i: Int) -> UInt64 {
    var lo = 0
    var hi = wide.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if wide[mid].start <= i { lo = mid + 1 } else { hi = mid }
    }
    return lo > 0 ? wide[lo - 1].value : UInt64(UInt16.max)
  }

  /// Appends one row holding `v`.
  @inline(__always) mutating func append(_ v: UInt64) {
    guard v < UInt64(UInt16.max) else { return append(v, count: 1) }
    rows.append(UInt16(v))
  }

  /// Appends `n` rows holding `v`; wide rows that continue the last run of the same value
  /// join its entry.
  mutating func append(_ v: UInt64, count n: Int) {
    guard n > 0 else { return }
    if v < UInt64(UInt16.max) {
      rows.append(contentsOf: repeatElement(UInt16(v), count: n))
    } else {
      if let last = wide.last, last.value == v, last.start + last.count == rows.count {
        wide[wide.count - 1].count += n
      } else {
        wide.append((rows.count, n, v))
      }
      rows.append(contentsOf: repeatElement(UInt16.max, count: n))
    }
  }
}

/// Decoding one value from its metadata word and payload (§5.9).
enum ValueDecoder {
  /// Checks the value that `decode` would decode, with the same errors, without building it
  /// (no allocation for strings and bytes). A valid value re-encodes to its own bytes.
  @inline(__always)
  static func validate(
    meta: UInt64, raw: UnsafeBufferPointer<UInt8>, start: Int, spec: UInt32, chunk: Int
  ) throws {
    switch meta & 0x0f {
    case 6:
      let length = Int(truncatingIfNeeded: meta >> 4)
      let payload = UnsafeBufferPointer(rebasing: raw[start..<(start + length)])
      guard UTF8Validation.isValidOrASCII(payload) else {
        throw ColumnDecoder.fail(spec, chunk, "invalid utf-8 in string value")
      }
    case 7, 10...15: return
    default: _ = try decode(meta: meta, raw: raw, start: start, spec: spec, chunk: chunk)
    }
  }

  /// Decodes the payload `raw[start..<start+length]` described by metadata word `meta`.
  ///
  /// Uint, int, counter and timestamp payloads must be exactly one minimal LEB filling the
  /// declared length; an f64 must be 8 bytes; a string must be valid UTF-8.
  static func decode(
    meta: UInt64, raw: UnsafeBufferPointer<UInt8>, start: Int, spec: UInt32, chunk: Int
  ) throws -> ScalarValue {
    let code = UInt8(meta & 0x0f)
    let length = Int(truncatingIfNeeded: meta >> 4)
    let payload = UnsafeBufferPointer(rebasing: raw[start..<(start + length)])
    func leb<T>(_ read: (inout ByteReader) throws -> T) throws -> T {
      return try ColumnDecoder.wrap(spec, chunk) {
        var r = ByteReader(payload)
        let v = try read(&r)
        guard r.isAtEnd else { throw ColumnDecoder.fail(spec, chunk, "extra bytes in value") }
        return v
      }
    }
    switch code {
    case 0, 1, 2:
      guard length == 0 else {
        throw ColumnDecoder.fail(spec, chunk, "value of type \(code) with a payload")
      }
      return code == 0 ? .null : .bool(code == 2)
    case 3: return .uint(try leb { try $0.uleb() })
    case 4: return .int(try leb { try $0.sleb() })
    case 5:
      guard length == 8 else { throw ColumnDecoder.fail(spec, chunk, "f64 of \(length) bytes") }
      var bits: UInt64 = 0
      for i in 0..<8 { bits |= UInt64(payload[i]) << UInt64(8 * i) }
      return .f64(Double(bitPattern: bits))
    case 6:
      guard let s = UTF8Validation.string(payload) else {
        throw ColumnDecoder.fail(spec, chunk, "invalid utf-8 in string value")
      }
      return .string(s)
    case 7: return .bytes(Array(payload))
    case 8: return .counter(try leb { try $0.sleb() })
    case 9: return .timestamp(try leb { try $0.sleb() })
    default: return .unknown(code: code, bytes: Array(payload))
    }
  }
}
