import CArchive
import Platform

/// The libarchive functions mn uses, looked up at run time with `dlopen` and `dlsym` the
/// first time an archive is written or read.
///
/// Why lazy: scripts call mn in loops, so its start-up time matters. Linked the usual way,
/// libarchive makes the dynamic loader map and relocate it and its whole dependency tree
/// (libxml2, ICU, nettle, acl, lzma, zstd, lz4, bzip2) at every start, for every verb:
/// about 2.2 million instructions, 30% of `mn resolve --local`. Only `export`, `restore`,
/// the backups and `fetch --from ARCHIVE` need it, so only they load it.
///
/// `CArchive` still provides the C types and constants (`ARCHIVE_OK`, the callback types);
/// its module map no longer links the library, so every call must go through this table.
/// Each property has the exact C signature of the function it is named after
/// (`entrySetPathnameUTF8` is `archive_entry_set_pathname_utf8`). Variadic functions
/// (`archive_set_error`) cannot be called through a pointer and are not used.
///
/// A library or symbol that cannot be found is `ArchiveError.libraryUnavailable`, never a
/// crash. The library stays loaded until the process ends.
final class LibArchive: Sendable {
  /// The library names tried in order; the first is the one named in errors.
  static let candidates = LiveSystem.isDarwin ? darwinCandidates : linuxCandidates
  /// What to install when none loads.
  static let package = LiveSystem.isDarwin ? "libarchive" : "libarchive13"

  // Only Homebrew's libarchive (Apple silicon, then Intel prefix), the one whose header
  // CArchive is compiled against (pkg-config, Package.swift), which the link has loaded
  // already, so that dlopen finds that very image. Never Apple's /usr/lib/libarchive.2.dylib:
  // another version behind the same header, and a second libarchive in the process.
  static let darwinCandidates = [
    "/opt/homebrew/opt/libarchive/lib/libarchive.13.dylib",
    "/usr/local/opt/libarchive/lib/libarchive.13.dylib",
  ]
  static let linuxCandidates = ["libarchive.so.13", "libarchive.so"]

  /// Loaded on first use, once per process (thread-safe: Swift's lazy global initialisation).
  private static let loaded = load(candidates: candidates)

  /// The loaded library.
  ///
  /// - Throws: `ArchiveError.libraryUnavailable` when the library or one of its functions
  ///   cannot be found (the same error at every call).
  static func shared() throws(ArchiveError) -> LibArchive {
    try loaded.get()
  }

  /// Opens the first of `candidates` that loads and looks up every function; not cached.
  ///
  /// - Returns: the table, or `.libraryUnavailable` naming the first candidate and the
  ///   loader's reason.
  static func load(candidates: [String]) -> Result<LibArchive, ArchiveError> {
    let library = candidates.first ?? "libarchive"
    var reason: String?
    for name in candidates {
      guard let handle = DynamicLibrary.open(name) else {
        reason = reason ?? loaderError() ?? "not found"
        continue
      }
      do throws(ArchiveError) {
        return .success(try LibArchive(handle: handle, library: name))
      } catch {
        DynamicLibrary.close(handle)
        return .failure(error)
      }
    }
    return .failure(.libraryUnavailable(library: library, detail: reason ?? "no library to try"))
  }

  /// The message of the last `dlopen` or `dlsym` failure, if any.
  private static func loaderError() -> String? {
    DynamicLibrary.lastError()
  }

  // The callback types of archive.h, spelled out: C declares them as function types (not
  // pointers), which Swift imports as Swift closures; in a C function type a closure
  // parameter becomes an Objective-C block, not the function pointer libarchive expects.
  typealias OpenCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
  typealias WriteCallback =
    @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> la_ssize_t
  typealias CloseCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
  typealias FreeCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
  typealias ReadCallback =
    @convention(c) (
      OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeRawPointer?>?
    ) -> la_ssize_t

  // archive_entry.h
  let entryFiletype: @convention(c) (OpaquePointer?) -> mode_t
  let entryFree: @convention(c) (OpaquePointer?) -> Void
  let entryHardlink: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
  let entryMtime: @convention(c) (OpaquePointer?) -> time_t
  let entryNew: @convention(c) () -> OpaquePointer?
  let entryPathname: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
  let entryPathnameUTF8: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
  let entryPerm: @convention(c) (OpaquePointer?) -> mode_t
  let entrySetFiletype: @convention(c) (OpaquePointer?, UInt32) -> Void
  let entrySetGid: @convention(c) (OpaquePointer?, la_int64_t) -> Void
  let entrySetMtime: @convention(c) (OpaquePointer?, time_t, Int) -> Void
  let entrySetPathnameUTF8: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void
  let entrySetPerm: @convention(c) (OpaquePointer?, mode_t) -> Void
  let entrySetSize: @convention(c) (OpaquePointer?, la_int64_t) -> Void
  let entrySetUid: @convention(c) (OpaquePointer?, la_int64_t) -> Void
  let entrySize: @convention(c) (OpaquePointer?) -> la_int64_t
  let entrySizeIsSet: @convention(c) (OpaquePointer?) -> Int32
  let entrySymlink: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

  // archive.h: both directions
  let errorString: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
  let filterBytes: @convention(c) (OpaquePointer?, Int32) -> la_int64_t

