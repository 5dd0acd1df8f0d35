import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct ColumnCodecTests {
  static let null = ColumnDecoder.nullUInt

  static let uintCases: [([UInt64?], String)] = [
    ([0, 0, 0, nil, nil, 1, 2, 3], "03 00 00 02 7d 01 02 03"),
    ([7], "7f 07"), ([1, 2, 2], "7f 01 02 02"), ([1, 1, 2], "02 01 7f 02"),
    ([nil, nil, 5], "00 02 7f 05"), ([5, nil, nil], "7f 05 00 02"), ([nil, nil], ""),
    ([0, 1, 2, 2, 2], "7e 00 01 03 02"), ([], ""),
  ]

  @Test(arguments: uintCases) func uintRLE(_ values: [UInt64?], _ bytes: String) throws {
    var e = RLEEncoder<UInt64>()
    for v in values { if let v { e.append(v) } else { e.appendNull() } }
    #expect(e.take() == hex(bytes))
    let decoded = try hex(bytes).withUnsafeBufferPointer {
      try ColumnDecoder.uint($0, limit: 100, spec: 2, chunk: 0)
    }
    // An all-null column is empty, so it decodes to no rows (absent rows read as null).
    let expected = values.allSatisfy { $0 == nil } ? [] : values.map { $0 ?? Self.null }
    #expect(decoded == expected)
  }

  @Test func stringRLE() throws {
    var e = StringRLEEncoder()
    for v: String? in ["a", "", nil, "boo", "boo"] {
      if let v { e.append(v) } else { e.appendNull() }
    }
    let bytes = e.take()
    #expect(bytes == hex("7e 01 61 00 00 01 02 03 62 6f 6f"))
    var table: [String] = []
    let idx = try bytes.withUnsafeBufferPointer {
      try ColumnDecoder.string($0, limit: 10, spec: 21, chunk: 0, table: &table)
    }
    #expect(idx.map { $0 < 0 ? nil : table[Int($0)] } == ["a", "", nil, "boo", "boo"])
  }

  @Test func stringsCompareByBytes() {
    // "é" precomposed and decomposed are equal Swift strings but different bytes.
    var e = StringRLEEncoder()
    e.append("\u{e9}")
    e.append("e\u{301}")
    #expect(e.take() == hex("7e 02 c3 a9 03 65 cc 81"))
  }

  static let deltaCases: [([Int64?], String)] = [
    ([3, 4, 5, 6, 9, 7, 8], "7f 03 03 01 7d 03 7e 01"),
    (
      [nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, 0, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      "00 0b 7e 00 03 08 01"
    ),
    ([1, nil, 2], "7f 01 00 01 7f 01"),
  ]

  @Test(arguments: deltaCases) func delta(_ values: [Int64?], _ bytes: String) throws {
    var e = DeltaEncoder()
    for v in values { if let v { e.append(v) } else { e.appendNull() } }
    #expect(e.take() == hex(bytes))
    let decoded = try hex(bytes).withUnsafeBufferPointer {
      try ColumnDecoder.delta($0, limit: 100, spec: 19, chunk: 0)
    }
    #expect(decoded == values.map { $0 ?? ColumnDecoder.nullInt })
  }

  static let boolCases: [([Bool], String)] = [
    ([true, true, false, false, false], "00 02 03"), ([false, false], "02"), ([true], "00 01"),
    ([], ""),
  ]

  @Test(arguments: boolCases) func boolean(_ values: [Bool], _ bytes: String) throws {
    var e = BooleanEncoder()
    for v in values { e.append(v) }
    #expect(e.take() == hex(bytes))
    let decoded = try hex(bytes).withUnsafeBufferPointer {
      try ColumnDecoder.boolean($0, limit: 100, spec: 52, chunk: 0)
    }
    #expect(decoded == values)
  }

  static let valueCases: [(ScalarValue, String, String)] = [
    (.string("b"), "7f 16", "62"), (.counter(2000), "7f 28", "d0 0f"), (.bool(true), "7f 02", ""),
    (.f64(3.14159267), "7f 85 01", "cd 06 78 56 fb 21 09 40"),
    (.uint(UInt64.max), "7f a3 01", "ff ff ff ff ff ff ff ff ff 01"),
    (.bytes([]), "7f 07", ""), (.null, "7f 00", ""), (.int(-4), "7f 14", "7c"),
    (.timestamp(-905182979000), "7f 69", "c8 b8 8f f7 d3 65"),
    (.unknown(code: 12, bytes: [1, 2]), "7f 2c", "01 02"),
  ]

  @Test(arguments: valueCases) func values(_ value: ScalarValue, _ meta: String, _ raw: String)
    throws
  {
    var e = ValueEncoder()
    e.append(value)
    let (m, r) = e.take()
    #expect(m == hex(meta))
    #expect(r == hex(raw))
    let word = try hex(meta).withUnsafeBufferPointer {
      try ColumnDecoder.uint($0, limit: 1, spec: 86, chunk: 0)
    }[0]
    let back = try r.withUnsafeBufferPointer {
      try ValueDecoder.decode(meta: word, raw: $0, start: 0, spec: 87, chunk: 0)
    }
    #expect(back == value)
  }

  static let badValues: [(UInt64, String)] = [
    (0x28, "d0 7f"),  // overlong counter
    (0x28, "10 7f"),  // counter with a spare byte
    (0x45, "00 00 00 00"),  // f64 of 4 bytes
    (0x26, "c3 28"),  // invalid utf-8
    (0x11, "00"),  // false with a payload
  ]

  @Test(arguments: badValues) func valueRejects(_ meta: UInt64, _ raw: String) {
    #expect(throws: AutomergeDecodeError.self) {
      try hex(raw).withUnsafeBufferPointer {
        try ValueDecoder.decode(meta: meta, raw: $0, start: 0, spec: 87, chunk: 0)
      }
    }
  }

  @Test func runsBeyondTheLimitAreRejected() {
    // A repeat run of 2^40 values, a null run of 2^40, and a literal longer than the data.
    for bytes in ["80 80 80 80 80 20 01", "00 80 80 80 80 80 20", "7d 01"] {
      #expect(throws: AutomergeDecodeError.self) {
        try hex(bytes).withUnsafeBufferPointer {
          try ColumnDecoder.uint($0, limit: 1000, spec: 2, chunk: 0)
        }
      }
    }
  }

  @Test func randomRoundTrips() throws {
    let seed: UInt64 = 42
    var rng = SplitMix64(state: seed)
    for _ in 0..<300 {
      let n = Int(rng.next() % 40)
      let values: [UInt64?] = (0..<n).map { _ in rng.next() % 4 == 0 ? nil : rng.next() % 3 }
      var e = RLEEncoder<UInt64>()
      for v in values { if let v { e.append(v) } else { e.appendNull() } }
      let bytes = e.take()
      let back = try bytes.withUnsafeBufferPointer {
        try ColumnDecoder.uint($0, limit: 100, spec: 2, chunk: 0)
      }
      var padded = back
      while padded.count < n { padded.append(Self.null) }
      #expect(padded == values.map { $0 ?? Self.null }, "seed \(seed)")
      // Canonical: re-encoding the decoded column gives the same bytes.
      var e2 = RLEEncoder<UInt64>()
      for v in padded { if v == Self.null { e2.appendNull() } else { e2.append(v) } }
      #expect(e2.take() == bytes, "seed \(seed)")
    }
  }
}
