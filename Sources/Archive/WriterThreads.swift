import AutomergeCodec
import Platform
import Threads

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
