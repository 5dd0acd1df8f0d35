import Testing

@testable import Platform
@testable import TestSupport

@Suite struct ReadFileTests {
  /// `readFile` returns every byte at sizes around its buffer's edges (it stops without the
  /// final zero-byte read once fstat's size has arrived).
  @Test(arguments: [0, 1, 2, 4095, 4096, 4097, 8191, 100_000])
  func readsEveryByte(size: Int) throws {
    let folder = try ScratchFolder()
    let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let path = AbsolutePath(try folder.write("f", bytes))
    #expect(try LiveFileSystem().readFile(path, limit: 1 << 20) == bytes)
    if size > 0 {
      #expect(throws: FileSystemError.self) {
        _ = try LiveFileSystem().readFile(path, limit: size - 1)
      }
    }
  }
}
