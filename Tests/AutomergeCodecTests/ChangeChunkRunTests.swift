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
  static func compressed(_ chunk: [UInt8]) -> [UInt8] {
    var at = 9
    var length = 0
    var shift = 0
    while true {
      length |= Int(chunk[at] & 0x7f) << shift
      shift += 7
      at += 1
      if chunk[at - 1] < 0x80 { break }
    }
    let deflated = Deflate.deflate(Array(chunk[at..<(at + length)]))
    var out = Array(chunk[0..<8]) + [2]
    var n = deflated.count
    repeat {
      out.append(UInt8(n & 0x7f) | (n >= 0x80 ? 0x80 : 0))
      n >>= 7
    } while n > 0
    return out + deflated
  }

  static let chunks: [[UInt8]] = changes.enumerated().map {
    $0.offset % 3 == 2 ? compressed($0.element.chunk) : $0.element.chunk
  }

  @Test func everyChangeComesBackInFileOrder() throws {
    let bytes = Self.chunks.flatMap { $0 }
    let file = try AutomergeFile.decode(bytes)
    let hashes = Self.changes.map(\.hash)
    #expect(file.changes.map(\.hash) == hashes)
    #expect(file.chunks.map { $0.changes } == hashes.map { [$0] })
    #expect(file.chunks.map(\.type) == Self.chunks.map { $0[8] == 2 ? .compressedChange : .change })
    var offset = 0
    for (info, chunk) in zip(file.chunks, Self.chunks) {
      #expect(info.offset == offset && info.length == chunk.count)
      offset += chunk.count
    }
    #expect(file.chunks.filter { $0.inflatedLength != nil }.count == Self.chunks.count / 3)
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
    var chunks = Self.damaged(Self.chunks, at: first)
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
