#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
#if canImport(CSystem) && !MN_DARWIN_SHIM
  import CSystem
#endif

/// The real file system, through thin wrappers around the C calls.
public struct LiveFileSystem: FileSystem {
  public init() {}

  /// Runs `call` until it does not fail with `EINTR`; returns its result or throws.
  @inline(__always)
  func retrying<T: BinaryInteger>(
    _ operation: String, _ path: AbsolutePath, _ call: () -> T
  ) throws(FileSystemError) -> T {
    while true {
      let result = call()
      if result != -1 { return result }
      let error = Errno.current
      if error == .interrupted { continue }
      throw FileSystemError(operation, path, error)
    }
  }

  private func makeInfo(_ st: stat) -> FileInfo {
    let format = st.st_mode & S_IFMT
    let kind: FileKind
    switch format {
    case S_IFREG: kind = .regular
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .symlink
    default: kind = .other
    }
    #if canImport(Darwin) || MN_DARWIN_SHIM
      let (seconds, nanos, flags) = Self.modificationAndFlags(st)
    #else
      let seconds = Int64(st.st_mtim.tv_sec)
      let nanos = Int64(st.st_mtim.tv_nsec)
      let flags: UInt32 = 0
    #endif
    return FileInfo(
      kind: kind, size: Int64(st.st_size),
      permissions: FilePermissions(rawValue: UInt32(st.st_mode) & 0o7777),
      modificationSeconds: seconds, modificationNanoseconds: nanos,
      device: Self.deviceNumber(st.st_dev), inode: UInt64(st.st_ino), flags: flags)
  }

  /// `dev_t` as a `UInt64`, bit for bit: Darwin's is an `Int32`, negative for some devices,
  /// which `UInt64(_:)` would trap on; Linux's is unsigned already.
  static func deviceNumber<D: BinaryInteger>(_ raw: D) -> UInt64 {
    UInt64(truncatingIfNeeded: raw)
  }

  public func info(_ path: AbsolutePath) throws(FileSystemError) -> FileInfo? {
    var st = stat()
    while lstat(path.string, &st) != 0 {
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .noSuchFileOrDirectory || error == .notDirectory { return nil }
      throw FileSystemError("stat", path, error)
    }
    return makeInfo(st)
  }

  public func infoFollowingLinks(_ path: AbsolutePath) throws(FileSystemError) -> FileInfo? {
    var st = stat()
    while stat(path.string, &st) != 0 {
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .noSuchFileOrDirectory || error == .notDirectory { return nil }
      throw FileSystemError("stat", path, error)
    }
    return makeInfo(st)
  }

  public func contentsOfDirectory(_ path: AbsolutePath) throws(FileSystemError) -> [String] {
    guard let dir = opendir(path.string) else {
      throw FileSystemError("open directory", path, .current)
    }
    defer { closedir(dir) }
    var names: [String] = []
    errno = 0
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    if errno != 0 { throw FileSystemError("read directory", path, .current) }
    return names
  }

