import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// `Deflate` (zlib reads, libdeflate writes): what it writes inflates back, by itself and by
/// libdeflate; what it refuses, as the real Automerge does, and the room it grows into for a
/// stream that inflates far.
@Suite struct DeflateTests {
  /// Inputs with the ratios a document's columns have and more: incompressible bytes, text,
  /// a counter column's runs, and a megabyte of zeros (about 1,000:1, past four tries' room).
  static let inputs: [(String, [UInt8])] = {
    var state: UInt64 = 29
    let noise = (0..<300_000).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
    let text = Array(String(repeating: "Minuta keeps every record. ", count: 4_000).utf8)
    let runs = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 / 37) }
    return [
      ("noise", noise), ("text", text), ("runs", runs),
      ("zeros", [UInt8](repeating: 0, count: 1 << 20)), ("one byte", [7]),
    ]
  }()

  static func inflated(_ stream: [UInt8], limit: Int? = nil) -> (
    output: [UInt8]?, produced: Int, reason: String
  ) {
    stream.withUnsafeBufferPointer {
      Deflate.inflate($0, limit: limit ?? Deflate.outputLimit(forInput: $0.count))
    }
  }

  @Test(arguments: DeflateTests.inputs.map(\.0))
  func whatItWritesInflatesBackByItselfAndByLibdeflate(name: String) throws {
    let input = try #require(DeflateTests.inputs.first { $0.0 == name }?.1)
    let stream = Deflate.deflate(input)
    #expect(!stream.isEmpty)
    if input.count > 1000 && name != "noise" { #expect(stream.count < input.count / 4) }
    #expect(DeflateTests.inflated(stream).output == input)
    #expect(DocumentColumns.inflate(stream) == input)
  }

  @Test func aStreamWithBytesAfterItsEndIsRefused() {
    let stream = Deflate.deflate(DeflateTests.inputs[1].1) + [0]
    let result = DeflateTests.inflated(stream)
    #expect(result.output == nil)
    #expect(result.reason == "extra bytes after stream")
  }

  @Test func aTruncatedOrEmptyOrForeignStreamIsRefused() {
    let stream = Deflate.deflate(DeflateTests.inputs[1].1)
    for bad in [Array(stream.dropLast(2)), [], [0xff, 0xff, 0xff, 0xff], [0x06]] {
      let result = DeflateTests.inflated(bad)
      #expect(result.output == nil, "\(bad.prefix(4))")
      #expect(!result.reason.isEmpty)
    }
    #expect(throws: AutomergeDecodeError.self) {
      try [UInt8](stream.dropLast(2)).withUnsafeBufferPointer {
        try Deflate.inflate($0, offset: 0)
      }
    }
  }

  /// The bits of a DEFLATE stream (RFC 1951, 3.1.1): header fields least significant bit
  /// first, Huffman codes most significant bit first; the last byte padded with zeros.
  struct Bits {
    var bits: [Bool] = []
    mutating func field(_ value: Int, _ count: Int) {
      for i in 0..<count { bits.append(value >> i & 1 == 1) }
    }
    mutating func code(_ symbol: (code: Int, length: Int)) {
      for i in (0..<symbol.length).reversed() { bits.append(symbol.code >> i & 1 == 1) }
    }
    var bytes: [UInt8] {
      stride(from: 0, to: bits.count, by: 8).map { start in
        bits[start..<min(start + 8, bits.count)].enumerated().reduce(0) {
          $0 | ($1.element ? 1 << $1.offset : 0)
        }
      }
    }
  }

  /// The canonical Huffman code of `lengths` (RFC 1951, 3.2.2): each symbol's code and
  /// length (0 for a symbol without one).
  static func canonical(_ lengths: [Int]) -> [(code: Int, length: Int)] {
    let longest = lengths.max() ?? 0
    var count = [Int](repeating: 0, count: longest + 1)
    for length in lengths where length > 0 { count[length] += 1 }
    var next = [Int](repeating: 0, count: longest + 1)
    var code = 0
    for length in stride(from: 1, through: longest, by: 1) {
      code = (code + count[length - 1]) << 1
      next[length] = code
    }
    return lengths.map { length in
      guard length > 0 else { return (0, 0) }
      defer { next[length] += 1 }
      return (next[length], length)
    }
  }

  /// One fixed-Huffman block: the literal "a", a match of length 258 at distance 1 (code 0),
  /// the end of the block; the length is said with `symbol`. 285 is length 258; 286 and 287
  /// have codes in the fixed table but no meaning (RFC 1951, 3.2.6). libdeflate inflates them
  /// as 258; zlib and both oracles refuse them (Tests/Fixtures/malformed/README.md).
  static func fixedBlock(lengthSymbol symbol: Int) -> [UInt8] {
    let literals = canonical(
      [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
        + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8))
    var bits = Bits()
    bits.field(1, 1)  // the last block
    bits.field(1, 2)  // fixed Huffman codes
    bits.code(literals[0x61])
    bits.code(literals[symbol])
    bits.code((0, 5))  // distance code 0: distance 1
    bits.code(literals[256])
    return bits.bytes
  }

  /// One dynamic-Huffman block holding `text` as literals, whose header declares the code
  /// lengths given: as many literal/length and distance codes as there are lengths (RFC
  /// 1951 allows 257-286 and 1-32). Two to four lengths may be used: the code-length code
  /// gives them 1 and 1, 1, 2 and 2, or 2 bits each.
  static func dynamicBlock(_ text: [UInt8], literals: [Int], distances: [Int]) -> [UInt8] {
    let lengths = literals + distances
    let used = Set(lengths).sorted()
    var precode = [Int](repeating: 0, count: 19)
    for (length, bits) in zip(used, [[1, 1], [1, 2, 2], [2, 2, 2, 2]][used.count - 2]) {
      precode[length] = bits
    }
    let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    let sent = max(4, (order.lastIndex { precode[$0] > 0 } ?? 0) + 1)
    var bits = Bits()
    bits.field(1, 1)  // the last block
    bits.field(2, 2)  // dynamic Huffman codes
    bits.field(literals.count - 257, 5)
    bits.field(distances.count - 1, 5)
    bits.field(sent - 4, 4)
    for symbol in order.prefix(sent) { bits.field(precode[symbol], 3) }
    let lengthCode = canonical(precode)
    for length in lengths { bits.code(lengthCode[length]) }
    let literalCode = canonical(literals)
    for byte in text { bits.code(literalCode[Int(byte)]) }
    bits.code(literalCode[256])
    return bits.bytes
  }

  /// Literal/length code lengths: 256 literals of 9 bits, then the rest to fill the code
  /// (286 codes: 28 of 6 bits and 2 of 5; 288: 32 of 6 bits).
  static let literals286 =
    [Int](repeating: 9, count: 256) + [Int](repeating: 6, count: 28) + [5, 5]
  static let literals288 = [Int](repeating: 9, count: 256) + [Int](repeating: 6, count: 32)
  /// Distance code lengths: 30 codes (28 of 5 bits, 2 of 4), and 32 codes of 5 bits.
  static let distances30 = [Int](repeating: 5, count: 28) + [4, 4]
  static let distances32 = [Int](repeating: 5, count: 32)

  /// A header that declares more codes than zlib takes (288 literal/length, or 32 distance
  /// codes; the symbols past 285 and 29 not used) is read, as the reference reads it; the
  /// same block with 286 and 30 codes reads through zlib.
  @Test(arguments: [(286, 30), (288, 30), (286, 32), (288, 32)])
  func headersDeclaringMoreCodesThanZlibTakesAreRead(literals: Int, distances: Int) {
    let text = Array(String(repeating: "Minuta keeps every record. ", count: 3).utf8)
    let stream = DeflateTests.dynamicBlock(
      text, literals: literals == 286 ? DeflateTests.literals286 : DeflateTests.literals288,
      distances: distances == 30 ? DeflateTests.distances30 : DeflateTests.distances32)
    #expect(DeflateTests.inflated(stream).output == text)
  }

  @Test func reservedLengthSymbolsAreRefusedAsTheReferenceRefusesThem() {
    #expect(DeflateTests.fixedBlock(lengthSymbol: 285) == [0x4b, 0x1c, 0x05, 0x00])
    #expect(
      DeflateTests.inflated(DeflateTests.fixedBlock(lengthSymbol: 285)).output
        == [UInt8](repeating: 0x61, count: 259))
    for symbol in [286, 287] {
      let stream = DeflateTests.fixedBlock(lengthSymbol: symbol)
      let result = DeflateTests.inflated(stream)
      #expect(result.output == nil, "length symbol \(symbol)")
      #expect(result.reason == "invalid data")
      // The reason mn does not inflate with libdeflate.
      #expect(DocumentColumns.inflate(stream)?.count == 259)
    }
  }

  @Test func aStreamThatInflatesPastItsLimitIsRefusedAtTheLimit() {
    let stream = Deflate.deflate([UInt8](repeating: 0, count: 1 << 20))
    let result = DeflateTests.inflated(stream, limit: 100_000)
    #expect(result.output == nil)
    #expect(result.reason == "inflated data too large")
    #expect(result.produced == 100_000)
    // Exactly its length is enough.
    #expect(DeflateTests.inflated(stream, limit: 1 << 20).output?.count == 1 << 20)
  }
}

