#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// The threads of mn: a monitor and workers (the archive writer, Archive/WriterThreads.swift),
// and an ordered loop with its middle step on threads (`doctor`, `log`, and the codec's
// rebuilding of a large document's changes).

/// The processors online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1.
public enum Processors {
  public static var online: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  /// The processors that work on the calling thread may spread over: all those online, but
  /// one on a thread of an `OrderedWork` loop, whose other items keep the rest busy (a
  /// document that `doctor` decodes there is not split into halves on threads of its own).
  public static var available: Int { OrderedWork.isOnItsThread ? 1 : online }
}

/// A mutex with one condition variable: the waiting and waking that the writer's helper
/// threads share.
public final class Monitor: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  public init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
    condition.deallocate()
  }

  /// Runs `body` holding the mutex.
  public func locked<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  /// Inside `locked`: releases the mutex until `broadcast`, then holds it again.
  public func wait() { pthread_cond_wait(condition, mutex) }

  /// Inside `locked`: wakes every waiting thread.
  public func broadcast() { pthread_cond_broadcast(condition) }
}

/// A result computed on a thread of its own; `join` waits for it.
public final class Worker<Value: Sendable>: @unchecked Sendable {
  /// Every worker's stack: 8 MiB, as the main thread's on Linux and macOS.
  static var stackSize: Int { 8 << 20 }

  private var thread: pthread_t
  private let body: @Sendable () -> Value
  private var value: Value?

  /// Starts `body` on a new thread; nil when no thread can be made (run it in place then).
  public static func start(_ body: @escaping @Sendable () -> Value) -> Worker? {
    let worker = Worker(body)
    let context = Unmanaged.passRetained(worker).toOpaque()
    #if canImport(Darwin) || MN_DARWIN_SHIM
      var thread: pthread_t?
    #else
      var thread = pthread_t()
    #endif
    // The main thread's stack size on both systems (macOS gives other threads 512 KiB).
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    guard pthread_create(&thread, &attributes, workerMain, context) == 0 else {
      Unmanaged<Worker>.fromOpaque(context).release()
      return nil
    }
    #if canImport(Darwin) || MN_DARWIN_SHIM
      guard let thread else { return nil }
    #endif
    worker.thread = thread
    return worker
  }

  private init(_ body: @escaping @Sendable () -> Value) {
    self.body = body
    #if canImport(Darwin) || MN_DARWIN_SHIM
      thread = pthread_self()
    #else
      thread = pthread_t()
    #endif
  }

  fileprivate func run() { value = body() }

  /// Waits for the thread to end and returns what it computed.
  public func join() -> Value? {
    pthread_join(thread, nil)
    return value
  }
}

// Darwin's <pthread.h> declares the start routine `void * _Nullable (* _Nonnull)(void *
// _Nullable)` as Glibc does (only SDKs with `_PTHREAD_SWIFT_IMPORTER_NULLABILITY_COMPAT` took a
// non-optional argument), so one signature serves both.
private func workerMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  guard let context else { return nil }
  return runWorker(context)
}

/// Runs the worker passed (retained) as `context`, then releases it.
private func runWorker(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
  let unmanaged = Unmanaged<AnyObject>.fromOpaque(context)
  (unmanaged.takeUnretainedValue() as? Runnable)?.runOnThread()
  unmanaged.release()
  return nil
}

/// What `workerMain` can run without knowing the worker's value type.
private protocol Runnable: AnyObject { func runOnThread() }
extension Worker: Runnable {
  func runOnThread() { run() }
}

/// `first` on a thread of its own while `second` runs on the calling thread; returns both
/// results once both are done (the thread joined, so none outlives the call). When
/// `onThread` is false, or no thread can be made, `first` runs in place, then `second`.
public func alongside<First: Sendable, Second>(
  onThread: Bool, _ first: @escaping @Sendable () -> First, _ second: () -> Second
) -> (First, Second) {
  guard onThread, let worker = Worker.start(first) else { return (first(), second()) }
  let other = second()
  return (worker.join() ?? first(), other)
}

/// A loop over `count` items whose middle step runs on up to `width` threads at once.
///
/// `produce` and `consume` run on the calling thread, in index order, as in a plain loop:
/// reading files stays in order (a test's fault at the third read is the third file's), and
/// whatever `consume` builds comes out as the loop would build it. Only `transform` (pure
/// work on what `produce` gave, such as decoding bytes) runs on a thread of its own. An item
/// is started as soon as fewer than `width` are running, not only once the oldest is
/// consumed, so that a large item does not leave the processors the small ones after it
/// freed idle; at most twice `width` items are between `produce` and `consume`, so memory
/// stays bounded. A width of 1, or a thread that cannot be made, runs the step in place.
public enum OrderedWork {
  public static func run<Input: Sendable, Output: Sendable>(
    count: Int, width: Int, produce: (Int) -> Input,
    transform: @escaping @Sendable (Input) -> Output, consume: (Int, Output) -> Void
  ) {
    let window = 2 * width
    let ended = EndedItems()
    var pending: [(index: Int, input: Input, worker: Worker<Output>)] = []
    func finishFirst() {
      let (index, input, worker) = pending.removeFirst()
      consume(index, worker.join() ?? transform(input))
      ended.forget(index)
    }
    /// Consumes the items at the head that have ended, and waits while there is no room
    /// for another: `width` items running, or the window full.
    func makeRoom() {
      while let first = pending.first {
        var firstEnded = false
        ended.wait { done in
          firstEnded = done.contains(first.index)
          let running = pending.reduce(0) { $0 + (done.contains($1.index) ? 0 : 1) }
          return firstEnded || (pending.count < window && running < width)
        }
        guard firstEnded else { return }
        finishFirst()
      }
    }
    for index in 0..<count {
      makeRoom()
      let input = produce(index)
      let worker =
        width > 1
        ? Worker.start({
          let output = onItsThread { transform(input) }
          ended.add(index)
          return output
        }) : nil
      guard let worker else {
        while !pending.isEmpty { finishFirst() }
        consume(index, transform(input))
        continue
      }
      pending.append((index, input, worker))
    }
    while !pending.isEmpty { finishFirst() }
  }

  /// The indices of a loop's items whose step has ended, which `run` waits on.
  private final class EndedItems: @unchecked Sendable {
    private let monitor = Monitor()
    private var done = Set<Int>()

    /// Called on an item's thread once its step has ended.
    func add(_ index: Int) {
      monitor.locked {
        done.insert(index)
        monitor.broadcast()
      }
    }

    /// Called once the item is consumed.
    func forget(_ index: Int) {
      _ = monitor.locked { done.remove(index) }
    }

    /// Waits until `ready` holds of the items ended so far.
    func wait(until ready: (Set<Int>) -> Bool) {
      monitor.locked {
        while !ready(done) { monitor.wait() }
      }
    }
  }

  /// Marks the calling thread, one that `run` started, as an item's (`isOnItsThread`).
  private static func onItsThread<T>(_ body: () -> T) -> T {
    pthread_setspecific(itemThread, UnsafeRawPointer(bitPattern: 1))
    return body()
  }

  /// Whether the calling thread is one that `run` started for an item.
  static var isOnItsThread: Bool { pthread_getspecific(itemThread) != nil }

  /// The thread-specific key whose value is non-nil on the threads `run` starts (they end
  /// with their item, so it is never cleared).
  private static let itemThread: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()
}
