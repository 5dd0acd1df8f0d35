import AutomergeCodec
import Foundation
import Platform

/// A `FileSystem` that forwards to another (the live one by default) and fails chosen calls:
/// "the 3rd `write` fails with ENOSPC". For tests of failure paths (style.md (e)).
///
/// ```swift
/// let fs = FaultyFileSystem(failing: .write, onCall: 2, with: .noSpace)
/// ```
/// Calls are counted per operation from 1; `calls(.write)` tells how many happened, so a
/// test can loop N = 1, 2, ... until an operation succeeds without reaching the fault.
final class FaultyFileSystem: FileSystem, @unchecked Sendable {
  /// The operations that can be made to fail, one per protocol method.
  enum Operation: Hashable, Sendable, CaseIterable {
    case info, infoFollowingLinks, contentsOfDirectory, readFile, makeDirectory
    case createExclusive, openForReading, openForLocking, write, read, sync, close
    case syncDirectory, rename, exchange, renameExclusive, removeFile, removeDirectory
    case setPermissions, tryLock
    case readLink, realPath
  }

  /// One planned failure: the `call`-th `operation` throws `errno`.
  struct Fault: Sendable {
    var operation: Operation
    var call: Int
    var errno: Errno
  }

  /// A path on which an operation always fails: "listing records/2025 fails with EACCES".
  struct PathFault: Sendable {
    var operation: Operation
    var path: String
    var errno: Errno
  }

  private struct State {
    var counts: [Operation: Int] = [:]
    var created: [String] = []
  }

  let base: any FileSystem
  let faults: [Fault]
  let pathFaults: [PathFault]
  /// Called before every operation with its path (the first path of a rename or exchange):
  /// lets a test make "another version arrives now" happen at a chosen step.
  /// It may throw, to stop a run at that step as `kill -9` would.
  var before: (@Sendable (Operation, String) throws -> Void)?
  /// Changes what `readFile` returns: a read racing a writer, say.
  var afterRead: (@Sendable (String, [UInt8]) -> [UInt8])?
  /// Operations that always fail, with their error.
  private var refused: [Operation: Errno] = [:]
  // Guarded by `lock` (NSLock rather than Mutex: Mutex needs macOS 15).
  private var state = State()
  private let lock = NSLock()

  init(base: any FileSystem = LiveFileSystem(), faults: [Fault], pathFaults: [PathFault] = []) {
    self.base = base
    self.faults = faults
    self.pathFaults = pathFaults
  }

  /// A file system on which the given operations fail every time, on any path: one that
  /// cannot exchange, say (`refusing: [.exchange, .renameExclusive], with: .invalidArgument`).
  convenience init(
    base: any FileSystem = LiveFileSystem(), failingPaths: [PathFault],
    refusing operations: Set<Operation>, with errno: Errno
  ) {
    self.init(base: base, faults: [], pathFaults: failingPaths)
    refused = Dictionary(uniqueKeysWithValues: operations.map { ($0, errno) })
  }

  /// A file system on which the given operations fail on the given paths, every time.
  convenience init(base: any FileSystem = LiveFileSystem(), failingPaths: [PathFault]) {
    self.init(base: base, faults: [], pathFaults: failingPaths)
  }

  convenience init(
    base: any FileSystem = LiveFileSystem(), failing operation: Operation, onCall call: Int,
    with errno: Errno = .noSpace
  ) {
    self.init(base: base, faults: [Fault(operation: operation, call: call, errno: errno)])
  }

  /// How many times `operation` was called.
  func calls(_ operation: Operation) -> Int { locked { $0.counts[operation, default: 0] } }

  /// Every path passed to `createExclusive`, in order (successful or not).
  var createdPaths: [String] { locked { $0.created } }

