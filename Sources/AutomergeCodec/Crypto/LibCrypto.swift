#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

#if !canImport(Darwin)
  /// OpenSSL's libcrypto, opened with `dlopen` the first time a hash is needed.
  ///
  /// Linking libcrypto would make the dynamic loader map and relocate it at every start of
  /// `mn`, about 2.5 ms of CPU time, also for verbs that never hash (`resolve`, `ls`). Scripts
  /// call `mn` in loops, so it is loaded lazily instead. The EVP digest functions are used
  /// for streamed data; a one-shot hash of bytes in memory uses the low-level
  /// `SHA256_Init`/`SHA256_Update`/`SHA256_Final` where the library still has them
  /// (deprecated in OpenSSL 3, still exported). `EVP_Digest`, and OpenSSL 3's `SHA256()`,
  /// which is `EVP_Q_digest`, look the algorithm up at every call (a provider fetch behind a
  /// lock), which costs more than hashing a small change chunk (a document of 262,961
  /// changes spent a quarter of its instructions there), and the first lookup loads the
  /// default provider (about 2 MB of memory). The C declarations come from `CCrypto`'s
  /// header, which no longer links.
  struct LibCrypto: @unchecked Sendable {
    typealias DigestFunction =
      @convention(c) (
        UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?,
        OpaquePointer?, OpaquePointer?
      ) -> Int32
    typealias MDFunction = @convention(c) () -> OpaquePointer?
    typealias OneShot =
      @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?)
      -> UnsafeMutablePointer<UInt8>?
    typealias LowInit = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias LowUpdate = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int32
    typealias LowFinal =
      @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutableRawPointer?) -> Int32
    typealias ContextNew = @convention(c) () -> OpaquePointer?
    typealias ContextFree = @convention(c) (OpaquePointer?) -> Void
    typealias DigestInit = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    typealias DigestUpdate = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
    typealias DigestFinal =
      @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?)
      -> Int32

    /// `EVP_Digest`: a one-shot digest.
    let digest: DigestFunction
    /// `SHA256()`: the one-shot digest without the algorithm lookup (deprecated in OpenSSL 3,
    /// still exported); nil when the library lacks it.
    let oneShot: OneShot?
    /// `SHA256_Init`, `SHA256_Update`, `SHA256_Final` on a caller's `SHA256_CTX`
    /// (`lowLevelContextSize` bytes or fewer); nil when the library lacks one of them.
    let lowLevel: (initialize: LowInit, update: LowUpdate, final: LowFinal)?
    /// Room for a `SHA256_CTX` (112 bytes in OpenSSL 1.1 and 3), with a margin.
    static let lowLevelContextSize = 256
    /// `EVP_sha256()`.
    let sha256: OpaquePointer
    let contextNew: ContextNew
    let contextFree: ContextFree
    let digestInit: DigestInit
    let digestUpdate: DigestUpdate
    let digestFinal: DigestFinal

    /// The library, or nil when it cannot be loaded (then a software SHA-256 is used).
    static let shared: LibCrypto? = load()

    /// The sonames tried in order: Debian 12's OpenSSL 3, then the unversioned name.
    static let names = ["libcrypto.so.3", "libcrypto.so"]

    private static func load() -> LibCrypto? {
      guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
        return nil
      }
      func symbol<T>(_ name: String, _: T.Type) -> T? {
        guard let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: T.self)
      }
      guard let digest = symbol("EVP_Digest", DigestFunction.self),
        let md = symbol("EVP_sha256", MDFunction.self), let sha256 = md(),
        let contextNew = symbol("EVP_MD_CTX_new", ContextNew.self),
        let contextFree = symbol("EVP_MD_CTX_free", ContextFree.self),
        let digestInit = symbol("EVP_DigestInit_ex", DigestInit.self),
        let digestUpdate = symbol("EVP_DigestUpdate", DigestUpdate.self),
        let digestFinal = symbol("EVP_DigestFinal_ex", DigestFinal.self)
      else { return nil }
      var lowLevel: (LowInit, LowUpdate, LowFinal)? = nil
      if let i = symbol("SHA256_Init", LowInit.self),
        let u = symbol("SHA256_Update", LowUpdate.self),
        let f = symbol("SHA256_Final", LowFinal.self)
      {
        lowLevel = (i, u, f)
      }
      return LibCrypto(
        digest: digest, oneShot: symbol("SHA256", OneShot.self), lowLevel: lowLevel,
        sha256: sha256,
        contextNew: contextNew, contextFree: contextFree,
        digestInit: digestInit, digestUpdate: digestUpdate, digestFinal: digestFinal)
    }
  }
#endif
