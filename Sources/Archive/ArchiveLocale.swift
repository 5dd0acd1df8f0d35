import Platform

/// Runs libarchive calls under a UTF-8 character locale for the current thread only.
///
/// libarchive converts entry names between UTF-8 and the locale's character set; a Swift
/// process starts in the "C" locale, where a non-ASCII name fails to convert (and
/// libarchive 3.6's pax writer then crashes on a NULL name). `uselocale` changes only the
/// calling thread's locale, and the previous one is restored afterwards, so nothing global
/// changes. Every libarchive call of an archive object must happen inside one such scope.
enum ArchiveLocale {
  static func withUTF8<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    try ThreadLocale.withUTF8(body)
  }
}