  // archive.h: reading
  let readData: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int) -> la_ssize_t
  let readFree: @convention(c) (OpaquePointer?) -> Int32
  let readNew: @convention(c) () -> OpaquePointer?
  let readNextHeader:
    @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
  let readOpen:
    @convention(c) (
      OpaquePointer?, UnsafeMutableRawPointer?, OpenCallback?, ReadCallback?, CloseCallback?
    ) -> Int32
  let readOpenMemory: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
  let readSupportFilterBzip2: @convention(c) (OpaquePointer?) -> Int32
  let readSupportFilterGzip: @convention(c) (OpaquePointer?) -> Int32
  let readSupportFilterXz: @convention(c) (OpaquePointer?) -> Int32
  let readSupportFilterZstd: @convention(c) (OpaquePointer?) -> Int32
  let readSupportFormatTar: @convention(c) (OpaquePointer?) -> Int32
  let readSupportFormatZip: @convention(c) (OpaquePointer?) -> Int32

  // archive.h: writing
  let writeAddFilterGzip: @convention(c) (OpaquePointer?) -> Int32
  let writeAddFilterNone: @convention(c) (OpaquePointer?) -> Int32
  let writeAddFilterXz: @convention(c) (OpaquePointer?) -> Int32
  let writeAddFilterZstd: @convention(c) (OpaquePointer?) -> Int32
  let writeClose: @convention(c) (OpaquePointer?) -> Int32
  let writeData: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> la_ssize_t
  let writeFinishEntry: @convention(c) (OpaquePointer?) -> Int32
  let writeFree: @convention(c) (OpaquePointer?) -> Int32
  let writeHeader: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
  let writeNew: @convention(c) () -> OpaquePointer?
  let writeOpen2:
    @convention(c) (
      OpaquePointer?, UnsafeMutableRawPointer?, OpenCallback?, WriteCallback?, CloseCallback?,
      FreeCallback?
    ) -> Int32
  let writeSetBytesInLastBlock: @convention(c) (OpaquePointer?, Int32) -> Int32
  let writeSetFilterOption:
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?
    ) -> Int32
  let writeSetFormatOption:
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?
    ) -> Int32
  let writeSetFormatPaxRestricted: @convention(c) (OpaquePointer?) -> Int32
  let writeSetFormatZip: @convention(c) (OpaquePointer?) -> Int32

  /// Looks up every function in `handle`.
  ///
  /// - Throws: `.libraryUnavailable` naming the first missing function.
  private init(handle: UnsafeMutableRawPointer, library: String) throws(ArchiveError) {
    func symbol<F>(_ name: String) throws(ArchiveError) -> F {
      guard let address = DynamicLibrary.symbol(handle, name) else {
        let reason = LibArchive.loaderError() ?? "undefined symbol: \(name)"
        throw .libraryUnavailable(library: library, detail: reason)
      }
      return unsafeBitCast(address, to: F.self)
    }
    entryFiletype = try symbol("archive_entry_filetype")
    entryFree = try symbol("archive_entry_free")
    entryHardlink = try symbol("archive_entry_hardlink")
    entryMtime = try symbol("archive_entry_mtime")
    entryNew = try symbol("archive_entry_new")
    entryPathname = try symbol("archive_entry_pathname")
    entryPathnameUTF8 = try symbol("archive_entry_pathname_utf8")
    entryPerm = try symbol("archive_entry_perm")
    entrySetFiletype = try symbol("archive_entry_set_filetype")
    entrySetGid = try symbol("archive_entry_set_gid")
    entrySetMtime = try symbol("archive_entry_set_mtime")
    entrySetPathnameUTF8 = try symbol("archive_entry_set_pathname_utf8")
    entrySetPerm = try symbol("archive_entry_set_perm")
    entrySetSize = try symbol("archive_entry_set_size")
    entrySetUid = try symbol("archive_entry_set_uid")
    entrySize = try symbol("archive_entry_size")
    entrySizeIsSet = try symbol("archive_entry_size_is_set")
    entrySymlink = try symbol("archive_entry_symlink")
    errorString = try symbol("archive_error_string")
    filterBytes = try symbol("archive_filter_bytes")
    readData = try symbol("archive_read_data")
    readFree = try symbol("archive_read_free")
    readNew = try symbol("archive_read_new")
    readNextHeader = try symbol("archive_read_next_header")
    readOpen = try symbol("archive_read_open")
    readOpenMemory = try symbol("archive_read_open_memory")
    readSupportFilterBzip2 = try symbol("archive_read_support_filter_bzip2")
    readSupportFilterGzip = try symbol("archive_read_support_filter_gzip")
    readSupportFilterXz = try symbol("archive_read_support_filter_xz")
    readSupportFilterZstd = try symbol("archive_read_support_filter_zstd")
    readSupportFormatTar = try symbol("archive_read_support_format_tar")
    readSupportFormatZip = try symbol("archive_read_support_format_zip")
    writeAddFilterGzip = try symbol("archive_write_add_filter_gzip")
    writeAddFilterNone = try symbol("archive_write_add_filter_none")
    writeAddFilterXz = try symbol("archive_write_add_filter_xz")
    writeAddFilterZstd = try symbol("archive_write_add_filter_zstd")
    writeClose = try symbol("archive_write_close")
    writeData = try symbol("archive_write_data")
    writeFinishEntry = try symbol("archive_write_finish_entry")
    writeFree = try symbol("archive_write_free")
    writeHeader = try symbol("archive_write_header")
    writeNew = try symbol("archive_write_new")
    writeOpen2 = try symbol("archive_write_open2")
    writeSetBytesInLastBlock = try symbol("archive_write_set_bytes_in_last_block")
    writeSetFilterOption = try symbol("archive_write_set_filter_option")
    writeSetFormatOption = try symbol("archive_write_set_format_option")
    writeSetFormatPaxRestricted = try symbol("archive_write_set_format_pax_restricted")
    writeSetFormatZip = try symbol("archive_write_set_format_zip")
  }
}
