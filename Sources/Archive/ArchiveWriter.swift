import CArchive
import Platform

/// Writes an archive through libarchive, streaming its bytes to a sink (a file descriptor
/// in practice), entry by entry.
///
/// Regular files only, with the mode given, uid/gid 0 and no user or group names. In
/// reproducible mode the caller passes a fixed modification time, the gzip header's
/// timestamp is left out and a zip's entry times are in UTC (`ZipUTCTimes`), so the same
/// entries give byte-identical output in any time zone.
final class ArchiveWriter {
  /// Receives the archive's bytes; a thrown error stops the writer.
  typealias Sink = (UnsafeRawBufferPointer) throws -> Void

  /// Carries the sink into libarchive's C callback, and the sink's error back out.
  final class SinkBox {
    let sink: Sink
    var error: Error?
    /// A reproducible zip's times, put in UTC on the way to the sink.
    var zipTimes: ZipUTCTimes?
    init(_ sink: @escaping Sink) { self.sink = sink }
  }

  /// The libarchive functions (loaded on first use: see `LibArchive`).
  private let lib: LibArchive
  private let archive: OpaquePointer
  private let box: SinkBox
  /// The output's name, for error messages.
  private let label: String
  private var closed = false

  /// Opens a writer.
  ///
  /// - Parameters:
  ///   - format: the archive format and compression.
  ///   - reproducible: leaves out timestamps that libarchive adds on its own (gzip header),
  ///     and writes a zip's entry times in UTC.
  ///   - label: the output's name in errors.
  ///   - sink: receives the bytes.
  /// - Throws: `ArchiveError.libraryUnavailable` when libarchive cannot be loaded,
  ///   `.writeFailed` when it cannot be set up.
  init(format: ArchiveFormat, reproducible: Bool, label: String, sink: @escaping Sink) throws {
    let lib = try LibArchive.shared()
    guard let archive = lib.writeNew() else {
      throw ArchiveError.writeFailed(path: label, detail: "cannot allocate the archive writer")
    }
    self.lib = lib
    self.archive = archive
    self.box = SinkBox(sink)
    self.label = label
    try check(setUp(format: format, reproducible: reproducible))
    if format == .zip && reproducible { box.zipTimes = ZipUTCTimes() }
    let client = Unmanaged.passUnretained(box).toOpaque()
    try check(lib.writeOpen2(archive, client, nil, archiveWriterCallback, nil, nil))
  }

  deinit {
    // After a failure the archive is abandoned; nothing more should reach the sink.
    if !closed {
      box.error = box.error ?? ArchiveError.writeFailed(path: label, detail: "abandoned")
    }
    _ = lib.writeFree(archive)
  }

  private func setUp(format: ArchiveFormat, reproducible: Bool) -> Int32 {
    var status: Int32
    switch format {
    case .zip:
      status = lib.writeSetFormatZip(archive)
      if status == ARCHIVE_OK {
        status = lib.writeSetFormatOption(archive, "zip", "hdrcharset", "UTF-8")
      }
      return status
    case .tar, .tarGz, .tarXz, .tarZst:
      status = lib.writeSetFormatPaxRestricted(archive)
    }
    guard status == ARCHIVE_OK else { return status }
    if format != .tar {
      // No zero padding after a compressed stream: zstd readers take it for a new frame.
      status = lib.writeSetBytesInLastBlock(archive, 1)
      guard status == ARCHIVE_OK else { return status }
    }
    switch format {
    case .tar, .zip: status = lib.writeAddFilterNone(archive)
    case .tarGz:
      status = lib.writeAddFilterGzip(archive)
      // A NULL value turns the option off: no modification time in the gzip header.
      if status == ARCHIVE_OK, reproducible {
        status = lib.writeSetFilterOption(archive, "gzip", "timestamp", nil)
      }
    case .tarXz: status = lib.writeAddFilterXz(archive)
    case .tarZst: status = lib.writeAddFilterZstd(archive)
    }
    return status
  }

  /// Throws the sink's error, or libarchive's, when `status` is not OK.
  private func check(_ status: Int32) throws {
    if status == ARCHIVE_OK || status == ARCHIVE_WARN { return }
    if let error = box.error { throw error }
    let detail = lib.errorString(archive).map { String(cString: $0) } ?? "error \(status)"
    throw ArchiveError.writeFailed(path: label, detail: detail)
  }

