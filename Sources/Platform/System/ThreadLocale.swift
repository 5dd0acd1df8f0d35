#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The calling thread's locale (`newlocale`, `uselocale`).
public enum ThreadLocale {
  /// Runs `body` under a UTF-8 character locale for the current thread only (the first of
  /// `C.UTF-8`, `C.utf8`, `en_US.UTF-8` that exists; as it is when none does), then restores
  /// the previous one, so that nothing global changes.
  public static func withUTF8<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    var locale: locale_t?
    for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] {
      locale = newlocale(LC_CTYPE_MASK, name, nil)
      if locale != nil { break }
    }
    guard let locale else { return try body() }
    let previous = uselocale(locale)
    defer {
      uselocale(previous)
      freelocale(locale)
    }
    return try body()
  }
}
