import Foundation
import Testing

@testable import Commands

@Suite struct FileDescriptorSinkTests {
  /// Pieces smaller and larger than the buffer come out whole and in order.
  @Test(arguments: [0, 16, 1 << 16])
  func piecesArriveInOrder(limit: Int) throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]) }
    let sink = FileDescriptorSink(fd: fds[1], bufferLimit: limit)
    var expected: [UInt8] = []
    for (i, size) in [1, 15, 16, 17, 3, 40, 0, 2, 100].enumerated() {
      let piece = [UInt8](repeating: UInt8(65 + i), count: size)
      expected += piece
      try sink.write(piece)
    }
    try sink.flush()
    close(fds[1])
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = read(fds[0], &chunk, chunk.count)
      if n <= 0 { break }
      received += chunk[0..<n]
    }
    #expect(received == expected)
  }
}
