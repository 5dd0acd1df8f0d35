import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct LEB128Tests {
  static let unsigned: [(UInt64, String)] = [
    (0, "00"), (127, "7f"), (128, "80 01"), (300, "ac 02"), (16383, "ff 7f"),
    (UInt64.max, "ff ff ff ff ff ff ff ff ff 01"),
  ]
  static let signed: [(Int64, String)] = [
    (0, "00"), (1, "01"), (63, "3f"), (64, "c0 00"), (-1, "7f"), (-64, "40"), (-65, "bf 7f"),
    (8191, "ff 3f"), (-8192, "80 40"), (Int64.max, "ff ff ff ff ff ff ff ff ff 00"),
    (Int64.min, "80 80 80 80 80 80 80 80 80 7f"),
  ]

  @Test(arguments: unsigned) func ulebTable(_ value: UInt64, _ bytes: String) throws {
    var w = ByteWriter()
    w.uleb(value)
    #expect(w.bytes == hex(bytes))
    #expect(try readULEB(hex(bytes)) == value)
  }

  @Test(arguments: signed) func slebTable(_ value: Int64, _ bytes: String) throws {
    var w = ByteWriter()
    w.sleb(value)
    #expect(w.bytes == hex(bytes))
    #expect(try readSLEB(hex(bytes)) == value)
  }

  static let badUnsigned: [(String, String)] = [
    ("80 00", "overlong"), ("81 80 00", "overlong"), ("ff ff ff ff ff ff ff ff ff 02", "too large"),
    ("ff ff ff ff ff ff ff ff ff 00", "overlong"),
    ("80 80 80 80 80 80 80 80 80 81 01", "too large"),
    ("", "truncated"), ("80", "truncated"), ("ff ff", "truncated"),
  ]

  @Test(arguments: badUnsigned) func ulebRejects(_ bytes: String, _ kind: String) {
    do {
      _ = try readULEB(hex(bytes))
      Issue.record("\(bytes) was accepted")
    } catch let e as AutomergeDecodeError {
      switch (e, kind) {
      case (.truncated, "truncated"): break
      case (.invalidLEB(let reason, _), _)
      where reason.contains(kind == "too large" ? "too large" : "overlong"): break
      default: Issue.record("\(bytes): unexpected \(e)")
      }
    } catch { Issue.record("untyped error \(error)") }
  }

  static let badSigned: [(String, String)] = [
    ("80 00", "overlong"), ("ff 7f", "overlong"), ("c0 7f", "overlong"), ("80 80 00", "overlong"),
    ("ff ff ff ff ff ff ff ff ff 01", "too large"), ("80 80 80 80 80 80 80 80 80 7e", "too large"),
    ("", "truncated"), ("80", "truncated"),
  ]

  @Test(arguments: badSigned) func slebRejects(_ bytes: String, _ kind: String) {
    do {
      _ = try readSLEB(hex(bytes))
      Issue.record("\(bytes) was accepted")
    } catch let e as AutomergeDecodeError {
      switch (e, kind) {
      case (.truncated, "truncated"): break
      case (.invalidLEB(let reason, _), _)
      where reason.contains(kind == "too large" ? "too large" : "overlong"): break
      default: Issue.record("\(bytes): unexpected \(e)")
      }
    } catch { Issue.record("untyped error \(error)") }
  }

  @Test func roundTripRandom() throws {
    let seed: UInt64 = 0x5eed_1eb1
    var rng = SplitMix64(state: seed)
    for _ in 0..<20_000 {
      let u = rng.next() >> (rng.next() % 64)
      let s = Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64)
      var w = ByteWriter()
      w.uleb(u)
      #expect(try readULEB(w.bytes) == u, "seed \(seed)")
      var v = ByteWriter()
      v.sleb(s)
      #expect(try readSLEB(v.bytes) == s, "seed \(seed)")
    }
  }

  @Test func utf8Validation() {
    let good: [[UInt8]] = [[], Array("abc".utf8), Array("é🇬🇧".utf8), [0xef, 0xbf, 0xbf]]
    let bad: [[UInt8]] = [
      [0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80],
    ]
    for g in good { #expect(g.withUnsafeBufferPointer { UTF8Validation.string($0) } != nil) }
    for b in bad { #expect(b.withUnsafeBufferPointer { UTF8Validation.string($0) } == nil, "\(b)") }
  }
}

func readULEB(_ bytes: [UInt8]) throws -> UInt64 {
  try bytes.withUnsafeBufferPointer { b in
    var r = ByteReader(b)
    let v = try r.uleb()
    if !r.isAtEnd { throw AutomergeDecodeError.trailingBytes(what: "test", offset: r.offset) }
    return v
  }
}

func readSLEB(_ bytes: [UInt8]) throws -> Int64 {
  try bytes.withUnsafeBufferPointer { b in
    var r = ByteReader(b)
    let v = try r.sleb()
    if !r.isAtEnd { throw AutomergeDecodeError.trailingBytes(what: "test", offset: r.offset) }
    return v
  }
}