  private func locked<T>(_ body: (inout State) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&state)
  }

  private func tick(_ operation: Operation, _ path: String) throws {
    try before?(operation, path)
    if let errno = refused[operation] { throw FileSystemError("\(operation)", path, errno) }
    let count = locked { state -> Int in
      state.counts[operation, default: 0] += 1
      if operation == .createExclusive { state.created.append(path) }
      return state.counts[operation, default: 0]
    }
    if let fault = pathFaults.first(where: { $0.operation == operation && $0.path == path }) {
      throw FileSystemError("\(operation)", path, fault.errno)
    }
    if let fault = faults.first(where: { $0.operation == operation && $0.call == count }) {
      throw FileSystemError("\(operation)", path, fault.errno)
    }
  }

  func info(_ path: AbsolutePath) throws -> FileInfo? {
    try tick(.info, path.string)
    return try base.info(path)
  }
  func infoFollowingLinks(_ path: AbsolutePath) throws -> FileInfo? {
    try tick(.infoFollowingLinks, path.string)
    return try base.infoFollowingLinks(path)
  }
  func contentsOfDirectory(_ path: AbsolutePath) throws -> [String] {
    try tick(.contentsOfDirectory, path.string)
    return try base.contentsOfDirectory(path)
  }
  func readFile(_ path: AbsolutePath, limit: Int) throws -> [UInt8] {
    try tick(.readFile, path.string)
    let bytes = try base.readFile(path, limit: limit)
    return afterRead?(path.string, bytes) ?? bytes
  }
  func makeDirectory(_ path: AbsolutePath, permissions: FilePermissions) throws {
    try tick(.makeDirectory, path.string)
    try base.makeDirectory(path, permissions: permissions)
  }
  func createExclusive(_ path: AbsolutePath, permissions: FilePermissions) throws -> FileDescriptor
  {
    try tick(.createExclusive, path.string)
    return try base.createExclusive(path, permissions: permissions)
  }
  func openForReading(_ path: AbsolutePath) throws -> FileDescriptor {
    try tick(.openForReading, path.string)
    return try base.openForReading(path)
  }
  func openForLocking(_ path: AbsolutePath) throws -> FileDescriptor {
    try tick(.openForLocking, path.string)
    return try base.openForLocking(path)
  }
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: AbsolutePath) throws {
    try tick(.write, path.string)
    try base.write(fd, bytes, path: path)
  }
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: AbsolutePath)
    throws
    -> Int
  {
    try tick(.read, path.string)
    return try base.read(fd, into: buffer, path: path)
  }
  func sync(_ fd: FileDescriptor, path: AbsolutePath) throws {
    try tick(.sync, path.string)
    try base.sync(fd, path: path)
  }
  func close(_ fd: FileDescriptor, path: AbsolutePath) throws {
    // The descriptor is released even when the fault fires, as close(2) does.
    do { try tick(.close, path.string) } catch {
      try? base.close(fd, path: path)
      throw error
    }
    try base.close(fd, path: path)
  }
  func syncDirectory(_ path: AbsolutePath) throws {
    try tick(.syncDirectory, path.string)
    try base.syncDirectory(path)
  }
  func rename(_ from: AbsolutePath, to: AbsolutePath) throws {
    try tick(.rename, from.string)
    try base.rename(from, to: to)
  }
  func exchange(_ a: AbsolutePath, _ b: AbsolutePath) throws {
    try tick(.exchange, a.string)
    try base.exchange(a, b)
  }
  func renameExclusive(_ from: AbsolutePath, to: AbsolutePath) throws {
    try tick(.renameExclusive, from.string)
    try base.renameExclusive(from, to: to)
  }
  func removeFile(_ path: AbsolutePath) throws {
    try tick(.removeFile, path.string)
    try base.removeFile(path)
  }
  func removeDirectory(_ path: AbsolutePath) throws {
    try tick(.removeDirectory, path.string)
    try base.removeDirectory(path)
  }
  func setPermissions(_ path: AbsolutePath, _ permissions: FilePermissions) throws {
    try tick(.setPermissions, path.string)
    try base.setPermissions(path, permissions)
  }
  func tryLock(_ fd: FileDescriptor, path: AbsolutePath) throws -> Bool {
    try tick(.tryLock, path.string)
    return try base.tryLock(fd, path: path)
  }
  func unlock(_ fd: FileDescriptor, path: AbsolutePath) throws { try base.unlock(fd, path: path) }
  func readLink(_ path: AbsolutePath) throws -> String {
    try tick(.readLink, path.string)
    return try base.readLink(path)
  }
  func realPath(_ path: AbsolutePath) throws -> AbsolutePath {
    try tick(.realPath, path.string)
    return try base.realPath(path)
  }
}
