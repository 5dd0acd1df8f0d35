import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct SHA256DigestTests {
  @Test func knownVectors() {
    #expect(
      SHA256Digest.hexHash([])
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256Digest.hexHash(Array("abc".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test func libcryptoIsLoadedLazily() {
    #expect(LibCrypto.shared != nil)
    // Debian's OpenSSL 3 still exports the low-level SHA256_Init/Update/Final, the fast
    // path (its SHA256() looks the algorithm up at every call), and SHA256().
    #expect(LibCrypto.shared?.lowLevel != nil)
    #expect(LibCrypto.shared?.oneShot != nil)
  }

  /// The software fallback agrees with libcrypto on every length around the block size and
  /// on random data, one-shot and streamed in pieces.
  @Test func softwareFallbackAgreesWithLibcrypto() {
    var random = SplitMix64(state: 20_261_130)
    for length in Array(0...130) + [1000, 4096, 65_537] {
      let bytes = random.bytes(length)
      var software = SoftwareSHA256()
      var offset = 0
      while offset < bytes.count {
        let n = min(bytes.count - offset, 1 + random.below(70))
        bytes[offset..<offset + n].withUnsafeBytes { software.update($0) }
        offset += n
      }
      #expect(software.finalize() == SHA256Digest.hash(bytes), "length \(length)")
    }
  }

  @Test func streamingEqualsOneShot() {
    let bytes = Array(repeating: UInt8(7), count: 100_000)
    let digest = SHA256Digest()
    digest.update(Array(bytes[..<33_333]))
    digest.update(Array(bytes[33_333...]))
    #expect(digest.finalize() == SHA256Digest.hash(bytes))
  }
}
