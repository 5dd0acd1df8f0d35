import Foundation
import Testing

@testable import Storage
@testable import TestSupport

/// Builds a binary property list from raw object encodings (for hostile inputs).
private func bplist(_ objects: [[UInt8]], top: Int = 0, refSize: UInt8 = 1, offsetSize: UInt8 = 2)
  -> [UInt8]
{
  var out = Array("bplist00".utf8)
  var offsets: [Int] = []
  for object in objects {
    offsets.append(out.count)
    out += object
  }
  let table = out.count
  for offset in offsets {
    for k in (0..<Int(offsetSize)).reversed() {
      out.append(UInt8(truncatingIfNeeded: offset >> (8 * k)))
    }
  }
  func be64(_ v: Int) -> [UInt8] {
    (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
  }
  out += [0, 0, 0, 0, 0, 0, offsetSize, refSize] + be64(objects.count) + be64(top) + be64(table)
  return out
}

@Suite struct BinaryPlistTests {
  @Test func foundationStubDecodes() throws {
    let stub = try ICloudStub.decode(try StubBytes.stub(name: "09.automerge", size: 12345))
    #expect(stub == ICloudStub(name: "09.automerge", size: 12345))
  }

  @Test func utf16NamesDecode() throws {
    let name = "Zoë 😀 日本.automerge"
    let stub = try ICloudStub.decode(try StubBytes.stub(name: name, size: 1))
    #expect(stub.name == name)
  }

  @Test func everyValueType() throws {
    let date = Date(timeIntervalSinceReferenceDate: 1234.5)
    let bytes = try StubBytes.plist(
      [
        "t": true, "f": false, "i1": 7, "i2": 300, "i4": 70_000, "i8": 1 << 40, "neg": -1,
        "r": 1.5, "d": Data([1, 2, 3]), "a": Array(0..<20), "n": ["k": "v"], "date": date,
        "long": String(repeating: "x", count: 300),
      ] as [String: Any])
    guard case .dictionary(let d) = try BinaryPlist.decode(bytes) else {
      Issue.record("not a dictionary")
      return
    }
    #expect(d["t"] == .bool(true))
    #expect(d["f"] == .bool(false))
    #expect(d["i1"] == .integer(7))
    #expect(d["i2"] == .integer(300))
    #expect(d["i4"] == .integer(70_000))
    #expect(d["i8"] == .integer(1 << 40))
    #expect(d["neg"] == .integer(-1))
    #expect(d["r"] == .real(1.5))
    #expect(d["d"] == .data([1, 2, 3]))
    #expect(d["a"] == .array((0..<20).map { .integer(Int64($0)) }))
    #expect(d["n"] == .dictionary(["k": .string("v")]))
    #expect(d["date"] == .date(1234.5))
    #expect(d["long"] == .string(String(repeating: "x", count: 300)))
  }

  @Test func sizeAsRealAndMissingKeys() throws {
    #expect(
      try ICloudStub.decode(try StubBytes.plist(["NSURLFileSizeKey": 10.0]))
        == ICloudStub(name: nil, size: 10))
    #expect(
      try ICloudStub.decode(try StubBytes.plist(["NSURLNameKey": 5]))
        == ICloudStub(name: nil, size: nil))
    #expect(
      try ICloudStub.decode(try StubBytes.plist(["NSURLFileSizeKey": -4]))
        == ICloudStub(name: nil, size: nil))
    #expect(throws: BinaryPlistError.unexpectedTopObject) {
      try ICloudStub.decode(try StubBytes.plist(["a"]))
    }
  }

  @Test func everyTruncationFailsCleanly() throws {
    let bytes = try StubBytes.stub(name: "09.automerge", size: 12345)
    for n in 0..<bytes.count {
      #expect(throws: BinaryPlistError.self) { try ICloudStub.decode(Array(bytes[..<n])) }
    }
  }

  @Test func everyByteFlipIsSurvived() throws {
    let bytes = try StubBytes.stub(name: "09.automerge", size: 12345)
    for i in 0..<bytes.count {
      for value: UInt8 in [0x00, 0xFF, 0x0F, 0x80, bytes[i] ^ 0x01] {
        var mutated = bytes
        mutated[i] = value
        _ = try? ICloudStub.decode(mutated)  // must return or throw, never trap
      }
    }
  }

  @Test func garbage() {
    #expect(throws: BinaryPlistError.notBinaryPlist) { try BinaryPlist.decode([]) }
    #expect(throws: BinaryPlistError.notBinaryPlist) {
      try BinaryPlist.decode(Array("<?xml version".utf8))
    }
    #expect(throws: BinaryPlistError.invalidTrailer) {
      try BinaryPlist.decode(Array("bplist00".utf8))
    }
    #expect(throws: BinaryPlistError.self) {
      try BinaryPlist.decode(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 64))
    }
    #expect(throws: BinaryPlistError.self) {
      try BinaryPlist.decode(Array("bplist00".utf8) + [UInt8](repeating: 0xFF, count: 64))
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      let body = (0..<Int.random(in: 0..<80, using: &generator)).map { _ in
        UInt8.random(in: 0...255, using: &generator)
      }
      _ = try? BinaryPlist.decode(Array("bplist00".utf8) + body)
    }
  }

  @Test func handBuiltListDecodes() throws {
    let bytes = bplist([[0xA2, 1, 2], [0x10, 0x05], [0x53] + Array("abc".utf8)])
    #expect(try BinaryPlist.decode(bytes) == .array([.integer(5), .string("abc")]))
  }

  @Test func hostileOffsetsAndReferences() {
    // An offset-table entry past the object area.
    var bad = bplist([[0x10, 0x05]])
    bad[bad.count - 32 - 1] = 0xF0
    #expect(throws: BinaryPlistError.self) { try BinaryPlist.decode(bad) }
    // A reference to an object that does not exist.
    #expect(throws: BinaryPlistError.invalidReference(offset: 9)) {
      try BinaryPlist.decode(bplist([[0xA1, 7]]))
    }
    // The top object out of range.
    #expect(throws: BinaryPlistError.invalidTrailer) {
      try BinaryPlist.decode(bplist([[0x10, 1]], top: 3))
    }
    // A string longer than the file.
    #expect(throws: BinaryPlistError.self) {
      try BinaryPlist.decode(bplist([[0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF]]))
    }
    // A length whose own marker is not an integer.
    #expect(throws: BinaryPlistError.self) { try BinaryPlist.decode(bplist([[0x5F, 0x50]])) }
    // An unknown marker.
    #expect(throws: BinaryPlistError.invalidObject(offset: 8, marker: 0xE0)) {
      try BinaryPlist.decode(bplist([[0xE0]]))
    }
    // A dictionary whose key is not a string.
    #expect(throws: BinaryPlistError.nonStringKey(offset: 9)) {
      try BinaryPlist.decode(bplist([[0xD1, 1, 1], [0x10, 1]]))
    }
    // Huge trailer fields.
    var huge = bplist([[0x10, 1]])
    for k in 0..<8 { huge[huge.count - 24 + k] = 0xFF }
    #expect(throws: BinaryPlistError.invalidTrailer) { try BinaryPlist.decode(huge) }
    // Invalid entry sizes.
    #expect(throws: BinaryPlistError.invalidTrailer) {
      try BinaryPlist.decode(bplist([[0x10, 1]], refSize: 0))
    }
    #expect(throws: BinaryPlistError.invalidTrailer) {
      try BinaryPlist.decode(bplist([[0x10, 1]], refSize: 9))
    }
  }

  @Test func cyclesAndBlowUpsAreBounded() {
    // An array that contains itself.
    #expect(throws: BinaryPlistError.tooDeep(offset: 8)) {
      try BinaryPlist.decode(bplist([[0xA1, 0]]))
    }
    // 30 levels of arrays holding the next level twice: 2^30 visits if unbounded.
    var objects: [[UInt8]] = (0..<30).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
    objects.append([0x10, 1])
    #expect(throws: BinaryPlistError.tooManyObjects) { try BinaryPlist.decode(bplist(objects)) }
  }
}
