/// SHA-256 as the codec uses it: the chunk hash of §3, as a `ChangeHash` (through
/// `SHA256Digest`, the one place that hashes).
enum SHA256 {
  /// The 32-byte digest of `bytes` as a `ChangeHash`.
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> ChangeHash {
    var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    return withUnsafeMutableBytes(of: &digest) { raw in
      let out = raw.bindMemory(to: UInt8.self)
      SHA256Digest.hash(UnsafeRawBufferPointer(bytes), into: out.baseAddress.unsafelyUnwrapped)
      return ChangeHash(UnsafeBufferPointer(out))
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
