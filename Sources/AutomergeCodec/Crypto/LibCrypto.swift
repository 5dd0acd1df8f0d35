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
  /// call `mn` in loops, so it is loaded lazily instead. The EVP digest functions are used,
  /// and the one-shot `SHA256()` where the library still has it: `EVP_Digest` looks the
  /// algorithm up and allocates a context at every call, which costs more than hashing a
  /// small change chunk. The C declarations come from `CCrypto`'s header, which no longer
  /// links.
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
      return LibCrypto(
        digest: digest, oneShot: symbol("SHA256", OneShot.self), sha256: sha256,
        contextNew: contextNew, contextFree: contextFree,
        digestInit: digestInit, digestUpdate: digestUpdate, digestFinal: digestFinal)
    }
  }
#endif
