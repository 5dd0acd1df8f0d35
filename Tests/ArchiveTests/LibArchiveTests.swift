import CArchive
import Testing

@testable import Archive
@testable import TestSupport

@Suite struct LibArchiveTests {
  /// Each entry of the table has the exact type of the C function (the assignment to the
  /// entry's type does not compile otherwise) and is that function. The test target links
  /// libarchive for this; mn does not.
  @Test func everyEntryIsTheHeadersFunction() throws {
    let lib = try LibArchive.shared()
    func check<F>(_ loaded: F, _ name: String, _ linked: (inout F) -> Void) {
      guard MemoryLayout<F>.size == MemoryLayout<UnsafeRawPointer>.size else {
        Issue.record("\(name): \(F.self) is not a C function pointer")
        return
      }
      var function = loaded
      linked(&function)
      let a = unsafeBitCast(loaded, to: UnsafeRawPointer.self)
      let b = unsafeBitCast(function, to: UnsafeRawPointer.self)
      #expect(a == b, "\(name)")
    }
    check(lib.entryFiletype, "archive_entry_filetype") { $0 = archive_entry_filetype }
    check(lib.entryFree, "archive_entry_free") { $0 = archive_entry_free }
    check(lib.entryHardlink, "archive_entry_hardlink") { $0 = archive_entry_hardlink }
    check(lib.entryMtime, "archive_entry_mtime") { $0 = archive_entry_mtime }
    check(lib.entryNew, "archive_entry_new") { $0 = archive_entry_new }
    check(lib.entryPathname, "archive_entry_pathname") { $0 = archive_entry_pathname }
    check(lib.entryPathnameUTF8, "archive_entry_pathname_utf8") { $0 = archive_entry_pathname_utf8 }
    check(lib.entryPerm, "archive_entry_perm") { $0 = archive_entry_perm }
    check(lib.entrySetFiletype, "archive_entry_set_filetype") { $0 = archive_entry_set_filetype }
    check(lib.entrySetGid, "archive_entry_set_gid") { $0 = archive_entry_set_gid }
    check(lib.entrySetMtime, "archive_entry_set_mtime") { $0 = archive_entry_set_mtime }
    check(lib.entrySetPathnameUTF8, "archive_entry_set_pathname_utf8") {
      $0 = archive_entry_set_pathname_utf8
    }
    check(lib.entrySetPerm, "archive_entry_set_perm") { $0 = archive_entry_set_perm }
    check(lib.entrySetSize, "archive_entry_set_size") { $0 = archive_entry_set_size }
    check(lib.entrySetUid, "archive_entry_set_uid") { $0 = archive_entry_set_uid }
    check(lib.entrySize, "archive_entry_size") { $0 = archive_entry_size }
    check(lib.entrySizeIsSet, "archive_entry_size_is_set") { $0 = archive_entry_size_is_set }
    check(lib.entrySymlink, "archive_entry_symlink") { $0 = archive_entry_symlink }
    check(lib.errorString, "archive_error_string") { $0 = archive_error_string }
    check(lib.filterBytes, "archive_filter_bytes") { $0 = archive_filter_bytes }
    check(lib.readData, "archive_read_data") { $0 = archive_read_data }
    check(lib.readFree, "archive_read_free") { $0 = archive_read_free }
    check(lib.readNew, "archive_read_new") { $0 = archive_read_new }
    check(lib.readNextHeader, "archive_read_next_header") { $0 = archive_read_next_header }
    check(lib.readOpenMemory, "archive_read_open_memory") { $0 = archive_read_open_memory }
    check(lib.readSupportFilterBzip2, "archive_read_support_filter_bzip2") {
      $0 = archive_read_support_filter_bzip2
    }
    check(lib.readSupportFilterGzip, "archive_read_support_filter_gzip") {
      $0 = archive_read_support_filter_gzip
    }
    check(lib.readSupportFilterXz, "archive_read_support_filter_xz") {
      $0 = archive_read_support_filter_xz
    }
    check(lib.readSupportFilterZstd, "archive_read_support_filter_zstd") {
      $0 = archive_read_support_filter_zstd
    }
    check(lib.readSupportFormatTar, "archive_read_support_format_tar") {
      $0 = archive_read_support_format_tar
    }
    check(lib.readSupportFormatZip, "archive_read_support_format_zip") {
      $0 = archive_read_support_format_zip
    }
    check(lib.writeAddFilterGzip, "archive_write_add_filter_gzip") {
      $0 = archive_write_add_filter_gzip
    }
    check(lib.writeAddFilterNone, "archive_write_add_filter_none") {
      $0 = archive_write_add_filter_none
    }
    check(lib.writeAddFilterXz, "archive_write_add_filter_xz") { $0 = archive_write_add_filter_xz }
    check(lib.writeAddFilterZstd, "archive_write_add_filter_zstd") {
      $0 = archive_write_add_filter_zstd
    }
    check(lib.writeClose, "archive_write_close") { $0 = archive_write_close }
    check(lib.writeData, "archive_write_data") { $0 = archive_write_data }
    check(lib.writeFinishEntry, "archive_write_finish_entry") { $0 = archive_write_finish_entry }
    check(lib.writeFree, "archive_write_free") { $0 = archive_write_free }
    check(lib.writeHeader, "archive_write_header") { $0 = archive_write_header }
    check(lib.writeNew, "archive_write_new") { $0 = archive_write_new }
    check(lib.writeOpen2, "archive_write_open2") { $0 = archive_write_open2 }
    check(lib.writeSetBytesInLastBlock, "archive_write_set_bytes_in_last_block") {
      $0 = archive_write_set_bytes_in_last_block
    }
    check(lib.writeSetFilterOption, "archive_write_set_filter_option") {
      $0 = archive_write_set_filter_option
    }
    check(lib.writeSetFormatOption, "archive_write_set_format_option") {
      $0 = archive_write_set_format_option
    }
    check(lib.writeSetFormatPaxRestricted, "archive_write_set_format_pax_restricted") {
      $0 = archive_write_set_format_pax_restricted
    }
    check(lib.writeSetFormatZip, "archive_write_set_format_zip") {
      $0 = archive_write_set_format_zip
    }
  }

  @Test func loadsTheInstalledLibrary() throws {
    let lib = try LibArchive.shared()
    guard let archive = lib.readNew() else {
      Issue.record("archive_read_new returned NULL")
      return
    }
    #expect(lib.readFree(archive) == 0)  // ARCHIVE_OK
  }

  @Test func aMissingLibraryIsATypedError() {
    let name = "libmn-no-such-archive.so.0"
    guard case .failure(let error) = LibArchive.load(candidates: [name, "libmn-nor-this.so"]) else {
      Issue.record("a library that does not exist loaded")
      return
    }
    guard case .libraryUnavailable(let library, let detail) = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(library == name)
    #expect(detail.contains(name))
    #expect(error.description.hasPrefix("cannot load libarchive (\(name)): "))
    #expect(error.description.hasSuffix(" — install \(LibArchive.package)"))
  }

  @Test func aLibraryWithoutTheFunctionsIsATypedError() {
    #if canImport(Darwin)
      let other = "libz.dylib"
    #else
      let other = "libz.so.1"
    #endif
    guard
      case .failure(.libraryUnavailable(let library, let detail)) =
        LibArchive.load(candidates: [other])
    else {
      Issue.record("zlib passed for libarchive")
      return
    }
    #expect(library == other)
    #expect(detail.contains("archive_entry_filetype"))
  }
}
