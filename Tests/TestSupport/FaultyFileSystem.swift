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

  func info(_ path: String) throws -> FileInfo? {
    try tick(.info, path)
    return try base.info(path)
  }
  func infoFollowingLinks(_ path: String) throws -> FileInfo? {
    try tick(.infoFollowingLinks, path)
    return try base.infoFollowingLinks(path)
  }
  func contentsOfDirectory(_ path: String) throws -> [String] {
    try tick(.contentsOfDirectory, path)
    return try base.contentsOfDirectory(path)
  }
  func readFile(_ path: String, limit: Int) throws -> [UInt8] {
    try tick(.readFile, path)
    let bytes = try base.readFile(path, limit: limit)
    return afterRead?(path, bytes) ?? bytes
  }
  func makeDirectory(_ path: String, permissions: UInt32) throws {
    try tick(.makeDirectory, path)
    try base.makeDirectory(path, permissions: permissions)
  }
  func createExclusive(_ path: String, permissions: UInt32) throws -> FileDescriptor {
    try tick(.createExclusive, path)
    return try base.createExclusive(path, permissions: permissions)
  }
  func openForReading(_ path: String) throws -> FileDescriptor {
    try tick(.openForReading, path)
    return try base.openForReading(path)
  }
  func openForLocking(_ path: String) throws -> FileDescriptor {
    try tick(.openForLocking, path)
    return try base.openForLocking(path)
  }
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    try tick(.write, path)
    try base.write(fd, bytes, path: path)
  }
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String) throws
    -> Int
  {
    try tick(.read, path)
    return try base.read(fd, into: buffer, path: path)
  }
  func sync(_ fd: FileDescriptor, path: String) throws {
    try tick(.sync, path)
    try base.sync(fd, path: path)
  }
  func close(_ fd: FileDescriptor, path: String) throws {
    // The descriptor is released even when the fault fires, as close(2) does.
    do { try tick(.close, path) } catch {
      try? base.close(fd, path: path)
      throw error
    }
    try base.close(fd, path: path)
  }
  func syncDirectory(_ path: String) throws {
    try tick(.syncDirectory, path)
    try base.syncDirectory(path)
  }
  func rename(_ from: String, to: String) throws {
    try tick(.rename, from)
    try base.rename(from, to: to)
  }
  func exchange(_ a: String, _ b: String) throws {
    try tick(.exchange, a)
    try base.exchange(a, b)
  }
  func renameExclusive(_ from: String, to: String) throws {
    try tick(.renameExclusive, from)
    try base.renameExclusive(from, to: to)
  }
  func removeFile(_ path: String) throws {
    try tick(.removeFile, path)
    try base.removeFile(path)
  }
  func removeDirectory(_ path: String) throws {
    try tick(.removeDirectory, path)
    try base.removeDirectory(path)
  }
  func setPermissions(_ path: String, _ permissions: UInt32) throws {
    try tick(.setPermissions, path)
    try base.setPermissions(path, permissions)
  }
  func tryLock(_ fd: FileDescriptor, path: String) throws -> Bool {
    try tick(.tryLock, path)
    return try base.tryLock(fd, path: path)
  }
  func readLink(_ path: String) throws -> String {
    try tick(.readLink, path)
    return try base.readLink(path)
  }
  func realPath(_ path: String) throws -> String {
    try tick(.realPath, path)
    return try base.realPath(path)
  }
}
