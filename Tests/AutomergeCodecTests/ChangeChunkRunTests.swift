import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// A file of change chunks (a document in changes-only form) of
/// `AutomergeFile.parallelChangeChunks` chunks or more is read in two halves at once: every
/// change must come back in file order, with its listing, and the first error in file order
/// must be the one thrown, whichever half holds it.
@Suite struct ChangeChunkRunTests {
  /// Three times the threshold: a typed text of one op per change, every third change
  /// compressed (type 2), the others plain (type 1).
  static let changes = LargeDocumentChunkTests.typedText(
    count: 3 * AutomergeFile.parallelChangeChunks, perChange: 1)

  /// `chunk`, a type-1 change chunk, as a type-2 one: its body deflated, its checksum kept
  /// (a compressed chunk's is that of its inflated form, §3.1).
  static func compressed(_ chunk: [UInt8]) throws -> [UInt8] {
    let body = try chunk.withUnsafeBufferPointer { try Chunk.header($0, at: 0).body }
    let deflated = Deflate.deflate(Array(chunk[body]))
    var out = ByteBuffer(capacity: deflated.count + 19)
    out.put(Array(chunk[0..<8]))  // the magic and the checksum
    out.put(2)
    out.putULEB(UInt64(deflated.count))
    out.put(deflated)
    return out.bytes
  }

  static func chunks() throws -> [[UInt8]] {
    try changes.enumerated().map {
      $0.offset % 3 == 2 ? try compressed($0.element.chunk) : $0.element.chunk
    }
  }

  @Test func everyChangeComesBackInFileOrder() throws {
    let chunks = try Self.chunks()
    let bytes = chunks.flatMap { $0 }
    let file = try AutomergeFile.decode(bytes)
    let hashes = Self.changes.map(\.hash)
    #expect(file.changes.map(\.hash) == hashes)
    #expect(file.chunks.map { $0.changes } == hashes.map { [$0] })
    #expect(file.chunks.map(\.type) == chunks.map { $0[8] == 2 ? .compressedChange : .change })
    var offset = 0
    for (info, chunk) in zip(file.chunks, chunks) {
      #expect(info.offset == offset && info.length == chunk.count)
      offset += chunk.count
    }
    #expect(file.chunks.filter { $0.inflatedLength != nil }.count == chunks.count / 3)
    #expect(file.changeOpCounts == [Int32](repeating: 1, count: hashes.count))
    #expect(file.heads == [hashes[hashes.count - 1]])
    #expect(try AutomergeFile.verifyListing(bytes).hashes == hashes)
  }

  /// The chunk at `index` with its stored checksum changed.
  static func damaged(_ chunks: [[UInt8]], at index: Int) -> [[UInt8]] {
    var out = chunks
    out[index][4] ^= 0xff
    return out
  }

  /// A damaged chunk in the first half, one in each, one in the second half only.
  @Test(arguments: [
    (5, nil), (5, 2 * AutomergeFile.parallelChangeChunks),
    (3 * AutomergeFile.parallelChangeChunks - 10, nil),
  ])
  func theFirstErrorInFileOrderIsThrown(first: Int, second: Int?) throws {
    var chunks = Self.damaged(try Self.chunks(), at: first)
    if let second { chunks = Self.damaged(chunks, at: second) }
    let offset = chunks[..<first].reduce(0) { $0 + $1.count }
    do {
      _ = try AutomergeFile.decode(chunks.flatMap { $0 })
      Issue.record("a damaged checksum was accepted")
    } catch AutomergeDecodeError.checksumMismatch(let at, _, _) {
      #expect(at == offset)
    }
  }
}