  /// Writes one regular file whose content `body` produces through `emit`, in pieces.
  ///
  /// - Parameters:
  ///   - path: the entry's full path (`Minuta/records/2026/09.automerge`).
  ///   - size: the exact number of bytes `body` will emit.
  ///   - permissions: the mode bits (only `FilePermissions.accessBits` are kept).
  ///   - modificationTime: seconds since the epoch.
  ///   - body: emits the content.
  /// - Throws: the sink's error, `body`'s error, or `ArchiveError.writeFailed`.
  func addFile(
    path: String, size: Int64, permissions: FilePermissions, modificationTime: Int64,
    body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    guard let entry = lib.entryNew() else {
      throw ArchiveError.writeFailed(path: label, detail: "cannot allocate an entry")
    }
    defer { lib.entryFree(entry) }
    lib.entrySetPathnameUTF8(entry, path)
    lib.entrySetFiletype(entry, UInt32(archiveRegularFile))
    lib.entrySetPerm(entry, mode_t(permissions.intersection(.accessBits).rawValue))
    lib.entrySetSize(entry, size)
    lib.entrySetMtime(entry, time_t(modificationTime), 0)
    lib.entrySetUid(entry, 0)
    lib.entrySetGid(entry, 0)
    box.zipTimes?.header(at: lib.filterBytes(archive, 0), seconds: modificationTime)
    try check(lib.writeHeader(archive, entry))
    var written: Int64 = 0
    try body { chunk in
      guard let base = chunk.baseAddress, chunk.count > 0 else { return }
      var offset = 0
      while offset < chunk.count {
        let n = lib.writeData(archive, base + offset, chunk.count - offset)
        if n <= 0 { try check(Int32(truncatingIfNeeded: n < 0 ? Int(n) : Int(ARCHIVE_FATAL))) }
        offset += n
      }
      written += Int64(chunk.count)
    }
    if written != size { throw ArchiveError.sourceChanged(path: path) }
    try check(lib.writeFinishEntry(archive))
  }

  /// Writes one regular file from bytes in memory.
  func addFile(
    path: String, bytes: [UInt8], permissions: FilePermissions, modificationTime: Int64
  ) throws {
    try addFile(
      path: path, size: Int64(bytes.count), permissions: permissions,
      modificationTime: modificationTime
    ) { emit in try bytes.withUnsafeBytes { try emit($0) } }
  }

  /// Writes the archive's trailer and flushes everything to the sink.
  func finish() throws {
    box.zipTimes?.directory(at: lib.filterBytes(archive, 0))
    let status = lib.writeClose(archive)
    closed = true
    if let error = box.error { throw error }
    try check(status)
    if let times = box.zipTimes {
      try times.finish(label: label).withUnsafeBytes { try box.sink($0) }
    }
  }
}

/// `AE_IFREG`, `AE_IFDIR`, `AE_IFLNK` (the macros do not import into Swift).
let archiveRegularFile: UInt32 = 0o100000
let archiveDirectory: UInt32 = 0o040000
let archiveSymbolicLink: UInt32 = 0o120000
let archiveFileTypeMask: UInt32 = 0o170000

/// libarchive's write callback: hands the bytes to the writer's sink.
private func archiveWriterCallback(
  _ archive: OpaquePointer?, _ client: UnsafeMutableRawPointer?, _ buffer: UnsafeRawPointer?,
  _ length: Int
) -> la_ssize_t {
  guard let client else { return -1 }
  let box = Unmanaged<ArchiveWriter.SinkBox>.fromOpaque(client).takeUnretainedValue()
  if box.error != nil { return -1 }
  do {
    let bytes = UnsafeRawBufferPointer(start: buffer, count: buffer == nil ? 0 : length)
    if let times = box.zipTimes {
      try times.pass(bytes).withUnsafeBytes { try box.sink($0) }
    } else {
      try box.sink(bytes)
    }
    return la_ssize_t(length)
  } catch {
    box.error = error
    return -1
  }
}