  public func contentsOfDirectoryWithInfo(_ path: AbsolutePath) throws(FileSystemError)
    -> [DirectoryEntry]
  {
    guard let dir = opendir(path.string) else {
      throw FileSystemError("open directory", path, .current)
    }
    defer { closedir(dir) }
    let fd = dirfd(dir)
    var entries: [DirectoryEntry] = []
    errno = 0
    while let entry = readdir(dir) {
      let listed: DirectoryEntry? = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { cName in
          if Self.isDotOrDotDot(cName) { return nil }
          return statEntry(fd, cName, String(cString: cName))
        }
      }
      if let listed { entries.append(listed) }
      errno = 0
    }
    if errno != 0 { throw FileSystemError("read directory", path, .current) }
    return entries
  }

  public func directoryItems(_ path: AbsolutePath) throws(FileSystemError) -> [DirectoryItem] {
    guard let dir = opendir(path.string) else {
      throw FileSystemError("open directory", path, .current)
    }
    defer { closedir(dir) }
    var items: [DirectoryItem] = []
    errno = 0
    while let entry = readdir(dir) {
      let type = entry.pointee.d_type
      let item: DirectoryItem? = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { cName in
          if Self.isDotOrDotDot(cName) { return nil }
          return DirectoryItem(name: String(cString: cName), kind: Self.kind(ofEntryType: type))
        }
      }
      if let item { items.append(item) }
      errno = 0
    }
    if errno != 0 { throw FileSystemError("read directory", path, .current) }
    return items
  }

  /// `.` and `..`, told by their bytes before a string is made.
  private static func isDotOrDotDot(_ cName: UnsafePointer<CChar>) -> Bool {
    cName[0] == 0x2E && (cName[1] == 0 || (cName[1] == 0x2E && cName[2] == 0))
  }

  public func openDirectory(_ path: AbsolutePath) throws(FileSystemError) -> OpenDirectory {
    var directory: Int32
    repeat {
      directory = open(path.string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    } while directory < 0 && Errno.current == .interrupted
    guard directory >= 0 else { throw FileSystemError("open directory", path, .current) }
    return OpenDirectory(path: path, descriptor: FileDescriptor(rawValue: directory))
  }

  public func closeDirectory(_ directory: OpenDirectory) {
    if let descriptor = directory.descriptor { cClose(descriptor.rawValue) }
  }

  public func info(_ name: String, in directory: OpenDirectory) throws(FileSystemError)
    -> FileInfo?
  {
    guard let descriptor = directory.descriptor else { return try info(directory.path(of: name)) }
    var st = stat()
    while fstatat(descriptor.rawValue, name, &st, AT_SYMLINK_NOFOLLOW) != 0 {
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .noSuchFileOrDirectory { return nil }
      throw FileSystemError("stat", directory.path(of: name), error)
    }
    return makeInfo(st)
  }

  public func readFile(_ name: String, in directory: OpenDirectory, limit: Int)
    throws(FileSystemError) -> DirectoryEntry?
  {
    guard let descriptor = directory.descriptor else {
      let opened = try openDirectory(directory.path)
      defer { closeDirectory(opened) }
      return try readFile(name, in: opened, limit: limit)
    }
    var file: Int32
    repeat {
      file = openat(
        descriptor.rawValue, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    } while file < 0 && Errno.current == .interrupted
    guard file >= 0 else {
      if Errno.current == .noSuchFileOrDirectory { return nil }
      throw FileSystemError("open", directory.path(of: name), .current)
    }
    defer { cClose(file) }
    var st = stat()
    guard fstat(file, &st) == 0 else {
      throw FileSystemError("stat", directory.path(of: name), .current)
    }
    var entry = DirectoryEntry(name: name, info: makeInfo(st))
    guard entry.info?.kind == .regular else { return entry }
    switch readAll(file, expected: Int(st.st_size), limit: limit) {
    case .success(let bytes): entry.content = bytes
    case .failure(let error): entry.readError = error
    }
    return entry
  }

  /// The kind a directory entry's type (`d_type`) says; nil when it says none (`DT_UNKNOWN`:
  /// some file systems leave it to `lstat`).
  private static func kind(ofEntryType type: UInt8) -> FileKind? {
    switch Int32(type) {
    case Int32(DT_UNKNOWN): return nil
    case Int32(DT_REG): return .regular
    case Int32(DT_DIR): return .directory
    case Int32(DT_LNK): return .symlink
    default: return .other
    }
  }

  /// An entry with its `lstat` information; nil when it vanished in between.
  private func statEntry(_ directory: Int32, _ cName: UnsafePointer<CChar>, _ name: String)
    -> DirectoryEntry?
  {
    var st = stat()
    while fstatat(directory, cName, &st, AT_SYMLINK_NOFOLLOW) != 0 {
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .noSuchFileOrDirectory { return nil }
      return DirectoryEntry(name: name, info: nil, error: error)
    }
    return DirectoryEntry(name: name, info: makeInfo(st))
  }

  /// Reads an open regular file to its end, at most `limit` bytes. Once every byte of the
  /// size `fstat` gave (`expected`) has arrived and a read left the buffer's spare byte
  /// empty, the file is at its end and the read that would return 0 is skipped.
  private func readAll(_ file: Int32, expected: Int, limit: Int) -> Result<[UInt8], Errno> {
    let tooBig = Errno(rawValue: EFBIG)
    guard expected <= limit else { return .failure(tooBig) }
    // Sized to the file plus one byte to see its end; not zeroed first (reads fill it, and
    // only what they filled is kept).
    let size = max(expected, 0) + 1
    var out = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
    var count = 0
    while true {
      if count == out.count {
        guard count <= limit else { return .failure(tooBig) }
        out += [UInt8](repeating: 0, count: min(max(out.count, 4096), limit + 1 - count))
      }
      let wanted = out.count - count
      let n = out.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return cRead(file, base + count, wanted)
      }
      if n < 0 {
        if Errno.current == .interrupted { continue }
        return .failure(Errno.current)
      }
      count += n
      if count > limit { return .failure(tooBig) }
      if n == 0 || (n < wanted && count >= expected) { break }
    }
    out.removeLast(out.count - count)
    return .success(out)
  }

  public func readFile(_ path: AbsolutePath, limit: Int) throws(FileSystemError) -> [UInt8] {
    let fd = try openForReading(path)
    defer { try? close(fd, path: path) }
    var st = stat()
    _ = fstat(fd.rawValue, &st)
    if (st.st_mode & S_IFMT) == S_IFDIR { throw FileSystemError("read", path, .isDirectory) }
    switch readAll(fd.rawValue, expected: Int(st.st_size), limit: limit) {
    case .success(let bytes): return bytes
    case .failure(let error): throw FileSystemError("read", path, error)
    }
  }

  public func makeDirectory(_ path: AbsolutePath, permissions: FilePermissions)
    throws(FileSystemError)
  {
    _ = try retrying("create directory", path) { mkdir(path.string, mode_t(permissions.rawValue)) }
  }

  public func createExclusive(_ path: AbsolutePath, permissions: FilePermissions)
    throws(FileSystemError) -> FileDescriptor
  {
    let fd = try retrying("create", path) {
      open(path.string, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode_t(permissions.rawValue))
    }
    return FileDescriptor(rawValue: fd)
  }

  public func openForReading(_ path: AbsolutePath) throws(FileSystemError) -> FileDescriptor {
    FileDescriptor(
      rawValue: try retrying("open", path) { open(path.string, O_RDONLY | O_CLOEXEC) })
  }

  public func openForLocking(_ path: AbsolutePath) throws(FileSystemError) -> FileDescriptor {
    let fd = try retrying("open", path) { open(path.string, O_CREAT | O_RDWR | O_CLOEXEC, 0o644) }
    return FileDescriptor(rawValue: fd)
  }

  public func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: AbsolutePath)
    throws(FileSystemError)
  {
    var offset = 0
    while offset < bytes.count {
      guard let base = bytes.baseAddress else { return }
      let n = try retrying("write", path) {
        cWrite(fd.rawValue, base + offset, bytes.count - offset)
      }
      offset += n
    }
  }

  public func read(
    _ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: AbsolutePath
  ) throws(FileSystemError) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    return try retrying("read", path) { cRead(fd.rawValue, base, buffer.count) }
  }

  /// On Darwin `fcntl(F_FULLFSYNC)`, `fsync` where the file system refuses it; `fsync`
  /// elsewhere. Darwin's `fsync` only hands the data to the drive, which may keep it in its
  /// cache past a power loss; mn syncs before it removes a copy, resolves a version or
  /// deletes a migrated source (mn.md §15), so only a flush to the medium will do.
  public func sync(_ fd: FileDescriptor, path: AbsolutePath) throws(FileSystemError) {
    #if canImport(Darwin) || MN_DARWIN_SHIM
      try Self.fullSync(fd.rawValue, path: path)
    #else
      _ = try retrying("sync", path) { fsync(fd.rawValue) }
    #endif
  }

  /// Runs `full` (`F_FULLFSYNC`), retried on `EINTR`; where the file system does not have
  /// it (`ENOTSUP`, `EINVAL`, `ENOTTY`: network and some foreign file systems), `plain`
  /// (`fsync`) instead. Any other failure is thrown: the data may not be on disk.
  static func durableSync(_ path: AbsolutePath, full: () -> Int32, plain: () -> Int32)
    throws(FileSystemError)
  {
    while full() == -1 {
      let error = Errno.current
      if error == .interrupted { continue }
      guard [.notSupported, .invalidArgument, .notATerminal].contains(error) else {
        throw FileSystemError("sync", path, error)
      }
      while plain() == -1 {
        let error = Errno.current
        if error != .interrupted { throw FileSystemError("sync", path, error) }
      }
      return
    }
  }

  public func startWriteback(_ fd: FileDescriptor, offset: Int64, length: Int64) {
    #if os(Linux)
      // Not in Swift's Glibc module (it needs _GNU_SOURCE): looked up once in libc.
      if let start = syncFileRange {
        _ = start(fd.rawValue, offset, length, 2)  // SYNC_FILE_RANGE_WRITE
      }
    #endif
  }

  public func close(_ fd: FileDescriptor, path: AbsolutePath) throws(FileSystemError) {
    // close is not retried on EINTR: the descriptor is released either way on Linux.
    if cClose(fd.rawValue) != 0 {
      let error = Errno.current
      if error != .interrupted { throw FileSystemError("close", path, error) }
    }
  }

  public func syncDirectory(_ path: AbsolutePath) throws(FileSystemError) {
    let fd = try retrying("open directory", path) {
      open(path.string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }
    defer { cClose(fd) }
    #if canImport(Darwin) || MN_DARWIN_SHIM
      try Self.fullSync(fd, path: path)
    #else
      _ = try retrying("sync directory", path) { fsync(fd) }
    #endif
  }

  public func rename(_ from: AbsolutePath, to: AbsolutePath) throws(FileSystemError) {
    _ = try retrying("rename", from) { cRename(from.string, to.string) }
  }

  public func exchange(_ a: AbsolutePath, _ b: AbsolutePath) throws(FileSystemError) {
    #if canImport(Darwin) || MN_DARWIN_SHIM
      try swap(a, b)
    #elseif canImport(CSystem)
      _ = try retrying("exchange", a) {
        mn_renameat2(AT_FDCWD, a.string, AT_FDCWD, b.string, MN_RENAME_EXCHANGE)
      }
    #else
      throw FileSystemError("exchange", a, .notSupported)
    #endif
  }

  public func renameExclusive(_ from: AbsolutePath, to: AbsolutePath) throws(FileSystemError) {
    #if canImport(Darwin) || MN_DARWIN_SHIM
      try renameExclusively(from, to: to)
    #elseif canImport(CSystem)
      _ = try retrying("rename", from) {
        mn_renameat2(AT_FDCWD, from.string, AT_FDCWD, to.string, MN_RENAME_NOREPLACE)
      }
    #else
      throw FileSystemError("rename", from, .notSupported)
    #endif
  }

  public func removeFile(_ path: AbsolutePath) throws(FileSystemError) {
    _ = try retrying("remove", path) { unlink(path.string) }
  }

  public func removeDirectory(_ path: AbsolutePath) throws(FileSystemError) {
    _ = try retrying("remove directory", path) { rmdir(path.string) }
  }

  public func setPermissions(_ path: AbsolutePath, _ permissions: FilePermissions)
    throws(FileSystemError)
  {
    _ = try retrying("change mode of", path) { chmod(path.string, mode_t(permissions.rawValue)) }
  }

  public func tryLock(_ fd: FileDescriptor, path: AbsolutePath) throws(FileSystemError) -> Bool {
    while flock(fd.rawValue, LOCK_EX | LOCK_NB) != 0 {
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .wouldBlock { return false }
      throw FileSystemError("lock", path, error)
    }
    return true
  }

  public func unlock(_ fd: FileDescriptor, path: AbsolutePath) throws(FileSystemError) {
    _ = try retrying("unlock", path) { flock(fd.rawValue, LOCK_UN) }
  }

  public func readLink(_ path: AbsolutePath) throws(FileSystemError) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = try retrying("read link", path) { readlink(path.string, &buffer, buffer.count - 1) }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  public func realPath(_ path: AbsolutePath) throws(FileSystemError) -> AbsolutePath {
    guard let resolved = realpath(path.string, nil) else {
      throw FileSystemError("resolve", path, .current)
    }
    defer { free(resolved) }
    return AbsolutePath(String(cString: resolved))
  }
}

// File-scope forwarders: inside LiveFileSystem the method names shadow the C functions.
private func cWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ n: Int) -> Int { write(fd, buf, n) }
private func cRead(_ fd: Int32, _ buf: UnsafeMutableRawPointer, _ n: Int) -> Int {
  read(fd, buf, n)
}
@discardableResult private func cClose(_ fd: Int32) -> Int32 { close(fd) }
private func cRename(_ a: String, _ b: String) -> Int32 { rename(a, b) }

#if os(Linux)
  /// `sync_file_range`, or nil when libc lacks it.
  private let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
    guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
    return unsafeBitCast(
      symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
  }()
#endif
