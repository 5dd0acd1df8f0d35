import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct AutomergeFileTests {
  static let listed = [
    "valid/seed-01/device-0/tags.automerge", "valid/seed-01/device-0/tags.changes.automerge",
    "valid/seed-01/device-0/tags.incremental.automerge",
    "valid/seed-01/device-0/records/2026/09.automerge",
    "valid/seed-01/device-1/tags.automerge",
  ]

  /// The heads and `doc changes` listing equal what the real Automerge reports.
  @Test(arguments: listed) func listingsMatchTheReference(_ rel: String) throws {
    let file = try AutomergeFile.decode(Fixture.bytes(rel))
    #expect(ChangeListing.heads(file.heads) == (try Fixture.text(rel + ".heads")))
    #expect(ChangeListing.changes(file.changes) == (try Fixture.text(rel + ".changes")))
    for c in file.changes {
      let (chunk, hash) = c.encoded()
      #expect(chunk == c.chunk && hash == c.hash)
    }
  }

  /// `keepOps: false` verifies the same and lists the same, without keeping the ops.
  @Test(arguments: listed) func withoutOps(_ rel: String) throws {
    let full = try AutomergeFile.decode(Fixture.bytes(rel))
    let lean = try AutomergeFile.decode(Fixture.bytes(rel), keepOps: false)
    #expect(lean.changes.allSatisfy { $0.ops.isEmpty })
    #expect(lean.changes.map(\.chunk) == full.changes.map(\.chunk))
    #expect(lean.opCount == full.opCount && lean.heads == full.heads && lean.chunks == full.chunks)
    #expect(ChangeListing.changes(lean.changes) == ChangeListing.changes(full.changes))
  }

  /// `keepChunks: false` verifies and lists the same, with every change's chunk left empty;
  /// a change whose bytes are damaged is still refused.
  @Test(arguments: listed) func withoutChunks(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    let full = try AutomergeFile.decode(bytes)
    let bare = try AutomergeFile.decode(bytes, keepOps: false, keepChunks: false)
    #expect(bare.changes.allSatisfy { $0.chunk.isEmpty && $0.ops.isEmpty })
    #expect(bare.changes.map(\.hash) == full.changes.map(\.hash))
    #expect(bare.opCount == full.opCount && bare.heads == full.heads && bare.chunks == full.chunks)
    #expect(ChangeListing.changes(bare.changes) == ChangeListing.changes(full.changes))
    var damaged = bytes
    damaged[damaged.count - 1] ^= 0x01
    #expect(throws: AutomergeDecodeError.self) {
      try AutomergeFile.decode(damaged, keepOps: false, keepChunks: false)
    }
  }

  /// `KeptChunks.only` (what a merge decodes its later inputs with) keeps the chunks of the
  /// changes it accepts, whole, and only those; in document chunks and change chunks alike.
  @Test(arguments: listed) func onlyTheChunksAsked(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    let full = try AutomergeFile.decode(bytes)
    let odd = Set(full.changes.map(\.hash).filter { $0.w3 & 1 == 1 })
    let some = try AutomergeFile.decode(
      bytes, keepOps: false, chunks: .only { odd.contains($0) }, inspectFirstDocument: nil)
    #expect(some.changes.map(\.hash) == full.changes.map(\.hash))
    for (kept, whole) in zip(some.changes, full.changes) {
      #expect(kept.chunk == (odd.contains(whole.hash) ? whole.chunk : []))
    }
  }

  @Test func chunkListing() throws {
    let file = try AutomergeFile.decode(
      Fixture.bytes("valid/seed-01/device-0/tags.incremental.automerge"))
    #expect(file.chunks.map(\.offset) == [0, 638, 800, 975, 1124])
    #expect(file.chunks.map(\.type) == [.document, .change, .change, .change, .change])
    #expect(file.chunks[0].bodyLength == 627 && file.chunks[0].checksum == 0xfe36_c38f)
    #expect(
      file.chunks[4].changes.map(\.description) == [
        "41b46758614d3e0e4cfe30d8770cf650fc25459d163e4b8b0eebb58ec55ec2bc"
      ])
    let changes = try AutomergeFile.decode(
      Fixture.bytes("valid/seed-01/device-0/tags.changes.automerge"))
    #expect(changes.chunks[0].type == .compressedChange && changes.chunks[0].inflatedLength == 531)
  }

  @Test func jsonStrings() {
    #expect(ChangeListing.jsonString("a\"b\\c\n\u{1}é") == "\"a\\\"b\\\\c\\n\\u0001é\"")
  }

  /// A document followed by change chunks it already holds: duplicates are skipped.
  @Test func duplicatesAreSkipped() throws {
    let doc = try Fixture.bytes("valid/seed-01/device-0/tags.automerge")
    let changes = try Fixture.bytes("valid/seed-01/device-0/tags.changes.automerge")
    let a = try AutomergeFile.decode(doc)
    let b = try AutomergeFile.decode(doc + changes + doc)
    #expect(b.changes.map(\.hash) == a.changes.map(\.hash))
    #expect(b.heads == a.heads)
  }

  /// A document chunk may be followed by orphans; they are kept and reported.
  @Test func orphansAfterADocumentAreKept() throws {
    let doc = try Fixture.bytes("valid/seed-01/device-1/tags.automerge")
    let other = try AutomergeFile.decode(Fixture.bytes("valid/seed-01/device-0/tags.automerge"))
    let docFile = try AutomergeFile.decode(doc)
    let last = try #require(
      other.changes.last {
        docFile.change($0.hash) == nil && !$0.deps.allSatisfy { docFile.change($0) != nil }
      })
    let file = try AutomergeFile.decode(doc + last.chunk)
    #expect(file.orphans == [last.hash])
    #expect(!file.missingDependencies.isEmpty)
    #expect(file.heads == docFile.heads)
    #expect(file.changes.count == docFile.changes.count + 1)
  }
}
