/// The write locks a command holds: the one API that takes data folders' locks (mn.md §6).
///
/// A writing verb holds its data folder's lock (the dispatcher takes it from the table's
/// `.writesStore`); `restore` holds its destination's, `migrate` both folders', and `watch`
/// its folder's for each merge, tried without waiting. All of
/// them go through `acquire`, which takes the locks in the order of the roots' bytes, so
/// that two commands between the same folders, in opposite directions, wait for each
/// other instead of deadlocking, and which releases what it took when one lock cannot be
/// had. `add` takes one more lock later (a destination that `migrate` has just created).
///
/// The locks are released by `release()`, when the value is deinitialised, or when the
/// process ends (the kernel drops `flock` locks with their descriptors).
public final class WriteLocks: @unchecked Sendable {
  /// The data folders whose locks are held, in the order they were taken.
  public private(set) var roots: [AbsolutePath] = []
  private var locks: [FileLock] = []
  private let timeout: Double
  private let fileSystem: any FileSystem
  private let sleep: (Double) -> Void

  private init(timeout: Double, fileSystem: any FileSystem, sleep: @escaping (Double) -> Void) {
    self.timeout = timeout
    self.fileSystem = fileSystem
    self.sleep = sleep
  }

  /// Takes the write lock of every folder in `roots`, in the order of their paths' bytes,
  /// each waiting up to `timeout` seconds for another holder.
  ///
  /// - Parameters:
  ///   - roots: Existing data folders (duplicates are taken once).
  ///   - timeout: The `--wait` seconds, for each lock (0: try once).
  ///   - fileSystem: Where the lock files live.
  ///   - sleep: Sleeps for the given number of seconds (injected so tests need not wait).
  /// - Returns: The held locks; `add` takes more with the same wait.
  /// - Throws: `LockError.held` when a wait ran out, `LockError.fileSystem` when a lock file
  ///   cannot be opened or locked; the locks taken before are released first.
  public static func acquire(
    _ roots: [AbsolutePath], timeout: Double, fileSystem: any FileSystem,
    sleep: @escaping (Double) -> Void
  ) throws(LockError) -> WriteLocks {
    let held = WriteLocks(timeout: timeout, fileSystem: fileSystem, sleep: sleep)
    var ordered: [AbsolutePath] = []
    for root in roots.sorted(by: { $0.string.precedesByBytes($1.string) })
    where ordered.last != root {
      ordered.append(root)
    }
    for root in ordered {
      do {
        try held.add(root)
      } catch {
        held.release()
        throw error
      }
    }
    return held
  }

  /// Takes the write lock of one more data folder, with the wait given to `acquire`; a
  /// folder whose lock is already held here is not locked again.
  ///
  /// - Throws: `LockError`; the locks already held stay held.
  public func add(_ root: AbsolutePath) throws(LockError) {
    guard !roots.contains(root) else { return }
    let lock = try FileLock.acquire(
      root: root, timeout: timeout, fileSystem: fileSystem, sleep: sleep)
    locks.append(lock)
    roots.append(root)
  }

  /// Releases every lock, the last taken first. Calling it twice does nothing.
  public func release() {
    for lock in locks.reversed() { lock.release() }
    locks = []
    roots = []
  }

  deinit { release() }
}

extension WriteLocks: Sequence {
  /// The held locks, in the order they were taken.
  public func makeIterator() -> IndexingIterator<[FileLock]> { locks.makeIterator() }
}
