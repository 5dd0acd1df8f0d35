#if canImport(CCrypto)
  import CCrypto
#elseif canImport(CommonCrypto)
  import CommonCrypto
#endif

/// SHA-256, the chunk hash of §3 (OpenSSL on Linux, CommonCrypto on Darwin).
enum SHA256 {
  /// The 32-byte digest of `bytes` as a `ChangeHash`.
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> ChangeHash {
    var digest = (
      UInt64(0), UInt64(0), UInt64(0), UInt64(0)
    )
    return withUnsafeMutableBytes(of: &digest) { raw in
      let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      #if canImport(CCrypto)
        _ = CCrypto.SHA256(bytes.baseAddress, bytes.count, out)
      #elseif canImport(CommonCrypto)
        _ = CC_SHA256(bytes.baseAddress, CC_LONG(bytes.count), out)
      #endif
      return ChangeHash(UnsafeBufferPointer(start: out, count: 32))
    }
  }

  /// The digest of `bytes[range]`.
  static func hash(_ bytes: [UInt8], _ range: Range<Int>) -> ChangeHash {
    bytes.withUnsafeBufferPointer { hash(UnsafeBufferPointer(rebasing: $0[range])) }
  }

  /// The digest of all of `bytes`.
  static func hash(_ bytes: [UInt8]) -> ChangeHash {
    bytes.withUnsafeBufferPointer { hash($0) }
  }
}
