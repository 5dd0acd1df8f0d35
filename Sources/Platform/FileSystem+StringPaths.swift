// Edge/bridge, to be removed: the `FileSystem` calls in their old String-path form, each
// forwarding to the `AbsolutePath` requirement it names, so that the callers not yet converted
// keep compiling unchanged while the rest move to typed paths (issue #28). New code calls the
// typed forms; once no caller is left here, this file goes. A path is wrapped as it is given
// (`AbsolutePath(_:)`, not rewritten), so what an error message quotes does not change.
// Not marked deprecated: the warnings would bury the build's other diagnostics until then.

extension FileSystem {
  /// Bridge: `info(_:)` of `AbsolutePath(path)`.
  public func info(_ path: String) throws -> FileInfo? { try info(AbsolutePath(path)) }

  /// Bridge: `infoFollowingLinks(_:)` of `AbsolutePath(path)`.
  public func infoFollowingLinks(_ path: String) throws -> FileInfo? {
    try infoFollowingLinks(AbsolutePath(path))
  }

  /// Bridge: `contentsOfDirectory(_:)` of `AbsolutePath(path)`.
  public func contentsOfDirectory(_ path: String) throws -> [String] {
    try contentsOfDirectory(AbsolutePath(path))
  }

  /// Bridge: `contentsOfDirectoryWithInfo(_:)` of `AbsolutePath(path)`.
  public func contentsOfDirectoryWithInfo(_ path: String) throws -> [DirectoryEntry] {
    try contentsOfDirectoryWithInfo(AbsolutePath(path))
  }

  /// Bridge: `directoryItems(_:)` of `AbsolutePath(path)`.
  public func directoryItems(_ path: String) throws -> [DirectoryItem] {
    try directoryItems(AbsolutePath(path))
  }

  /// Bridge: `directoryItemsWithKinds(_:)` of `AbsolutePath(path)`.
  public func directoryItemsWithKinds(_ path: String) throws -> [DirectoryItem] {
    try directoryItemsWithKinds(AbsolutePath(path))
  }

  /// Bridge: `openDirectory(_:)` of `AbsolutePath(path)`.
  public func openDirectory(_ path: String) throws -> OpenDirectory {
    try openDirectory(AbsolutePath(path))
  }

  /// Bridge: `readFile(_:limit:)` of `AbsolutePath(path)`.
  public func readFile(_ path: String, limit: Int) throws -> [UInt8] {
    try readFile(AbsolutePath(path), limit: limit)
  }

  /// Bridge: `makeDirectory(_:permissions:)` of `AbsolutePath(path)`.
  public func makeDirectory(_ path: String, permissions: FilePermissions) throws {
    try makeDirectory(AbsolutePath(path), permissions: permissions)
  }

  /// Bridge: `createExclusive(_:permissions:)` of `AbsolutePath(path)`.
  public func createExclusive(_ path: String, permissions: FilePermissions) throws
    -> FileDescriptor
  {
    try createExclusive(AbsolutePath(path), permissions: permissions)
  }

  /// Bridge: `openForReading(_:)` of `AbsolutePath(path)`.
  public func openForReading(_ path: String) throws -> FileDescriptor {
    try openForReading(AbsolutePath(path))
  }

  /// Bridge: `openForLocking(_:)` of `AbsolutePath(path)`.
  public func openForLocking(_ path: String) throws -> FileDescriptor {
    try openForLocking(AbsolutePath(path))
  }

  /// Bridge: `write(_:_:path:)` naming `AbsolutePath(path)`.
  public func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    try write(fd, bytes, path: AbsolutePath(path))
  }

  /// Bridge: `read(_:into:path:)` naming `AbsolutePath(path)`.
  public func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String)
    throws -> Int
  {
    try read(fd, into: buffer, path: AbsolutePath(path))
  }

  /// Bridge: `sync(_:path:)` naming `AbsolutePath(path)`.
  public func sync(_ fd: FileDescriptor, path: String) throws {
    try sync(fd, path: AbsolutePath(path))
  }

  /// Bridge: `close(_:path:)` naming `AbsolutePath(path)`.
  public func close(_ fd: FileDescriptor, path: String) throws {
    try close(fd, path: AbsolutePath(path))
  }

  /// Bridge: `syncDirectory(_:)` of `AbsolutePath(path)`.
  public func syncDirectory(_ path: String) throws { try syncDirectory(AbsolutePath(path)) }

  /// Bridge: `rename(_:to:)` of the two paths.
  public func rename(_ from: String, to: String) throws {
    try rename(AbsolutePath(from), to: AbsolutePath(to))
  }

  /// Bridge: `exchange(_:_:)` of the two paths.
  public func exchange(_ a: String, _ b: String) throws {
    try exchange(AbsolutePath(a), AbsolutePath(b))
  }

  /// Bridge: `renameExclusive(_:to:)` of the two paths.
  public func renameExclusive(_ from: String, to: String) throws {
    try renameExclusive(AbsolutePath(from), to: AbsolutePath(to))
  }

  /// Bridge: `removeFile(_:)` of `AbsolutePath(path)`.
  public func removeFile(_ path: String) throws { try removeFile(AbsolutePath(path)) }

  /// Bridge: `removeDirectory(_:)` of `AbsolutePath(path)`.
  public func removeDirectory(_ path: String) throws { try removeDirectory(AbsolutePath(path)) }

  /// Bridge: `setPermissions(_:_:)` of `AbsolutePath(path)`.
  public func setPermissions(_ path: String, _ permissions: FilePermissions) throws {
    try setPermissions(AbsolutePath(path), permissions)
  }

  /// Bridge: `tryLock(_:path:)` naming `AbsolutePath(path)`.
  public func tryLock(_ fd: FileDescriptor, path: String) throws -> Bool {
    try tryLock(fd, path: AbsolutePath(path))
  }

  /// Bridge: `readLink(_:)` of `AbsolutePath(path)`.
  public func readLink(_ path: String) throws -> String { try readLink(AbsolutePath(path)) }

  /// Bridge: `realPath(_:)` of `AbsolutePath(path)`, as text.
  public func realPath(_ path: String) throws -> String { try realPath(AbsolutePath(path)).string }
}
