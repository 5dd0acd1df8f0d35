#if canImport(CCrypto)
  import CCrypto
#elseif canImport(CommonCrypto)
  import CommonCrypto
#endif

/// SHA-256 through the system library: OpenSSL's EVP interface (`CCrypto`) on Linux,
/// CommonCrypto on Darwin. The one place in Core that touches either.
///
/// Use `SHA256Digest.hash(_:)` for bytes in memory, or make an instance, `update` it with
/// chunks and call `finalize()` once for data streamed from a file.
public final class SHA256Digest {
  /// The digest length in bytes.
  public static let byteCount = 32

  #if canImport(CCrypto)
    private let context: OpaquePointer?
  #elseif canImport(CommonCrypto)
    private var context = CC_SHA256_CTX()
  #endif
  private var finished = false

  /// Starts a new digest.
  public init() {
    #if canImport(CCrypto)
      context = EVP_MD_CTX_new()
      if let context { EVP_DigestInit_ex(context, EVP_sha256(), nil) }
    #elseif canImport(CommonCrypto)
      CC_SHA256_Init(&context)
    #endif
  }

  deinit {
    #if canImport(CCrypto)
      EVP_MD_CTX_free(context)
    #endif
  }

  /// Adds bytes to the digest.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    guard !finished, let base = bytes.baseAddress, bytes.count > 0 else { return }
    #if canImport(CCrypto)
      if let context { EVP_DigestUpdate(context, base, bytes.count) }
    #elseif canImport(CommonCrypto)
      var offset = 0
      // CC_SHA256_Update takes a 32-bit length.
      while offset < bytes.count {
        let n = min(bytes.count - offset, Int(UInt32.max))
        CC_SHA256_Update(&context, base + offset, CC_LONG(n))
        offset += n
      }
    #endif
  }

  /// Adds bytes to the digest.
  public func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// The 32-byte digest. Call once; later calls return an empty array.
  public func finalize() -> [UInt8] {
    guard !finished else { return [] }
    finished = true
    var out = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
    #if canImport(CCrypto)
      var length: UInt32 = 0
      guard let context else { return [] }
      let ok = out.withUnsafeMutableBufferPointer {
        EVP_DigestFinal_ex(context, $0.baseAddress, &length)
      }
      guard ok == 1, length == UInt32(SHA256Digest.byteCount) else { return [] }
    #elseif canImport(CommonCrypto)
      out.withUnsafeMutableBufferPointer { _ = CC_SHA256_Final($0.baseAddress, &context) }
    #endif
    return out
  }

  /// The SHA-256 digest of `bytes`.
  public static func hash(_ bytes: [UInt8]) -> [UInt8] {
    let digest = SHA256Digest()
    digest.update(bytes)
    return digest.finalize()
  }

  /// The SHA-256 digest of `bytes` as 64 lowercase hex digits.
  public static func hexHash(_ bytes: [UInt8]) -> String {
    Hex.encode(hash(bytes))
  }
}
