@testable import Core

/// The live file system, except that chosen calls on chosen paths fail with an `Errno`.
struct FailingFileSystem: FileSystem {
  var live = LiveFileSystem()
  /// Paths whose directory listing fails.
  var failListing: [String: Errno] = [:]
  /// Paths whose `lstat` fails.
  var failInfo: [String: Errno] = [:]

  func info(_ path: String) throws -> FileInfo? {
    if let e = failInfo[path] { throw FileSystemError("stat", path, e) }
    return try live.info(path)
  }
  func infoFollowingLinks(_ path: String) throws -> FileInfo? {
    if let e = failInfo[path] { throw FileSystemError("stat", path, e) }
    return try live.infoFollowingLinks(path)
  }
  func contentsOfDirectory(_ path: String) throws -> [String] {
    if let e = failListing[path] { throw FileSystemError("open directory", path, e) }
    return try live.contentsOfDirectory(path)
  }
  func readFile(_ path: String, limit: Int) throws -> [UInt8] {
    try live.readFile(path, limit: limit)
  }
  func makeDirectory(_ path: String, permissions: UInt32) throws {
    try live.makeDirectory(path, permissions: permissions)
  }
  func createExclusive(_ path: String, permissions: UInt32) throws -> FileDescriptor {
    try live.createExclusive(path, permissions: permissions)
  }
  func openForReading(_ path: String) throws -> FileDescriptor { try live.openForReading(path) }
  func openForLocking(_ path: String) throws -> FileDescriptor { try live.openForLocking(path) }
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    try live.write(fd, bytes, path: path)
  }
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String) throws
    -> Int
  {
    try live.read(fd, into: buffer, path: path)
  }
  func sync(_ fd: FileDescriptor, path: String) throws { try live.sync(fd, path: path) }
  func close(_ fd: FileDescriptor, path: String) throws { try live.close(fd, path: path) }
  func syncDirectory(_ path: String) throws { try live.syncDirectory(path) }
  func rename(_ from: String, to: String) throws { try live.rename(from, to: to) }
  func removeFile(_ path: String) throws { try live.removeFile(path) }
  func removeDirectory(_ path: String) throws { try live.removeDirectory(path) }
  func setPermissions(_ path: String, _ permissions: UInt32) throws {
    try live.setPermissions(path, permissions)
  }
  func tryLock(_ fd: FileDescriptor, path: String) throws -> Bool {
    try live.tryLock(fd, path: path)
  }
  func readLink(_ path: String) throws -> String { try live.readLink(path) }
  func realPath(_ path: String) throws -> String { try live.realPath(path) }
}
