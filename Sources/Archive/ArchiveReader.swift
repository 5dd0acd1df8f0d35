import AutomergeCodec
import CArchive
import Platform

/// Size caps for reading an archive: hostile or damaged archives stop at these.
public struct ArchiveLimits: Sendable, Equatable {
  /// The largest single entry, in bytes.
  public var maxEntrySize: Int
  /// The most content, all entries together, in bytes.
  public var maxTotalSize: Int
  /// The largest archive file read, in bytes.
  public var maxArchiveSize: Int
  /// The most entries.
  public var maxEntries: Int

  public init(
    maxEntrySize: Int = 256 << 20, maxTotalSize: Int = 2 << 30, maxArchiveSize: Int = 2 << 30,
    maxEntries: Int = 100_000
  ) {
    self.maxEntrySize = maxEntrySize
    self.maxTotalSize = maxTotalSize
    self.maxArchiveSize = maxArchiveSize
    self.maxEntries = maxEntries
  }

  /// The defaults: 256 MiB an entry, 2 GiB in all, 100 000 entries.
  public static let standard = ArchiveLimits()
}

/// One regular file read from an archive.
public struct ArchiveEntry: Sendable, Equatable {
  /// The path relative to the archive's top folder (`records/2026/09.automerge`).
  public var path: String
  public var bytes: [UInt8]
  /// Permission bits (`FilePermissions.accessBits` at most).
  public var permissions: FilePermissions
  /// Seconds since the epoch.
  public var modificationTime: Int64

  public init(
    path: String, bytes: [UInt8], permissions: FilePermissions = 0o644,
    modificationTime: Int64 = 0
  ) {
    self.path = path
    self.bytes = bytes
    self.permissions = permissions
    self.modificationTime = modificationTime
  }
}

/// An archive read into memory and checked: its files and, when it has one, its manifest.
public struct ReadArchive: Sendable, Equatable {
  /// The name of the single top folder (`Minuta` for archives mn writes).
  public var topFolder: String
  /// The regular files, sorted by path (byte order), the manifest left out.
  public var entries: [ArchiveEntry]
  /// The manifest, already checked against `entries`; nil when the archive has none.
  public var manifest: ArchiveManifest?

  /// The entry at `path` (relative to the top folder), or nil.
  public func entry(_ path: String) -> ArchiveEntry? {
    entries.first { $0.path == path }
  }

  /// The kind the manifest gives `path`, or nil without a manifest or listing.
  public func manifestKind(_ path: String) -> ArchiveManifest.Kind? {
    manifest?.files.first { $0.path == path }?.kind
  }
}

/// Reads tar (plain, gzip, xz, zstd, bzip2) and zip archives through libarchive, refusing
/// anything that could write outside a destination or that does not add up.
///
/// Checks, in entry order: paths must be relative without `..` components; entries must be
/// regular files or directories (no symbolic or hard links, devices, FIFOs); all entries sit
/// under one top folder; no path repeats; every entry fits the caps. Then the manifest
/// `TOP/.mn-manifest.json`, when present, must list exactly the entries with their sizes and
/// digests (placeholders listed as missing must be absent).
public enum ArchiveReader {
  /// Macintosh zip resource-fork folders, skipped.
  static let ignoredTopFolders: Set<String> = ["__MACOSX"]

  /// Reads the archive file at `path`.
  ///
  /// - Throws: `ArchiveError.io` when the file cannot be read, `.archiveTooLarge`, or any
  ///   error of `read(bytes:limits:)`.
  public static func read(
    path: AbsolutePath, fileSystem: FileSystem, limits: ArchiveLimits = .standard
  ) throws(ArchiveError) -> ReadArchive {
    let bytes: [UInt8]
    do {
      bytes = try fileSystem.readFile(path, limit: limits.maxArchiveSize)
    } catch let error as FileSystemError {
      if error.errno.rawValue == fileTooBigErrno {
        throw .archiveTooLarge(limit: limits.maxArchiveSize)
      }
      throw .io(error)
    } catch {
      throw .corruptArchive(detail: "\(error)")
    }
    return try read(bytes: bytes, limits: limits)
  }

