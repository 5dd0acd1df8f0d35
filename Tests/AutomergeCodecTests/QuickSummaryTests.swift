import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct QuickSummaryTests {
  static let shapes = [
    "valid/seed-01/device-0/tags.automerge", "valid/seed-01/device-0/tags.changes.automerge",
    "valid/seed-01/device-0/tags.incremental.automerge",
    "valid/seed-01/device-0/records/2026/09.automerge",
    "valid/seed-01/device-1/tags.automerge", "valid/upstream/two_change_chunks.automerge",
    "valid/upstream/two_change_chunks_compressed.automerge",
    "valid/upstream/two_change_chunks_out_of_order.automerge",
  ]

  /// Full saves, incremental files and changes-only files are summarised without a full
  /// decode, and the summary is the full decode's count and heads.
  @Test(arguments: shapes) func agreesWithTheFullDecode(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    let quick = try #require(try QuickSummary.summarize(bytes))
    let full = try AutomergeFile.decode(bytes, keepOps: false)
    #expect(quick.changes == full.changes.count && quick.heads == full.heads)
  }

  @Test func emptyInputIsAnEmptyDocument() throws {
    let quick = try #require(try QuickSummary.summarize([]))
    #expect(quick.changes == 0 && quick.heads.isEmpty)
  }

  /// Shapes whose count or heads need every change hash are left to the full decode.
  @Test func doubtfulShapesAreLeftToTheFullDecode() throws {
    let doc = try Fixture.bytes("valid/seed-01/device-0/tags.automerge")
    let changes = try Fixture.bytes("valid/seed-01/device-0/tags.changes.automerge")
    let other = try Fixture.bytes("valid/seed-01/device-1/tags.automerge")
    // A second document chunk.
    #expect(try QuickSummary.summarize(doc + doc) == nil)
    // Change chunks that repeat the document's changes (the first has no dependencies).
    #expect(try QuickSummary.summarize(doc + changes) == nil)
    // A document followed by another device's change chunks: dependencies unknown here.
    let incremental = try Fixture.bytes("valid/seed-01/device-0/tags.incremental.automerge")
    let tail = try AutomergeFile.decode(incremental).chunks.dropFirst().map {
      Array(incremental[$0.offset..<($0.offset + $0.length)])
    }
    #expect(!tail.isEmpty)
    #expect(try QuickSummary.summarize(other + tail.joined()) == nil)
    // Repeating the last change chunk.
    #expect(try QuickSummary.summarize(incremental + (tail.last ?? [])) == nil)
  }

  /// Change chunks in any order after the document, as in a file many saves appended to.
  @Test func changeChunksInAnyOrder() throws {
    let incremental = try Fixture.bytes("valid/seed-01/device-0/tags.incremental.automerge")
    let chunks = try AutomergeFile.decode(incremental).chunks.map {
      Array(incremental[$0.offset..<($0.offset + $0.length)])
    }
    let shuffled = chunks[0] + chunks.dropFirst().reversed().joined()
    let quick = try #require(try QuickSummary.summarize(shuffled))
    let full = try AutomergeFile.decode(incremental)
    #expect(quick.changes == full.changes.count && quick.heads == full.heads)
  }

  @Test func aDamagedChunkIsAnError() throws {
    var bytes = try Fixture.bytes("valid/seed-01/device-0/tags.incremental.automerge")
    bytes[bytes.count - 3] ^= 0x40
    #expect(throws: AutomergeDecodeError.self) { try QuickSummary.summarize(bytes) }
  }
}
