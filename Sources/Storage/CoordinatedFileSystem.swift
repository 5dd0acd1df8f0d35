import Platform
import Threads

/// A `FileSystem` whose reads, replacements and removals inside synced folders run as
/// coordinated accesses of a `SyncProvider` (mn.md §6, §15).
///
/// Inside an iCloud Drive container or another File Provider folder:
/// - `readFile` runs inside a coordinated read of the file;
/// - `rename(_:to:)` (the step of a write that puts a file in place) runs inside a
///   coordinated `.replacing` write of its target;
/// - `removeFile` runs inside a coordinated `.deleting` write.
///
/// - a document replace (`Replace.replace`, through `ItemReplacingFileSystem`) writes its
///   temporary in the provider's replacement directory, outside the synced tree, and puts
///   it in place with the provider's `replaceItem`, never by a swap through a `.nosync` name
///   inside the folder (mn.md §6);
/// - a dataless file is never displaced, renamed or removed: those calls fail with
///   `EDEADLK` ("not downloaded") when their target is one. Inside the coordinated write the
///   provider cannot make it dataless meanwhile, so the look before the act holds.
///
/// Everything else (listings, `lstat`, the temporaries' own writes) goes straight to the base
/// file system. An access made while one is already running (the replace primitive of
/// mn.md §6 reading the file it displaced, inside the `.replacing` write that `coordinate`
/// wraps around it) is not coordinated again: `NSFileCoordinator` would wait for itself.
/// Outside synced folders, and with `NoSyncProvider`, every call goes straight through.
public final class CoordinatedFileSystem: ItemReplacingFileSystem, @unchecked Sendable {
  /// The file system that does the work.
  public let base: any FileSystem
  /// The provider that coordinates.
  public let provider: any SyncProvider
  // Guarded by `lock`: how many coordinated accesses are running on the calling thread.
  // mn's workflows are single-threaded, so one count for the process is exact for them.
  private var depth = 0
  // Guarded by `lock`: folders known to be a File Provider's by a dataless file in them.
  private var datalessFolders: Set<AbsolutePath> = []
  private let lock = Monitor()

  /// Wraps `base`; `provider` says which paths are synced and coordinates them.
  public init(base: any FileSystem, provider: any SyncProvider) {
    self.base = base
    self.provider = provider
  }

  /// What kind of synced folder `path` is in: the provider's answer, else a File Provider
  /// folder when a dataless file was seen in it or in a folder above it (mn.md §15: a
  /// provider folder is known by what the system says of it and by any `SF_DATALESS` file,
  /// never by path alone; a folder that only a provider can make dataless is one whatever
  /// the system says of its path).
  public func folderKind(of path: AbsolutePath) -> SyncFolderKind {
    let kind = provider.folderKind(of: path)
    guard kind == .plain else { return kind }
    let known = lock.locked { datalessFolders.contains { path.isInside($0) } }
    return known ? .fileProvider : .plain
  }

  /// Takes `folder` (and everything below it) for a File Provider folder from now on: a
  /// dataless file was seen in it. `FolderScan` notes its root when it saw one anywhere below.
  public func noteProviderFolder(_ folder: AbsolutePath) {
    lock.locked { _ = datalessFolders.insert(folder) }
  }

  /// Whether a dataless file was seen in `folder` or below it.
  public func sawDataless(under folder: AbsolutePath) -> Bool {
    lock.locked { datalessFolders.contains { $0.isInside(folder) } }
  }

  /// Notes the folder of `path` when `info` says it is dataless; returns `info`.
  private func noting(_ info: FileInfo?, of path: AbsolutePath) -> FileInfo? {
    if let info, DatalessFiles.isDataless(info) {
      noteProviderFolder(path.parent)
    }
    return info
  }

  /// Runs `body` as a coordinated `access` to `path` when `path` is in a synced folder and no
  /// coordinated access is running already; otherwise just runs it. The lead's replace
  /// primitive (mn.md §6) runs its whole exchange-and-examine inside
  /// `coordinate(.replacing, target)`.
  ///
  /// - Throws: `SyncProviderError` when coordination fails, or what `body` throws.
  public func coordinate<T>(
    _ access: CoordinatedAccess, _ path: AbsolutePath, _ body: () throws -> T
  ) throws -> T {
    guard folderKind(of: path) != .plain, lock.locked({ depth == 0 }) else {
      return try body()
    }
    return try provider.coordinate(access, path) {
      lock.locked { depth += 1 }
      defer { lock.locked { depth -= 1 } }
      return try body()
    }
  }

  /// Runs `body` coordinated through `fileSystem` when it is a `CoordinatedFileSystem`
  /// (once, as its `coordinate`), otherwise just runs it. Every document replace runs inside
  /// `run(.replacing, target, on: fileSystem)`, from the exchange to the last look at what
  /// it displaced.
  public static func run<T>(
    _ access: CoordinatedAccess, _ path: AbsolutePath, on fileSystem: any FileSystem,
    _ body: () throws -> T
  ) throws -> T {
    guard let coordinated = fileSystem as? CoordinatedFileSystem else { return try body() }
    return try coordinated.coordinate(access, path, body)
  }

  /// The provider's replacement directory for a target in a synced folder; nil (the swap)
  /// in a plain folder.
  public func replacementDirectory(for target: AbsolutePath) throws -> AbsolutePath? {
    guard folderKind(of: target) != .plain else { return nil }
    return try provider.replacementDirectory(appropriateFor: target)
  }