  /// Reads a finished archive back and checks every entry against its manifest, which
  /// must be present (`mn export` after writing, `fetch --from ARCHIVE`).
  ///
  /// - Returns: the checked archive.
  /// - Throws: `ArchiveError.missingManifest`, or any error of `read(path:fileSystem:limits:)`.
  public static func verify(
    path: AbsolutePath, fileSystem: FileSystem, limits: ArchiveLimits = .standard
  ) throws(ArchiveError) -> ReadArchive {
    let archive = try read(path: path, fileSystem: fileSystem, limits: limits)
    guard archive.manifest != nil else { throw .missingManifest }
    return archive
  }

  /// One streaming pass over the archive file at `path`, keeping digests, not content.
  ///
  /// - Parameters:
  ///   - path: the archive file.
  ///   - fileSystem: where to read it.
  ///   - limits: the size caps.
  ///   - watermark: when the file is still being written, how far it may be read; the pass
  ///     waits at that point until the writer gets further or finishes.
  /// - Returns: the entries' digests and the manifest's bytes, or the error that stopped the
  ///   pass (`.io` for a read error, else any error of `read(bytes:limits:)`).
  static func readBack(
    path: AbsolutePath, fileSystem: FileSystem, limits: ArchiveLimits, watermark: WriteWatermark?
  ) -> Result<Walk, ArchiveError> {
    let lib: LibArchive
    let source: ArchiveSource
    do {
      lib = try LibArchive.shared()
      source = ArchiveSource(
        fileSystem: fileSystem, fd: try fileSystem.openForReading(path), path: path,
        watermark: watermark)
    } catch let error as ArchiveError {
      return .failure(error)
    } catch let error as FileSystemError {
      return .failure(.io(error))
    } catch {
      return .failure(.corruptArchive(detail: "\(error)"))
    }
    defer { try? fileSystem.close(source.fd, path: path) }
    let client = Unmanaged.passUnretained(source).toOpaque()
    let result = withReader(lib) { archive throws(ArchiveError) in
      guard lib.readOpen(archive, client, nil, archiveSourceCallback, nil) == ARCHIVE_OK else {
        throw .corruptArchive(detail: message(lib, archive, "cannot open"))
      }
      return try readEntries(lib, archive, limits, keepBytes: false)
    }
    if let error = source.error { return .failure(.io(error)) }
    return result
  }

  /// Runs `body` with a new archive reader that knows mn's formats and filters (in the
  /// UTF-8 locale libarchive needs for names), and frees it afterwards.
  private static func withReader<T>(
    _ lib: LibArchive, _ body: (OpaquePointer) throws(ArchiveError) -> T
  ) -> Result<T, ArchiveError> {
    ArchiveLocale.withUTF8 {
      guard let archive = lib.readNew() else {
        return .failure(.corruptArchive(detail: "cannot allocate the archive reader"))
      }
      defer { _ = lib.readFree(archive) }
      // Only built-in decoders: support_filter_all would also run external programs.
      _ = lib.readSupportFormatTar(archive)
      _ = lib.readSupportFormatZip(archive)
      _ = lib.readSupportFilterGzip(archive)
      _ = lib.readSupportFilterXz(archive)
      _ = lib.readSupportFilterZstd(archive)
      _ = lib.readSupportFilterBzip2(archive)
      do throws(ArchiveError) {
        return .success(try body(archive))
      } catch {
        return .failure(error)
      }
    }
  }

