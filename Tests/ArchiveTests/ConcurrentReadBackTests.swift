import Testing
import Threads

@testable import Archive
@testable import Platform
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The export's read-back thread, which follows the archive while it is being written.
@Suite struct ConcurrentReadBackTests {
  let content = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

  /// A tar with one file and its manifest, and that manifest.
  func archive() throws -> ([UInt8], ArchiveManifest) {
    var tar = TarBuilder()
    tar.add("Minuta/records/2026/09.automerge", content)
    let manifest = manifestBytes([("records/2026/09.automerge", content)])
    tar.add("Minuta/.mn-manifest.json", manifest)
    return (tar.archive, try ArchiveManifest.parse(manifest))
  }

  /// Writes `bytes[range]` to `fd` and moves the watermark past them.
  func append(
    _ bytes: [UInt8], _ range: Range<Int>, _ fd: FileDescriptor, _ path: AbsolutePath,
    _ mark: WriteWatermark
  ) throws {
    try bytes[range].withUnsafeBytes { try LiveFileSystem().write(fd, $0, path: path) }
    mark.advance(by: range.count)
  }

  @Test func followsAGrowingFileToItsEnd() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let (bytes, manifest) = try archive()
    let path = AbsolutePath(scratch.path).appending("growing.tar")
    let fs = LiveFileSystem()
    let fd = try fs.createExclusive(path, permissions: 0o600)
    let mark = WriteWatermark()
    let reader = try #require(
      Worker.start {
        ArchiveReader.readBack(
          path: path, fileSystem: LiveFileSystem(), limits: .standard, watermark: mark)
      })
    var offset = 0
    while offset < bytes.count {
      let next = min(bytes.count, offset + 777)
      try append(bytes, offset..<next, fd, path, mark)
      offset = next
      usleep(200)
    }
    try fs.close(fd, path: path)
    mark.end(.finished)
    let walk = try #require(reader.join()).get()
    try walk.check(manifest)
    #expect(walk.digests["records/2026/09.automerge"]?.size == Int64(content.count))
  }

  @Test func anAbandonedWriteStopsTheReader() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let (bytes, _) = try archive()
    let path = AbsolutePath(scratch.path).appending("abandoned.tar")
    let fs = LiveFileSystem()
    let fd = try fs.createExclusive(path, permissions: 0o600)
    defer { try? fs.close(fd, path: path) }
    let mark = WriteWatermark()
    let reader = try #require(
      Worker.start {
        ArchiveReader.readBack(
          path: path, fileSystem: LiveFileSystem(), limits: .standard, watermark: mark)
      })
    try append(bytes, 0..<(bytes.count / 2), fd, path, mark)
    mark.end(.abandoned)
    #expect(throws: ArchiveError.self) { try #require(reader.join()).get() }
  }

  /// The reader never reads past the watermark, even when the file holds more.
  @Test func neverReadsPastTheWatermark() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let (bytes, _) = try archive()
    let path = AbsolutePath(scratch.path).appending("ahead.tar")
    try scratch.write("ahead.tar", bytes)
    let mark = WriteWatermark()
    mark.advance(by: 1024)
    let reader = try #require(
      Worker.start {
        ArchiveReader.readBack(
          path: path, fileSystem: LiveFileSystem(), limits: .standard, watermark: mark)
      })
    usleep(20_000)
    // Only the first 1024 bytes were "written": the file's end counts as unwritten yet.
    mark.end(.abandoned)
    #expect(throws: ArchiveError.self) { try #require(reader.join()).get() }
  }

  /// Every document put reaches the hashing thread, in order, also when the writer has to
  /// wait for the queue to drain (a limit far below what is put).
  @Test func documentQueueHandsOverEverythingInOrder() throws {
    let queue = DocumentQueue(limit: 1000)
    let taker = try #require(
      Worker.start { () -> [Int] in
        var seen: [Int] = []
        while let (index, bytes) = queue.take() {
          if bytes.count == index % 700 { seen.append(index) }
        }
        return seen
      })
    for index in 0..<500 { queue.put(index, [UInt8](repeating: 1, count: index % 700)) }
    queue.close()
    #expect(taker.join() == Array(0..<500))
  }

  @Test func workersReturnTheirValue() throws {
    let worker = try #require(Worker.start { 6 * 7 })
    #expect(worker.join() == 42)
  }
}