/// A document chunk's columns (`DocumentChunk.columnBytes`): with
/// `DocumentChunk.parallelInflateBytes` deflated bytes or more they are inflated in two
/// groups at once; each comes back in its place, and the error is the first column's, in
/// column order, whichever group it was in.
@Suite struct ColumnInflationTests {
  /// Four columns in one buffer: a plain one, two deflated ones that each hold half the
  /// deflated bytes (so they go to different groups), and a small deflated one.
  static let contents: [[UInt8]] = {
    var state: UInt64 = 7
    func noise(_ count: Int) -> [UInt8] {
      (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
      }
    }
    let half = DocumentChunk.parallelInflateBytes / 2 + 1000
    return [noise(300), noise(half), noise(half + 10), Array(repeating: 9, count: 5000)]
  }()

  /// The buffer and the columns' entries; the columns at `damaged` have their first byte
  /// made a block of the reserved type 3.
  static func columns(damaged: Set<Int> = []) -> ([UInt8], [ColumnEntry]) {
    var buffer: [UInt8] = []
    var entries: [ColumnEntry] = []
    for (i, content) in contents.enumerated() {
      var stored = i == 0 ? content : Deflate.deflate(content)
      if damaged.contains(i) { stored[0] = 0x07 }
      entries.append(
        ColumnEntry(
          spec: UInt32(i) << 4, deflated: i != 0,
          range: buffer.count..<(buffer.count + stored.count)))
      buffer += stored
    }
    return (buffer, entries)
  }