  /// Reads an archive held in memory.
  ///
  /// - Returns: the checked entries and manifest.
  /// - Throws: `ArchiveError`: `.corruptArchive` for an unreadable, truncated or damaged
  ///   archive; `.absolutePath`, `.parentComponent`, `.invalidPath`, `.symbolicLink`,
  ///   `.hardLink`, `.specialFile`, `.duplicateEntry`, `.notUnderTopFolder`,
  ///   `.entryTooLarge` for a refused entry; `.invalidManifest`, `.manifestMismatch` for a
  ///   manifest that does not match; `.emptyArchive`.
  public static func read(bytes: [UInt8], limits: ArchiveLimits = .standard) throws(ArchiveError)
    -> ReadArchive
  {
    if bytes.count > limits.maxArchiveSize { throw .archiveTooLarge(limit: limits.maxArchiveSize) }
    if bytes.isEmpty { throw .corruptArchive(detail: "empty file") }
    let lib = try LibArchive.shared()
    let result = bytes.withUnsafeBytes { buffer in
      withReader(lib) { archive throws(ArchiveError) in
        guard lib.readOpenMemory(archive, buffer.baseAddress, buffer.count) == ARCHIVE_OK else {
          throw .corruptArchive(detail: message(lib, archive, "cannot open"))
        }
        return try readEntries(lib, archive, limits, keepBytes: true).checked()
      }
    }
    return try result.get()
  }

  private static func message(_ lib: LibArchive, _ archive: OpaquePointer, _ fallback: String)
    -> String
  {
    lib.errorString(archive).map { String(cString: $0) } ?? fallback
  }

  /// What one pass over an archive found: the files (with their bytes when kept), each
  /// file's size and SHA-256, and the manifest's bytes.
  struct Walk: Sendable {
    var topFolder: String
    var files: [String: ArchiveEntry]
    var digests: [String: EntryDigest]
    var manifestBytes: [UInt8]?

    /// The archive, after checking the manifest (when there is one) against the files.
    func checked() throws(ArchiveError) -> ReadArchive {
      let entries = files.values.sorted {
        $0.path.precedesByBytes($1.path)
      }
      var manifest: ArchiveManifest?
      if let manifestBytes {
        let parsed = try ArchiveManifest.parse(manifestBytes)
        try ArchiveReader.check(parsed, against: digests)
        manifest = parsed
      }
      return ReadArchive(topFolder: topFolder, entries: entries, manifest: manifest)
    }

    /// Checks that the archive carries `expected` and matches it.
    func check(_ expected: ArchiveManifest) throws(ArchiveError) {
      guard let manifestBytes else { throw .missingManifest }
      guard try ArchiveManifest.parse(manifestBytes) == expected else {
        throw .invalidManifest(reason: "the manifest read back differs from the one written")
      }
      try ArchiveReader.check(expected, against: digests)
    }
  }

  /// The size and SHA-256 (hex) of an entry's content, computed while it is read.
  struct EntryDigest: Sendable {
    var size: Int64
    var sha256: String
  }