  /// The provider's `replaceItem`, inside a coordinated write of `target` (the one the whole
  /// replace runs in, or its own), after a look that `target` is a file that is not dataless.
  public func replaceItem(
    at target: AbsolutePath, withItemAt item: AbsolutePath, backupName: String
  ) throws -> AbsolutePath {
    try coordinate(.replacing, target) {
      guard try base.info(target) != nil else {
        throw FileSystemError("replace", target, .noSuchFileOrDirectory)
      }
      try refuseDataless(target, "replace")
      return try provider.replaceItem(at: target, withItemAt: item, backupItemName: backupName)
    }
  }

  /// Throws `EDEADLK` (what a read of it gives: "not downloaded") when `path` is a dataless
  /// file in a synced folder: a dataless file is never displaced, renamed or removed
  /// (mn.md §6, §15).
  private func refuseDataless(_ path: AbsolutePath, _ operation: String) throws {
    guard folderKind(of: path) != .plain, let info = try base.info(path),
      DatalessFiles.isDataless(info)
    else { return }
    throw FileSystemError(operation, path, .deadlock)
  }

  public func info(_ path: AbsolutePath) throws -> FileInfo? {
    noting(try base.info(path), of: path)
  }
  public func infoFollowingLinks(_ path: AbsolutePath) throws -> FileInfo? {
    try base.infoFollowingLinks(path)
  }
  public func contentsOfDirectory(_ path: AbsolutePath) throws -> [String] {
    try base.contentsOfDirectory(path)
  }
  public func contentsOfDirectoryWithInfo(_ path: AbsolutePath) throws -> [DirectoryEntry] {
    try base.contentsOfDirectoryWithInfo(path)
  }
  public func directoryItems(_ path: AbsolutePath) throws -> [DirectoryItem] {
    try base.directoryItems(path)
  }
  public func openDirectory(_ path: AbsolutePath) throws -> OpenDirectory {
    try base.openDirectory(path)
  }
  public func closeDirectory(_ directory: OpenDirectory) { base.closeDirectory(directory) }
  public func info(_ name: String, in directory: OpenDirectory) throws -> FileInfo? {
    noting(try base.info(name, in: directory), of: directory.path(of: name))
  }
  public func readFile(_ name: String, in directory: OpenDirectory, limit: Int) throws
    -> DirectoryEntry?
  {
    try base.readFile(name, in: directory, limit: limit)
  }
  public func readFile(_ path: AbsolutePath, limit: Int) throws -> [UInt8] {
    try coordinate(.reading, path) { try base.readFile(path, limit: limit) }
  }
  public func makeDirectory(_ path: AbsolutePath, permissions: FilePermissions) throws {
    try base.makeDirectory(path, permissions: permissions)
  }
  public func createExclusive(_ path: AbsolutePath, permissions: FilePermissions) throws
    -> FileDescriptor
  {
    try base.createExclusive(path, permissions: permissions)
  }
  public func openForReading(_ path: AbsolutePath) throws -> FileDescriptor {
    try base.openForReading(path)
  }
  public func openForLocking(_ path: AbsolutePath) throws -> FileDescriptor {
    try base.openForLocking(path)
  }
  public func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: AbsolutePath)
    throws
  {
    try base.write(fd, bytes, path: path)
  }
  public func read(
    _ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: AbsolutePath
  ) throws -> Int {
    try base.read(fd, into: buffer, path: path)
  }
  public func sync(_ fd: FileDescriptor, path: AbsolutePath) throws {
    try base.sync(fd, path: path)
  }
  public func startWriteback(_ fd: FileDescriptor, offset: Int64, length: Int64) {
    base.startWriteback(fd, offset: offset, length: length)
  }
  public func close(_ fd: FileDescriptor, path: AbsolutePath) throws {
    try base.close(fd, path: path)
  }
  public func syncDirectory(_ path: AbsolutePath) throws { try base.syncDirectory(path) }
  public func rename(_ from: AbsolutePath, to: AbsolutePath) throws {
    try coordinate(.replacing, to) {
      try refuseDataless(from, "rename")
      try refuseDataless(to, "rename over")
      try base.rename(from, to: to)
    }
  }
  public func exchange(_ a: AbsolutePath, _ b: AbsolutePath) throws {
    try coordinate(.replacing, b) {
      try refuseDataless(a, "exchange")
      try refuseDataless(b, "exchange")
      try base.exchange(a, b)
    }
  }
  public func renameExclusive(_ from: AbsolutePath, to: AbsolutePath) throws {
    try coordinate(.replacing, to) {
      try refuseDataless(from, "rename")
      try base.renameExclusive(from, to: to)
    }
  }
  public func removeFile(_ path: AbsolutePath) throws {
    try coordinate(.deleting, path) {
      try refuseDataless(path, "remove")
      try base.removeFile(path)
    }
  }
  public func removeDirectory(_ path: AbsolutePath) throws { try base.removeDirectory(path) }
  public func setPermissions(_ path: AbsolutePath, _ permissions: FilePermissions) throws {
    try base.setPermissions(path, permissions)
  }
  public func tryLock(_ fd: FileDescriptor, path: AbsolutePath) throws -> Bool {
    try base.tryLock(fd, path: path)
  }
  public func unlock(_ fd: FileDescriptor, path: AbsolutePath) throws {
    try base.unlock(fd, path: path)
  }
  public func readLink(_ path: AbsolutePath) throws -> String { try base.readLink(path) }
  public func realPath(_ path: AbsolutePath) throws -> AbsolutePath { try base.realPath(path) }
}
