/// Why the write lock could not be taken.
public enum LockError: Error, Sendable, CustomStringConvertible {
  /// Another process held the lock for the whole wait.
  case held(path: String, waited: Double)
  /// The lock file could not be opened or locked.
  case fileSystem(FileSystemError)

  public var description: String {
    switch self {
    case .held(let path, let waited):
      let seconds = waited == waited.rounded() ? String(Int(waited)) : String(waited)
      let what =
        AbsolutePath(path).lastComponent == FileLock.fileName
        ? "the data folder" : "the backup folder"
      return "\(what) is locked by another writer ('\(path)'); waited \(seconds)s"
    case .fileSystem(let error): return error.description
    }
  }
}

/// The exclusive write lock of a data folder: `flock` on `.minuta.writelock.nosync` (mn.md §6).
///
/// The lock is released when `release()` is called or the process ends (the kernel drops
/// `flock` locks with the descriptor), so a `kill -9` never leaves a stale lock.
public final class FileLock: @unchecked Sendable {
  /// The lock file's name inside the root.
  public static let fileName = ".minuta.writelock.nosync"

  /// The lock file.
  public let path: AbsolutePath
  private let fileSystem: any FileSystem
  private var descriptor: FileDescriptor?

  private init(file: AbsolutePath, fileSystem: any FileSystem, descriptor: FileDescriptor) {
    self.path = file
    self.fileSystem = fileSystem
    self.descriptor = descriptor
  }

  /// Takes the lock of the data folder at `root`, backing off until `timeout` seconds have passed.
  ///
  /// - Parameters:
  ///   - root: The data folder.
  ///   - timeout: How long to wait for another holder, in seconds (0: try once).
  ///   - fileSystem: Where the lock file lives.
  ///   - sleep: Sleeps for the given number of seconds (injected so tests need not wait).
  /// - Returns: The held lock; call `release()` when done.
  /// - Throws: `LockError.held` when the wait ran out, `LockError.fileSystem` otherwise.
  public static func acquire(
    root: AbsolutePath, timeout: Double, fileSystem: any FileSystem, sleep: (Double) -> Void
  ) throws(LockError) -> FileLock {
    try acquire(
      file: root.appending(fileName), timeout: timeout, fileSystem: fileSystem, sleep: sleep)
  }

  /// Takes an exclusive `flock` on the file at `path` (created if missing), polling until
  /// `timeout` seconds have passed (`LockBackoff`); the backup folder's lock (`BackupCatalog.lockFileName`).
  ///
  /// - Parameters:
  ///   - path: The lock file.
  ///   - timeout: How long to wait for another holder, in seconds (0: try once).
  ///   - fileSystem: Where the lock file lives.
  ///   - sleep: Sleeps for the given number of seconds.
  /// - Returns: The held lock; call `release()` when done.
  /// - Throws: `LockError.held` when the wait ran out, `LockError.fileSystem` otherwise.
  public static func acquire(
    file path: AbsolutePath, timeout: Double, fileSystem: any FileSystem,
    sleep: (Double) -> Void
  ) throws(LockError) -> FileLock {
    try acquire(
      file: path, timeout: timeout, fileSystem: fileSystem, sleep: sleep, clock: { nil },
      random: { Double.random(in: 0..<1) })
  }

  /// Takes an exclusive `flock` on the file at `path` (created if missing), trying again
  /// after the growing, randomised sleeps of `LockBackoff` until `timeout` seconds have
  /// passed on `wait`'s clock.
  ///
  /// - Parameters:
  ///   - path: The lock file.
  ///   - timeout: How long to wait for another holder, in seconds (0: try once).
  ///   - fileSystem: Where the lock file lives.
  ///   - wait: The sleep, clock and jitter of the wait (`LockWait.live` in the process).
  /// - Returns: The held lock; call `release()` when done.
  /// - Throws: `LockError.held` when the wait ran out, `LockError.fileSystem` otherwise.
  public static func acquire(
    file path: AbsolutePath, timeout: Double, fileSystem: any FileSystem, wait: LockWait
  ) throws(LockError) -> FileLock {
    try acquire(
      file: path, timeout: timeout, fileSystem: fileSystem, sleep: wait.sleep,
      clock: { wait.clock?() }, random: wait.random)
  }

  private static func acquire(
    file: AbsolutePath, timeout: Double, fileSystem: any FileSystem, sleep: (Double) -> Void,
    clock: () -> Double?, random: () -> Double
  ) throws(LockError) -> FileLock {
    let fd: FileDescriptor
    do {
      fd = try fileSystem.openForLocking(file)
    } catch let error as FileSystemError {
      throw .fileSystem(error)
    } catch {
      throw .fileSystem(FileSystemError("open", file, .ioError))
    }
    do {
      let taken = try LockBackoff.wait(
        timeout: timeout, sleep: sleep, clock: clock, random: random
      ) { () throws(FileSystemError) -> Bool in
        do {
          return try fileSystem.tryLock(fd, path: file)
        } catch let error as FileSystemError {
          throw error
        } catch {
          throw FileSystemError("lock", file, .ioError)
        }
      }
      if taken { return FileLock(file: file, fileSystem: fileSystem, descriptor: fd) }
    } catch {
      try? fileSystem.close(fd, path: file)
      throw .fileSystem(error)
    }
    try? fileSystem.close(fd, path: file)
    throw .held(path: file.string, waited: timeout)
  }

  /// Releases the lock, then closes the descriptor. Calling it twice does nothing. The unlock
  /// comes first because closing alone releases it only when no other descriptor shares the
  /// open file, and a child that another thread is starting holds one until its `exec`.
  public func release() {
    guard let fd = descriptor else { return }
    descriptor = nil
    try? fileSystem.unlock(fd, path: path)
    try? fileSystem.close(fd, path: path)
  }

  deinit { release() }
}
