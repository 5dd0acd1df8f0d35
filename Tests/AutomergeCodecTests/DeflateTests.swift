import TestSupport
import Testing

@testable import AutomergeCodec

/// `Deflate` (libdeflate): what it writes inflates back, by itself and by zlib; what it
/// refuses, and the room it grows into for a stream that inflates far.
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
  func whatItWritesInflatesBackByItselfAndByZlib(name: String) throws {
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
