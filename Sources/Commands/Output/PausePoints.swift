import Platform
import Threads

/// A named step of the writing workflows (merge-conflicts, repair, migrate, restore, watch),
/// where a crash test stops the process (docs/testing.md).
public enum PauseStep: String, CaseIterable, Sendable {
  /// A write lock was taken (the dispatcher's, `watch`'s, `migrate`'s of each folder,
  /// `restore`'s of its destination).
  case afterLock = "after-lock"
  /// A backup archive is in place in the backup folder (verified, renamed, not yet synced).
  case afterBackup = "after-backup"
  /// A new file is written and synced beside its target, not yet put in place.
  case afterWrite = "after-write"
  /// A new file was put in place (exchanged or renamed); what it displaced is not yet
  /// examined or removed.
  case afterSwap = "after-swap"
  /// A file other than mn's own temporaries (a merged conflict copy, a moved source) is
  /// about to be removed.
  case beforeRemove = "before-remove"
}

/// The test-only hook `MN_TEST_PAUSE_AT=STEP[:N]`: the process stops itself with `SIGSTOP`
/// the `N`th time (default 1) it reaches `STEP`, so that a test can `kill -9` it exactly
/// there (docs/testing.md). Read from the injected `Environment` only; without the
/// variable (or with a value that names no step) nothing is counted and nothing stops.
public final class PausePoints: @unchecked Sendable {
  /// The step to stop at.
  public let step: PauseStep
  /// Which time the step is reached that stops the process (from 1).
  public let occurrence: Int
  private let monitor = Monitor()
  private var reachedCount = 0

  /// The hook that `value` (the variable's value) asks for; nil when it asks for none.
  public init?(_ value: String?) {
    guard let value, !value.isEmpty else { return nil }
    let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
    guard let step = PauseStep(rawValue: parts[0]) else { return nil }
    let occurrence = parts.count > 1 ? Int(parts[1]) : 1
    guard let occurrence, occurrence >= 1 else { return nil }
    self.step = step
    self.occurrence = occurrence
  }

  /// Counts `step`; stops the process (`SIGSTOP`) when it is the one asked for.
  public func reached(_ step: PauseStep) {
    guard step == self.step else { return }
    let stop = monitor.locked {
      reachedCount += 1
      return reachedCount == occurrence
    }
    // The whole process stops; the test that asked kills it (or sends SIGCONT).
    if stop { Signals.stopProcess() }
  }
}

/// A `FileSystem` that tells `PausePoints` of the steps its calls make: a lock taken
/// (`after-lock`), an archive renamed into place (`after-backup`), a temporary put in place (`after-write` before,
/// `after-swap` after), a file that is not a temporary removed (`before-remove`). Used only
/// when `MN_TEST_PAUSE_AT` is set; every call is forwarded unchanged.
struct PausingFileSystem: FileSystem {
  let base: any FileSystem
  let points: PausePoints

  /// Whether `path` names one of mn's temporaries (`.NAME.mn-XXXXXX.nosync`, mn.md §6).
  static func isTemporary(_ path: AbsolutePath) -> Bool {
    let name = path.lastComponent
    return name.hasPrefix(".") && name.contains(".mn-")
  }

  private func putInPlace(
    _ from: AbsolutePath, _ to: AbsolutePath, _ body: () throws -> Void
  ) throws {
    if to.lastComponent.hasSuffix(".tar.gz") {
      try body()
      points.reached(.afterBackup)
      return
    }
    let document = Self.isTemporary(from) && !Self.isTemporary(to)
    if document { points.reached(.afterWrite) }
    try body()
    if document { points.reached(.afterSwap) }
  }

  func rename(_ from: AbsolutePath, to: AbsolutePath) throws {
    try putInPlace(from, to) { try base.rename(from, to: to) }
  }
  func exchange(_ a: AbsolutePath, _ b: AbsolutePath) throws {
    try putInPlace(a, b) { try base.exchange(a, b) }
  }
  func renameExclusive(_ from: AbsolutePath, to: AbsolutePath) throws {
    try putInPlace(from, to) { try base.renameExclusive(from, to: to) }
  }
  func removeFile(_ path: AbsolutePath) throws {
    if !Self.isTemporary(path) { points.reached(.beforeRemove) }
    try base.removeFile(path)
  }

  func info(_ path: AbsolutePath) throws -> FileInfo? { try base.info(path) }
  func infoFollowingLinks(_ path: AbsolutePath) throws -> FileInfo? {
    try base.infoFollowingLinks(path)
  }
  func contentsOfDirectory(_ path: AbsolutePath) throws -> [String] {
    try base.contentsOfDirectory(path)
  }
  func contentsOfDirectoryWithInfo(_ path: AbsolutePath) throws -> [DirectoryEntry] {
    try base.contentsOfDirectoryWithInfo(path)
  }
  func directoryItems(_ path: AbsolutePath) throws -> [DirectoryItem] {
    try base.directoryItems(path)
  }
  func openDirectory(_ path: AbsolutePath) throws -> OpenDirectory { try base.openDirectory(path) }
  func closeDirectory(_ directory: OpenDirectory) { base.closeDirectory(directory) }
  func info(_ name: String, in directory: OpenDirectory) throws -> FileInfo? {
    try base.info(name, in: directory)
  }
  func readFile(_ name: String, in directory: OpenDirectory, limit: Int) throws
    -> DirectoryEntry?
  {
    try base.readFile(name, in: directory, limit: limit)
  }
  func readFile(_ path: AbsolutePath, limit: Int) throws -> [UInt8] {
    try base.readFile(path, limit: limit)
  }
  func makeDirectory(_ path: AbsolutePath, permissions: FilePermissions) throws {
    try base.makeDirectory(path, permissions: permissions)
  }
  func createExclusive(_ path: AbsolutePath, permissions: FilePermissions) throws -> FileDescriptor
  {
    try base.createExclusive(path, permissions: permissions)
  }
  func openForReading(_ path: AbsolutePath) throws -> FileDescriptor {
    try base.openForReading(path)
  }
  func openForLocking(_ path: AbsolutePath) throws -> FileDescriptor {
    try base.openForLocking(path)
  }
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: AbsolutePath) throws {
    try base.write(fd, bytes, path: path)
  }
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: AbsolutePath)
    throws -> Int
  {
    try base.read(fd, into: buffer, path: path)
  }
  func sync(_ fd: FileDescriptor, path: AbsolutePath) throws { try base.sync(fd, path: path) }
  func startWriteback(_ fd: FileDescriptor, offset: Int64, length: Int64) {
    base.startWriteback(fd, offset: offset, length: length)
  }
  func close(_ fd: FileDescriptor, path: AbsolutePath) throws { try base.close(fd, path: path) }
  func syncDirectory(_ path: AbsolutePath) throws { try base.syncDirectory(path) }
  func removeDirectory(_ path: AbsolutePath) throws { try base.removeDirectory(path) }
  func setPermissions(_ path: AbsolutePath, _ permissions: FilePermissions) throws {
    try base.setPermissions(path, permissions)
  }
  func tryLock(_ fd: FileDescriptor, path: AbsolutePath) throws -> Bool {
    let taken = try base.tryLock(fd, path: path)
    if taken { points.reached(.afterLock) }
    return taken
  }
  func unlock(_ fd: FileDescriptor, path: AbsolutePath) throws { try base.unlock(fd, path: path) }
  func readLink(_ path: AbsolutePath) throws -> String { try base.readLink(path) }
  func realPath(_ path: AbsolutePath) throws -> AbsolutePath { try base.realPath(path) }
}