  @Test func everyColumnComesBackInItsPlace() throws {
    let (buffer, entries) = Self.columns()
    let deflatedBytes = entries.dropFirst().reduce(0) { $0 + $1.range.count }
    #expect(deflatedBytes >= DocumentChunk.parallelInflateBytes)
    let bytes = try buffer.withUnsafeBufferPointer { try DocumentChunk.columnBytes($0, entries) }
    #expect(bytes == Self.contents)
  }

  /// A damaged column in one group, in the other, in both.
  @Test(arguments: [[1], [2], [1, 2], [2, 3]])
  func theFirstDamagedColumnIsTheOneReported(damaged: [Int]) throws {
    let (buffer, entries) = Self.columns(damaged: Set(damaged))
    let first = entries[damaged.min() ?? 0].range.lowerBound
    do {
      _ = try buffer.withUnsafeBufferPointer { try DocumentChunk.columnBytes($0, entries) }
      Issue.record("a damaged column was inflated")
    } catch AutomergeDecodeError.corruptDeflate(_, let offset) {
      #expect(offset == first)
    }
  }
}

/// Documents whose deflated columns' headers declare more codes than zlib takes
/// (`Tests/Fixtures/deflate-headers`): the reference loads them, and so does the codec.
@Suite struct DeflateHeaderFixtureTests {
  @Test(arguments: Fixture.files("deflate-headers"))
  func loadsWithItsHeads(_ rel: String) throws {
    let file = try AutomergeFile.decode(Fixture.bytes(rel))
    #expect(
      file.heads.map(\.description)
        == ["cbbfc962f1bba23c16c3dc5dc88e654ddde37901361274c3c7fe0a933e68ba45"])
  }
}
