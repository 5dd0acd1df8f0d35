#if MN_DARWIN_SHIM
  import AutomergeCodec
  import DarwinCryptoShimC
#elseif canImport(CommonCrypto)
  import CommonCrypto
#endif

// Built into AutomergeCodec; on Linux the DarwinCompileCheckCodec target also compiles this
// very file with MN_DARWIN_SHIM, its CommonCrypto branches against DarwinCryptoShimC
// (mn.md §15), using only AutomergeCodec's public `Hex` outside them.

/// SHA-256 through the system library: OpenSSL's libcrypto on Linux (loaded at first use,
/// see `LibCrypto`; a software fallback when it is missing), CommonCrypto on Darwin. The one
/// place in mn that hashes.
///
/// Use `SHA256Digest.hash(_:)` for bytes in memory, or make an instance, `update` it with
/// chunks and call `finalize()` once for data streamed from a file.
public final class SHA256Digest {
  /// The digest length in bytes.
  public static let byteCount = 32

  #if canImport(CommonCrypto) || MN_DARWIN_SHIM
    private var context = CC_SHA256_CTX()
  #else
    private let context: OpaquePointer?
    private var software: SoftwareSHA256?
  #endif
  private var finished = false

  /// Starts a new digest.
  public init() {
    #if canImport(CommonCrypto) || MN_DARWIN_SHIM
      CC_SHA256_Init(&context)
    #else
      if let lib = LibCrypto.shared, let context = lib.contextNew() {
        _ = lib.digestInit(context, lib.sha256, nil)
        self.context = context
      } else {
        context = nil
        software = SoftwareSHA256()
      }
    #endif
  }

  deinit {
    #if !canImport(CommonCrypto) && !MN_DARWIN_SHIM
      if let context { LibCrypto.shared?.contextFree(context) }
    #endif
  }

  /// Adds bytes to the digest.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    guard !finished, let base = bytes.baseAddress, bytes.count > 0 else { return }
    #if canImport(CommonCrypto) || MN_DARWIN_SHIM
      var offset = 0
      // CC_SHA256_Update takes a 32-bit length.
      while offset < bytes.count {
        let n = min(bytes.count - offset, Int(UInt32.max))
        CC_SHA256_Update(&context, base + offset, CC_LONG(n))
        offset += n
      }
    #else
      if let context, let lib = LibCrypto.shared {
        _ = lib.digestUpdate(context, base, bytes.count)
      } else {
        software?.update(bytes)
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
    #if canImport(CommonCrypto) || MN_DARWIN_SHIM
      out.withUnsafeMutableBufferPointer { _ = CC_SHA256_Final($0.baseAddress, &context) }
    #else
      if let context, let lib = LibCrypto.shared {
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer {
          lib.digestFinal(context, $0.baseAddress, &length)
        }
        guard ok == 1, length == UInt32(SHA256Digest.byteCount) else { return [] }
      } else if var software {
        out = software.finalize()
      }
    #endif
    return out
  }

  /// Writes the SHA-256 digest of `bytes` into the 32 bytes at `out` (the fast one-shot path).
  public static func hash(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) {
    #if canImport(CommonCrypto) || MN_DARWIN_SHIM
      _ = CC_SHA256(bytes.baseAddress, CC_LONG(bytes.count), out)
    #else
      if let lib = LibCrypto.shared {
        if let low = lib.lowLevel {
          let done = withUnsafeTemporaryAllocation(
            byteCount: LibCrypto.lowLevelContextSize, alignment: 16
          ) { context in
            low.initialize(context.baseAddress) == 1
              && low.update(context.baseAddress, bytes.baseAddress, bytes.count) == 1
              && low.final(out, context.baseAddress) == 1
          }
          if done { return }
        }
        if let oneShot = lib.oneShot {
          _ = oneShot(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, out)
          return
        }
        var length: UInt32 = 0
        if lib.digest(bytes.baseAddress, bytes.count, out, &length, lib.sha256, nil) == 1 { return }
      }
      var software = SoftwareSHA256()
      software.update(bytes)
      for (i, byte) in software.finalize().enumerated() { out[i] = byte }
    #endif
  }

  /// The SHA-256 digest of `bytes`.
  public static func hash(_ bytes: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: byteCount)
    bytes.withUnsafeBytes { raw in
      out.withUnsafeMutableBufferPointer { hash(raw, into: $0.baseAddress.unsafelyUnwrapped) }
    }
    return out
  }

  /// The SHA-256 digest of `bytes` as 64 lowercase hex digits.
  public static func hexHash(_ bytes: [UInt8]) -> String {
    Hex.encode(hash(bytes))
  }
}