  /// Reads every entry header and content, refusing what `read(bytes:limits:)` refuses.
  ///
  /// - Parameters:
  ///   - lib: the loaded library.
  ///   - archive: an archive opened for reading.
  ///   - limits: the size caps.
  ///   - keepBytes: keep each file's content (else only its size and digest).
  /// - Returns: the files, their digests and the manifest's bytes.
  /// - Throws: the errors of `read(bytes:limits:)`.
  private static func readEntries(
    _ lib: LibArchive, _ archive: OpaquePointer, _ limits: ArchiveLimits, keepBytes: Bool
  ) throws(ArchiveError) -> Walk {
    var topFolder: String?
    var files: [String: ArchiveEntry] = [:]
    var digests: [String: EntryDigest] = [:]
    var directories = Set<String>()
    var manifestBytes: [UInt8]?
    var total = 0
    var count = 0
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      var entryPointer: OpaquePointer?
      let status = lib.readNextHeader(archive, &entryPointer)
      if status == ARCHIVE_EOF { break }
      guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry = entryPointer else {
        throw .corruptArchive(detail: message(lib, archive, "damaged entry header"))
      }
      count += 1
      if count > limits.maxEntries {
        throw .corruptArchive(detail: "more than \(limits.maxEntries) entries")
      }
      let rawPath =
        lib.entryPathnameUTF8(entry).map { String(cString: $0) }
        ?? lib.entryPathname(entry).map { String(cString: $0) } ?? ""
      let components = try checkedComponents(rawPath)
      if let first = components.first, ignoredTopFolders.contains(first) { continue }
      if let target = lib.entryHardlink(entry) {
        throw .hardLink(path: rawPath, target: String(cString: target))
      }
      let type = UInt32(lib.entryFiletype(entry)) & archiveFileTypeMask
      if type == archiveSymbolicLink {
        let target = lib.entrySymlink(entry).map { String(cString: $0) } ?? ""
        throw .symbolicLink(path: rawPath, target: target)
      }
      if let symlink = lib.entrySymlink(entry) {
        throw .symbolicLink(path: rawPath, target: String(cString: symlink))
      }
      guard type == archiveRegularFile || type == archiveDirectory else {
        throw .specialFile(path: rawPath)
      }
      guard let top = components.first else {
        // "./" or "/": the archive's root itself.
        if type == archiveDirectory { continue }
        throw .invalidPath(rawPath)
      }
      if let known = topFolder, known != top { throw .notUnderTopFolder(rawPath) }
      topFolder = top
      let relative = components.dropFirst().joined(separator: "/")
      if type == archiveDirectory {
        if relative.isEmpty { continue }
        if files[relative] != nil { throw .duplicateEntry(relative) }
        directories.insert(relative)
        continue
      }
      if relative.isEmpty { throw .notUnderTopFolder(rawPath) }
      if files[relative] != nil || directories.contains(relative)
        || relative == ArchiveManifest.entryName && manifestBytes != nil
      {
        throw .duplicateEntry(relative)
      }
      // Every parent of a file is a directory; none may also be a file.
      var parent = LogicalName.root
      for component in components.dropFirst().dropLast() {
        parent = parent.appending(component)
        if files[parent.string] != nil { throw .duplicateEntry(parent.string) }
        directories.insert(parent.string)
      }
      if lib.entrySizeIsSet(entry) != 0,
        lib.entrySize(entry) > Int64(limits.maxEntrySize)
      {
        throw .entryTooLarge(path: relative, limit: limits.maxEntrySize)
      }
      var data: [UInt8] = []
      var size = 0
      let digest = SHA256Digest()
      if keepBytes, lib.entrySizeIsSet(entry) != 0 {
        data.reserveCapacity(
          Int(max(0, min(lib.entrySize(entry), Int64(limits.maxEntrySize)))))
      }
      while true {
        let n = chunk.withUnsafeMutableBytes {
          lib.readData(archive, $0.baseAddress, $0.count)
        }
        if n == 0 { break }
        guard n > 0 else {
          throw .corruptArchive(detail: message(lib, archive, "cannot read '\(relative)'"))
        }
        if size + n > limits.maxEntrySize {
          throw .entryTooLarge(path: relative, limit: limits.maxEntrySize)
        }
        size += n
        total += n
        if total > limits.maxTotalSize {
          throw .entryTooLarge(path: relative, limit: limits.maxTotalSize)
        }
        let isManifest = relative == ArchiveManifest.entryName
        chunk.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        if keepBytes || isManifest { data.append(contentsOf: chunk[0..<n]) }
      }
      if lib.entrySizeIsSet(entry) != 0, lib.entrySize(entry) != Int64(size) {
        throw .corruptArchive(detail: "'\(relative)' is shorter than its header says")
      }
      if relative == ArchiveManifest.entryName {
        manifestBytes = data
        continue
      }
      let permissions = FilePermissions(rawValue: UInt32(lib.entryPerm(entry)))
        .intersection(.accessBits)
      files[relative] = ArchiveEntry(
        path: relative, bytes: data, permissions: permissions,
        modificationTime: Int64(lib.entryMtime(entry)))
      digests[relative] = EntryDigest(size: Int64(size), sha256: Hex.encode(digest.finalize()))
    }
    guard let top = topFolder else { throw .emptyArchive }
    return Walk(topFolder: top, files: files, digests: digests, manifestBytes: manifestBytes)
  }

  /// The path's components with empty and `.` components dropped.
  ///
  /// - Throws: `.absolutePath` for a leading `/`, `.parentComponent` for `..`,
  ///   `.invalidPath` for an empty path or one with a backslash-separated `..`.
  static func checkedComponents(_ path: String) throws(ArchiveError) -> [String] {
    if path.isEmpty { throw .invalidPath(path) }
    if path.hasPrefix("/") { throw .absolutePath(path) }
    // A Windows drive letter ("C:...") is absolute elsewhere.
    let scalars = Array(path.unicodeScalars)
    if scalars.count >= 2, scalars[1] == ":", scalars[0].properties.isAlphabetic, scalars[0].isASCII
    {
      throw .absolutePath(path)
    }
    let components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    var out: [String] = []
    for component in components {
      if component == ".." { throw .parentComponent(path) }
      // Windows archivers may use backslashes; a "..\" would climb there.
      if component.split(separator: "\\").contains("..") { throw .parentComponent(path) }
      if component == "." { continue }
      out.append(component)
    }
    return out
  }

  /// Checks that the manifest lists exactly the entries, with matching sizes and digests.
  static func check(_ manifest: ArchiveManifest, against files: [String: EntryDigest])
    throws(ArchiveError)
  {
    var listed = Set<String>()
    for file in manifest.files {
      listed.insert(file.path)
      let entry = files[file.path]
      if file.kind == .placeholder {
        if entry != nil { throw .manifestMismatch(path: file.path, .placeholderPresent) }
        continue
      }
      guard let entry else { throw .manifestMismatch(path: file.path, .missingEntry) }
      let size = entry.size
      if let expected = file.size, expected != size {
        throw .manifestMismatch(path: file.path, .size(expected: expected, actual: size))
      }
      let actual = entry.sha256
      if let expected = file.sha256, expected != actual {
        throw .manifestMismatch(path: file.path, .sha256(expected: expected, actual: actual))
      }
    }
    let unlisted = files.keys.filter { !listed.contains($0) }
      .sorted { $0.precedesByBytes($1) }
    if let first = unlisted.first { throw .manifestMismatch(path: first, .unlistedEntry) }
  }
}

