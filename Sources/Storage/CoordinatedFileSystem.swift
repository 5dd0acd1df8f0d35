import Platform

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A `FileSystem` whose reads, replacements and removals inside synced folders run as
/// coordinated accesses of a `SyncProvider` (mn.md §6, §15).
///
/// Inside an iCloud Drive container or another File Provider folder:
/// - `readFile` runs inside a coordinated read of the file;
/// - `rename(_:to:)` (the step of a write that puts a file in place) runs inside a
///   coordinated `.replacing` write of its target;
/// - `removeFile` runs inside a coordinated `.deleting` write.
///
/// Everything else (listings, `lstat`, the temporaries' own writes) goes straight to the base
/// file system. An access made while one is already running (the replace primitive of
/// mn.md §6 reading the file it displaced, inside the `.replacing` write that `coordinate`
/// wraps around it) is not coordinated again: `NSFileCoordinator` would wait for itself.
/// Outside synced folders, and with `NoSyncProvider`, every call goes straight through.
public final class CoordinatedFileSystem: FileSystem, @unchecked Sendable {
  /// The file system that does the work.
  public let base: any FileSystem
  /// The provider that coordinates.
  public let provider: any SyncProvider
  // Guarded by `lock`: how many coordinated accesses are running on the calling thread.
  // mn's workflows are single-threaded, so one count for the process is exact for them.
  private var depth = 0
  private let lock = DepthLock()

  /// Wraps `base`; `provider` says which paths are synced and coordinates them.
  public init(base: any FileSystem, provider: any SyncProvider) {
    self.base = base
    self.provider = provider
  }

  /// Runs `body` as a coordinated `access` to `path` when `path` is in a synced folder and no
  /// coordinated access is running already; otherwise just runs it. The lead's replace
  /// primitive (mn.md §6) runs its whole exchange-and-examine inside
  /// `coordinate(.replacing, target)`.
  ///
  /// - Throws: `SyncProviderError` when coordination fails, or what `body` throws.
  public func coordinate<T>(_ access: CoordinatedAccess, _ path: String, _ body: () throws -> T)
    throws -> T
  {
    guard provider.folderKind(of: path) != .plain, lock.run({ depth == 0 }) else {
      return try body()
    }
    return try provider.coordinate(access, path) {
      lock.run { depth += 1 }
      defer { lock.run { depth -= 1 } }
      return try body()
    }
  }

  /// Runs `body` coordinated through `fileSystem` when it is a `CoordinatedFileSystem`
  /// (once, as its `coordinate`), otherwise just runs it. Every document replace runs inside
  /// `run(.replacing, target, on: fileSystem)`, from the exchange to the last look at what
  /// it displaced.
  public static func run<T>(
    _ access: CoordinatedAccess, _ path: String, on fileSystem: any FileSystem,
    _ body: () throws -> T
  ) throws -> T {
    guard let coordinated = fileSystem as? CoordinatedFileSystem else { return try body() }
    return try coordinated.coordinate(access, path, body)
  }

  public func info(_ path: String) throws -> FileInfo? { try base.info(path) }
  public func infoFollowingLinks(_ path: String) throws -> FileInfo? {
    try base.infoFollowingLinks(path)
  }
  public func contentsOfDirectory(_ path: String) throws -> [String] {
    try base.contentsOfDirectory(path)
  }
  public func contentsOfDirectoryWithInfo(_ path: String) throws -> [DirectoryEntry] {
    try base.contentsOfDirectoryWithInfo(path)
  }
  public func directoryItems(_ path: String) throws -> [DirectoryItem] {
    try base.directoryItems(path)
  }
  public func openDirectory(_ path: String) throws -> OpenDirectory {
    try base.openDirectory(path)
  }
  public func closeDirectory(_ directory: OpenDirectory) { base.closeDirectory(directory) }
  public func info(_ name: String, in directory: OpenDirectory) throws -> FileInfo? {
    try base.info(name, in: directory)
  }
  public func readFile(_ name: String, in directory: OpenDirectory, limit: Int) throws
    -> DirectoryEntry?
  {
    try base.readFile(name, in: directory, limit: limit)
  }
  public func readFile(_ path: String, limit: Int) throws -> [UInt8] {
    try coordinate(.reading, path) { try base.readFile(path, limit: limit) }
  }
  public func makeDirectory(_ path: String, permissions: UInt32) throws {
    try base.makeDirectory(path, permissions: permissions)
  }
  public func createExclusive(_ path: String, permissions: UInt32) throws -> FileDescriptor {
    try base.createExclusive(path, permissions: permissions)
  }
  public func openForReading(_ path: String) throws -> FileDescriptor {
    try base.openForReading(path)
  }
  public func openForLocking(_ path: String) throws -> FileDescriptor {
    try base.openForLocking(path)
  }
  public func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    try base.write(fd, bytes, path: path)
  }
  public func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String)
    throws -> Int
  {
    try base.read(fd, into: buffer, path: path)
  }
  public func sync(_ fd: FileDescriptor, path: String) throws { try base.sync(fd, path: path) }
  public func startWriteback(_ fd: FileDescriptor, offset: Int64, length: Int64) {
    base.startWriteback(fd, offset: offset, length: length)
  }
  public func close(_ fd: FileDescriptor, path: String) throws { try base.close(fd, path: path) }
  public func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
  public func rename(_ from: String, to: String) throws {
    try coordinate(.replacing, to) { try base.rename(from, to: to) }
  }
  public func exchange(_ a: String, _ b: String) throws {
    try coordinate(.replacing, b) { try base.exchange(a, b) }
  }
  public func renameExclusive(_ from: String, to: String) throws {
    try coordinate(.replacing, to) { try base.renameExclusive(from, to: to) }
  }
  public func removeFile(_ path: String) throws {
    try coordinate(.deleting, path) { try base.removeFile(path) }
  }
  public func removeDirectory(_ path: String) throws { try base.removeDirectory(path) }
  public func setPermissions(_ path: String, _ permissions: UInt32) throws {
    try base.setPermissions(path, permissions)
  }
  public func tryLock(_ fd: FileDescriptor, path: String) throws -> Bool {
    try base.tryLock(fd, path: path)
  }
  public func readLink(_ path: String) throws -> String { try base.readLink(path) }
  public func realPath(_ path: String) throws -> String { try base.realPath(path) }
}

/// A mutex around short critical sections (the coordination depth).
private final class DepthLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func run<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}
