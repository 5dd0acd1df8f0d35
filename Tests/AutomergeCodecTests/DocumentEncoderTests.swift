import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct DocumentEncoderTests {
  static let fixtures =
    Fixture.files("valid").filter { !$0.hasSuffix(".json") }
    + Fixture.files("conflicts").filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".chunks") }

  /// Every fixture saves to one document chunk that holds its changes and heads, reads the
  /// same from the document's own columns, and saves again to the same bytes.
  @Test(arguments: fixtures) func savesEveryFixture(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    let file = try AutomergeFile.decode(bytes)
    let saved = try DocumentEncoder.save(bytes)
    let back = try AutomergeFile.decode(saved.bytes)
    #expect(back.chunks.map(\.type) == [.document] + file.orphans.map { _ in .change })
    #expect(back.heads == file.heads && saved.heads == file.heads)
    #expect(ChangeListing.changes(back.changes) == ChangeListing.changes(file.changes))
    #expect(saved.changeCount == file.changes.count)
    let direct = try #require(try Materializer.materializeDocumentChunk(saved.bytes, typed: true))
    #expect(direct == (try Materializer.materialize(file, typed: true)))
    #expect(try DocumentEncoder.save(saved.bytes).bytes == saved.bytes)
  }

  /// Where a fixture is already what Rust's save() wrote (one document chunk), the saved
  /// columns are the same once inflated.
  @Test(arguments: fixtures) func aRustDocumentSavesToItsOwnColumns(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    let file = try AutomergeFile.decode(bytes, keepOps: false)
    guard file.chunks.count == 1, file.chunks[0].type == .document else { return }
    let saved = try DocumentEncoder.save(bytes)
    let listing = try #require(DocumentColumns.listing(saved.bytes))
    #expect(listing == DocumentColumns.listing(bytes))
    #expect(listing.contains { $0.hasPrefix("op column") })
  }

  /// Built by hand: concurrent inserts into one text, deletions, an overwrite, a counter
  /// and a mark; the saved document reads back as the changes say, from its own columns
  /// (which trust the stored op order, §7.4).
  @Test func sequenceOrderConflictsAndDeletions() throws {
    let a = ActorId([0xaa])
    let b = ActorId([0x0b])
    func op(_ ctr: UInt32, _ actor: UInt32) -> OpId { OpId(counter: ctr, actor: actor) }
    let text = ObjectRef.object(op(1, 0))
    let c1 = Change(
      actors: [a], seq: 1, startOp: 1, time: 5, message: "start", deps: [],
      ops: [
        Op(object: .root, key: .map("text"), insert: false, action: .makeText),
        Op(object: text, key: .head, insert: true, action: .set, value: .string("x")),
        Op(object: text, key: .element(op(2, 0)), insert: true, action: .set, value: .string("y")),
        Op(object: .root, key: .map("n"), insert: false, action: .set, value: .counter(1)),
        Op(object: .root, key: .map("k"), insert: false, action: .set, value: .string("a")),
      ])
    // b: inserts after HEAD and after x (concurrently with y), deletes y, increments n,
    // overwrites k, marks x.
    let c2 = Change(
      actors: [b, a], seq: 1, startOp: 6, time: 0, message: nil, deps: [c1.hash],
      ops: [
        Op(object: .object(op(1, 1)), key: .head, insert: true, action: .set, value: .string("0")),
        Op(
          object: .object(op(1, 1)), key: .element(op(2, 1)), insert: true, action: .set,
          value: .string("z")),
        Op(
          object: .object(op(1, 1)), key: .element(op(3, 1)), insert: false, action: .delete,
          pred: [op(3, 1)]),
        Op(
          object: .root, key: .map("n"), insert: false, action: .increment, value: .int(2),
          pred: [op(4, 1)]),
        Op(
          object: .root, key: .map("k"), insert: false, action: .set, value: .string("b"),
          pred: [op(5, 1)]),
        Op(
          object: .object(op(1, 1)), key: .head, insert: true, action: .mark, value: .bool(true),
          expand: true, markName: "bold"),
        Op(object: .object(op(1, 1)), key: .element(op(2, 1)), insert: true, action: .mark),
      ])
    let c3 = Change(
      actors: [a], seq: 2, startOp: 6, time: 9, message: nil, deps: [c1.hash],
      ops: [
        Op(object: text, key: .element(op(3, 0)), insert: true, action: .set, value: .string("w"))
      ])
    let bytes = c1.chunk + c3.chunk + c2.chunk
    let file = try AutomergeFile.decode(bytes)
    let saved = try DocumentEncoder.save(bytes)
    let direct = try #require(try Materializer.materializeDocumentChunk(saved.bytes, typed: false))
    #expect(direct == (try Materializer.materialize(file, typed: false)))
    #expect(direct == (try json(#"{"k": "b", "n": 3, "text": "0xzw"}"#)))
    let back = try AutomergeFile.decode(saved.bytes)
    #expect(Set(back.changes.map(\.hash)) == [c1.hash, c2.hash, c3.hash])
    #expect(back.heads == [c2.hash, c3.hash].sorted())
  }

  /// Orphans follow the document as the bytes they came in (save() keeps them so).
  @Test func orphansFollowAsTheirOwnBytes() throws {
    let doc = try Fixture.bytes("valid/seed-01/device-1/tags.automerge")
    let other = try AutomergeFile.decode(Fixture.bytes("valid/seed-01/device-0/tags.automerge"))
    let docFile = try AutomergeFile.decode(doc)
    let orphan = try #require(
      other.changes.last {
        docFile.change($0.hash) == nil && !$0.deps.allSatisfy { docFile.change($0) != nil }
      })
    let saved = try DocumentEncoder.save(doc + orphan.chunk)
    #expect(saved.bytes.count > orphan.chunk.count)
    #expect(Array(saved.bytes.suffix(orphan.chunk.count)) == orphan.chunk)
    let back = try AutomergeFile.decode(saved.bytes)
    #expect(back.orphans == [orphan.hash] && back.heads == docFile.heads)
  }

  /// A pred that names no op has no place in a document: refused, not dropped.
  @Test func aPredNamingNoOpIsRefused() throws {
    let a = ActorId([0xaa])
    let c = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
      ops: [
        Op(
          object: .root, key: .map("k"), insert: false, action: .set, value: .int(1),
          pred: [OpId(counter: 7, actor: 0)])
      ])
    #expect(throws: AutomergeSaveError.unrepresentablePred(counter: 7, actor: a)) {
      try DocumentEncoder.save(c.chunk)
    }
  }

  /// An op on an object that nothing creates is refused.
  @Test func anOpOnAnUncreatedObjectIsRefused() throws {
    let a = ActorId([0xaa])
    let c = Change(
      actors: [a], seq: 1, startOp: 2, time: 0, message: nil, deps: [],
      ops: [
        Op(
          object: .object(OpId(counter: 1, actor: 0)), key: .map("k"), insert: false,
          action: .set, value: .int(1))
      ])
    #expect(throws: AutomergeSaveError.self) { try DocumentEncoder.save(c.chunk) }
  }

  /// The empty document saves as Automerge's empty document chunk.
  @Test func emptyDocument() throws {
    let saved = try DocumentEncoder.save([])
    #expect(
      saved.bytes == [0x85, 0x6f, 0x4a, 0x83, 0xb8, 0x1a, 0x95, 0x44, 0x00, 0x04, 0, 0, 0, 0])
  }
}