/// An open archive file that libarchive reads through `FileSystem`, one block at a time.
final class ArchiveSource {
  let fileSystem: FileSystem
  let fd: FileDescriptor
  let path: AbsolutePath
  let watermark: WriteWatermark?
  let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
  /// How many bytes were read so far.
  var position = 0
  /// The read error that stopped libarchive, if any.
  var error: FileSystemError?

  init(
    fileSystem: FileSystem, fd: FileDescriptor, path: AbsolutePath, watermark: WriteWatermark?
  ) {
    self.fileSystem = fileSystem
    self.fd = fd
    self.path = path
    self.watermark = watermark
  }

  deinit { block.deallocate() }
}

/// libarchive's read callback: the next block of the file, 0 at its end, -1 on an error.
private func archiveSourceCallback(
  _ archive: OpaquePointer?, _ client: UnsafeMutableRawPointer?,
  _ buffer: UnsafeMutablePointer<UnsafeRawPointer?>?
) -> la_ssize_t {
  guard let client, let buffer else { return -1 }
  let source = Unmanaged<ArchiveSource>.fromOpaque(client).takeUnretainedValue()
  var room = source.block
  if let watermark = source.watermark {
    guard let available = watermark.available(after: source.position) else {
      source.error = FileSystemError("read", source.path, .interrupted)
      return -1
    }
    if available == 0 { return 0 }
    room = UnsafeMutableRawBufferPointer(rebasing: room[0..<min(room.count, available)])
  }
  do {
    let n = try source.fileSystem.read(source.fd, into: room, path: source.path)
    source.position += n
    buffer.pointee = UnsafeRawPointer(room.baseAddress)
    return la_ssize_t(n)
  } catch let error as FileSystemError {
    source.error = error
    return -1
  } catch {
    source.error = FileSystemError("read", source.path, .ioError)
    return -1
  }
}

/// `EFBIG`, which `FileSystem.readFile` reports past its limit.
let fileTooBigErrno: Int32 = 27
