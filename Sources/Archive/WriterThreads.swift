import AutomergeCodec

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A mutex with one condition variable: the waiting and waking that the writer's helper
/// threads share.
final class Monitor: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init() {
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
  func locked<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  /// Inside `locked`: releases the mutex until `broadcast`, then holds it again.
  func wait() { pthread_cond_wait(condition, mutex) }

  /// Inside `locked`: wakes every waiting thread.
  func broadcast() { pthread_cond_broadcast(condition) }
}

/// How far the archive being written has got, shared by the writer and the thread that
/// reads it back: the reader never reads past what `write` has returned for.
final class WriteWatermark: @unchecked Sendable {
  private let monitor = Monitor()
  // Guarded by `monitor`.
  private var written = 0
  private var state = State.writing

  enum State { case writing, finished, abandoned }

  private func locked<T>(_ body: () -> T) -> T { monitor.locked(body) }

  /// `count` more bytes are in the file.
  func advance(by count: Int) {
    locked {
      written += count
      monitor.broadcast()
    }
  }

  /// Ends the writing: `finished` once everything is written, `abandoned` after a failure.
  func end(_ final: State) {
    locked {
      state = final
      monitor.broadcast()
    }
  }

  /// Waits until bytes past `position` are written or the writing ends.
  ///
  /// - Returns: how many bytes past `position` may be read (0: the end of a finished file),
  ///   or nil when the writing was abandoned.
  func available(after position: Int) -> Int? {
    locked {
      while written <= position && state == .writing { monitor.wait() }
      if state == .abandoned { return nil }
      return written - position
    }
  }
}

/// A result computed on a thread of its own; `join` waits for it.
final class Worker<Value: Sendable>: @unchecked Sendable {
  private var thread: pthread_t
  private let body: @Sendable () -> Value
  private var value: Value?

  /// Starts `body` on a new thread; nil when no thread can be made (run it in place then).
  static func start(_ body: @escaping @Sendable () -> Value) -> Worker? {
    let worker = Worker(body)
    let context = Unmanaged.passRetained(worker).toOpaque()
    #if canImport(Darwin)
      var thread: pthread_t?
    #else
      var thread = pthread_t()
    #endif
    guard pthread_create(&thread, nil, workerMain, context) == 0 else {
      Unmanaged<Worker>.fromOpaque(context).release()
      return nil
    }
    #if canImport(Darwin)
      guard let thread else { return nil }
    #endif
    worker.thread = thread
    return worker
  }

  private init(_ body: @escaping @Sendable () -> Value) {
    self.body = body
    #if canImport(Darwin)
      thread = pthread_self()
    #else
      thread = pthread_t()
    #endif
  }

  fileprivate func run() { value = body() }

  /// Waits for the thread to end and returns what it computed.
  func join() -> Value? {
    pthread_join(thread, nil)
    return value
  }
}

#if canImport(Darwin)
  private func workerMain(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    runWorker(context)
  }
#else
  private func workerMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    return runWorker(context)
  }
#endif

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

/// Documents handed from the writer to the thread that hashes and inspects them for the
/// manifest (which is written last, so nothing waits for these facts but the manifest).
/// The writer waits when more than `limit` bytes are queued.
final class DocumentQueue: @unchecked Sendable {
  private let monitor = Monitor()
  private let limit: Int
  // Guarded by `monitor`.
  private var pending: [(index: Int, bytes: [UInt8])] = []
  private var queuedBytes = 0
  private var closed = false

  init(limit: Int = 64 << 20) { self.limit = limit }

  /// Queues document `index`; waits while the queue is over its limit.
  func put(_ index: Int, _ bytes: [UInt8]) {
    monitor.locked {
      while queuedBytes > limit && !pending.isEmpty && !closed { monitor.wait() }
      pending.append((index, bytes))
      queuedBytes += bytes.count
      monitor.broadcast()
    }
  }

  /// No more documents: `take` returns nil once the queue is empty.
  func close() {
    monitor.locked {
      closed = true
      monitor.broadcast()
    }
  }

  /// The next document, waiting for one; nil when the queue is closed and empty.
  func take() -> (index: Int, bytes: [UInt8])? {
    monitor.locked {
      while pending.isEmpty && !closed { monitor.wait() }
      if pending.isEmpty { return nil }
      let next = pending.removeFirst()
      queuedBytes -= next.bytes.count
      monitor.broadcast()
      return next
    }
  }
}
