import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// The row-at-a-time column readers that `Reconstruction.decodeOpColumns` uses must read
/// exactly what the array decoders read, and refuse what they refuse, with the same error.
@Suite struct ColumnCursorTests {
  static let null = ColumnDecoder.nullUInt

  /// `rows` rows through a `UIntColumnCursor`, then its end check.
  static func uintRows(_ bytes: [UInt8], rows: Int) throws -> (values: [UInt64], held: Int) {
    try bytes.withUnsafeBufferPointer { b in
      var c = UIntColumnCursor(b, limit: rows, spec: 2, chunk: 0)
      var out: [UInt64] = []
      for _ in 0..<rows { out.append(try c.next()) }
      try c.finish()
      return (out, c.rows)
    }
  }

  static func deltaRows(_ bytes: [UInt8], rows: Int) throws -> (values: [Int64], held: Int) {
    try bytes.withUnsafeBufferPointer { b in
      var c = DeltaColumnCursor(b, limit: rows, spec: 19, chunk: 0)
      var out: [Int64] = []
      for _ in 0..<rows { out.append(try c.next()) }
      try c.finish()
      return (out, c.rows)
    }
  }

  @Test func uintCursorAgreesWithTheArrayDecoder() throws {
    var rng = SplitMix64(state: 19)
    for _ in 0..<400 {
      let n = Int(rng.next() % 40)
      let values: [UInt64?] = (0..<n).map { _ in
        rng.next() % 4 == 0 ? nil : (rng.next() % 5 == 0 ? rng.next() : rng.next() % 3)
      }
      var e = RLEEncoder<UInt64>()
      for v in values { if let v { e.append(v) } else { e.appendNull() } }
      let bytes = e.take()
      let array = try bytes.withUnsafeBufferPointer {
        try ColumnDecoder.uint($0, limit: n, spec: 2, chunk: 0)
      }
      // Asked for more rows than the column holds, the cursor reads nulls past its end.
      let (rows, held) = try Self.uintRows(bytes, rows: n + 3)
      #expect(held == array.count)
      #expect(rows == array + Array(repeating: Self.null, count: n + 3 - array.count))
      #expect(Array(rows.prefix(n)) == values.map { $0 ?? Self.null })
    }
  }

  @Test func deltaCursorAgreesWithTheArrayDecoder() throws {
    var rng = SplitMix64(state: 20)
    for _ in 0..<400 {
      let n = Int(rng.next() % 40)
      var acc: Int64 = 0
      let values: [Int64?] = (0..<n).map { _ in
        if rng.next() % 4 == 0 { return nil }
        acc += Int64(rng.next() % 7) - 2
        return acc
      }
      var e = DeltaEncoder()
      for v in values { if let v { e.append(v) } else { e.appendNull() } }
      let bytes = e.take()
      let array = try bytes.withUnsafeBufferPointer {
        try ColumnDecoder.delta($0, limit: n, spec: 19, chunk: 0)
      }
      let (rows, held) = try Self.deltaRows(bytes, rows: n + 2)
      #expect(held == array.count)
      let counted = try bytes.withUnsafeBufferPointer {
        try DeltaColumnCursor.rows($0, limit: n, spec: 19, chunk: 0)
      }
      #expect(counted == array.count)
      #expect(rows == array + Array(repeating: ColumnDecoder.nullInt, count: n + 2 - array.count))
      #expect(Array(rows.prefix(n)) == values.map { $0 ?? ColumnDecoder.nullInt })
    }
  }

  /// Malformed columns, each read as 3 rows: a run past the rows (repeat, literal, null, or
  /// in a later run), a truncated literal, an overlong LEB, a truncated run header; and
  /// zero-length null runs, which both accept.
  static let columns = [
    "04 01", "7c 01 02 03 04", "00 04", "7f 01 7f 02 7f 03 7f 04", "7f 01 02 05", "7d 01",
    "7f 81 00", "80", "7f 01 00 00 7f 02 00 00", "00 00", "03 80 80 80 80 80 80 80 80 80 02",
  ]

  @Test(arguments: columns) func cursorsRefuseWhatTheArrayDecodersRefuse(_ column: String)
    throws
  {
    let bytes = hex(column)
    func outcome<T>(_ body: () throws -> T) -> String {
      do { return "\(try body())" } catch { return "error: \(error)" }
    }
    let uintArray = outcome {
      try bytes.withUnsafeBufferPointer {
        try ColumnDecoder.uint($0, limit: 3, spec: 2, chunk: 0)
      }
    }
    let uintCursor = outcome { try Self.uintRows(bytes, rows: 3).values }
    #expect(uintArray.hasPrefix("error") == uintCursor.hasPrefix("error"))
    if uintArray.hasPrefix("error") { #expect(uintCursor == uintArray) }
    let deltaArray = outcome {
      try bytes.withUnsafeBufferPointer {
        try ColumnDecoder.delta($0, limit: 3, spec: 19, chunk: 0)
      }
    }
    let deltaCursor = outcome { try Self.deltaRows(bytes, rows: 3).values }
    #expect(deltaArray.hasPrefix("error") == deltaCursor.hasPrefix("error"))
    if deltaArray.hasPrefix("error") { #expect(deltaCursor == deltaArray) }
    // Counting the rows (to size an array first) refuses the same columns, the same way.
    let deltaCount = outcome {
      try bytes.withUnsafeBufferPointer {
        try DeltaColumnCursor.rows($0, limit: 3, spec: 19, chunk: 0)
      }
    }
    #expect(deltaCount.hasPrefix("error") == deltaArray.hasPrefix("error"))
    if deltaArray.hasPrefix("error") { #expect(deltaCount == deltaArray) }
  }

  /// Rows appended one at a time read back as appended, the wide ones (`UInt16.max` and
  /// above) kept aside with one entry per run of equal ones, as runs appended whole keep
  /// them.
  @Test func packedRowsAppendedOneAtATimeReadBack() {
    var rng = SplitMix64(state: 21)
    for _ in 0..<200 {
      let n = Int(rng.next() % 60)
      let choices: [UInt64] = [0, 1, 7, 65_534, 65_535, 65_536, 1 << 40, Self.null]
      var values: [UInt64] = []
      while values.count < n {
        let v = choices[Int(rng.next() % UInt64(choices.count))]
        values += repeatElement(v, count: Int(rng.next() % 4) + 1)
      }
      var packed = PackedUInts()
      var runs = PackedUInts()
      var i = 0
      for v in values { packed.append(v) }
      while i < values.count {
        var j = i
        while j < values.count && values[j] == values[i] { j += 1 }
        runs.append(values[i], count: j - i)
        i = j
      }
      #expect((0..<values.count).map { packed[$0] } == values)
      #expect(packed.rows == runs.rows)
      #expect(packed.wide.map(\.start) == runs.wide.map(\.start))
      #expect(packed.wide.map(\.count) == runs.wide.map(\.count))
    }
  }

  @Test func aShortColumnIsNullPastItsEnd() throws {
    let (rows, held) = try Self.uintRows(hex("7f 05"), rows: 3)
    #expect(rows == [5, Self.null, Self.null])
    #expect(held == 1)
  }
}
