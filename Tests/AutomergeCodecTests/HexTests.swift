import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct HexTests {
  @Test func roundTrip() {
    let bytes: [UInt8] = [0x00, 0x85, 0x6f, 0xff]
    #expect(Hex.encode(bytes) == "00856fff")
    #expect(Hex.decode("00856FFF") == bytes)
    #expect(Hex.decode("abc") == nil)
    #expect(Hex.decode("zz") == nil)
  }

  @Test func changeHashOrderIsByteOrder() {
    var a = [UInt8](repeating: 0, count: 32)
    var b = a
    a[31] = 1
    b[0] = 1
    #expect(ChangeHash(a) < ChangeHash(b))
    #expect(ChangeHash(b).bytes == b)
  }
}
