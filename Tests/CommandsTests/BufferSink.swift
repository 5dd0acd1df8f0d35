import Foundation

@testable import Commands

/// A sink that keeps what is written, for in-process verb runs.
final class BufferSink: OutputSink, @unchecked Sendable {
  private let lock = NSLock()
  private var bytes: [UInt8] = []
  func write(_ bytes: [UInt8]) throws { lock.withLock { self.bytes += bytes } }
  func flush() throws {}
  var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
}
