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

  /// A text read from a document's own columns (its length summed, then its bytes written
  /// in place): strings of one byte and of several, elements holding no string (U+FFFC
  /// each), a deleted element and an overwritten one, and a second text after it.
  @Test func textsReadFromTheColumnsHoldEveryKindOfElement() throws {
    let a = ActorId([0xaa])
    func op(_ ctr: UInt32) -> OpId { OpId(counter: ctr, actor: 0) }
    let text = ObjectRef.object(op(1))
    let other = ObjectRef.object(op(8))
    let c1 = Change(
      actors: [a], seq: 1, startOp: 1, time: 5, message: nil, deps: [],
      ops: [
        Op(object: .root, key: .map("t"), insert: false, action: .makeText),
        Op(object: text, key: .head, insert: true, action: .set, value: .string("h")),
        Op(object: text, key: .element(op(2)), insert: true, action: .set, value: .string("é")),
        Op(object: text, key: .element(op(3)), insert: true, action: .set, value: .int(7)),
        Op(object: text, key: .element(op(4)), insert: true, action: .makeMap),
        Op(object: text, key: .element(op(5)), insert: true, action: .set, value: .string("👨‍👩‍👧")),
        Op(object: text, key: .element(op(6)), insert: true, action: .set, value: .string("z")),
        Op(object: .root, key: .map("u"), insert: false, action: .makeText),
        Op(object: other, key: .head, insert: true, action: .set, value: .string("ok")),
      ])
    let c2 = Change(
      actors: [a], seq: 2, startOp: 10, time: 6, message: nil, deps: [c1.hash],
      ops: [
        Op(object: text, key: .element(op(7)), insert: false, action: .delete, pred: [op(7)]),
        Op(
          object: text, key: .element(op(2)), insert: false, action: .set, value: .string("H"),
          pred: [op(2)]),
      ])
    let bytes = c1.chunk + c2.chunk
    let saved = try DocumentEncoder.save(bytes)
    for typed in [false, true] {
      let direct = try #require(
        try Materializer.materializeDocumentChunk(saved.bytes, typed: typed))
      #expect(direct == (try Materializer.materialize(AutomergeFile.decode(bytes), typed: typed)))
    }
    let direct = try Materializer.materializeDocumentChunk(saved.bytes, typed: false)
    #expect(direct == .object([("t", .string("Hé\u{FFFC}\u{FFFC}👨‍👩‍👧")), ("u", .string("ok"))]))
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

  /// The fuzzer's finding: a put whose pred is at another key. It loads (in Automerge as
  /// well), but a document keeps a pred only in its op's own key, so it would read back as
  /// a deletion there and another change: refused before anything is written. (Automerge's
  /// own save() of it writes a document that does not load.)
  @Test func thePredAtAnotherKeyOfTheFuzzFindingIsRefused() throws {
    try expectFindingRefused(
      "pred-in-another-key.automerge", op: 315,
      "has a pred outside its own object and key, which a document cannot store")
  }

  /// `unsaveable/<name>` (a mutated corpus month) decodes, and its save is refused as op
  /// `counter` of the month's actor 486a538f… for `why`.
  private func expectFindingRefused(
    _ name: String, op counter: UInt32, _ why: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let bytes = try Fixture.bytes("unsaveable/\(name)")
    _ = try AutomergeFile.decode(bytes)
    let actor = ActorId(try #require(Hex.decode("486a538f2996ca5524626065a2ed3f84")))
    #expect(
      throws: AutomergeSaveError.unplaceableOp(counter: counter, actor: actor, why),
      sourceLocation: sourceLocation
    ) {
      try DocumentEncoder.save(bytes)
    }
  }

  /// The fuzzer's second finding: a change of seq 0. Automerge 0.6.1 loads it (0.11 does
  /// not), but a document numbers an actor's changes from 1: refused, like a gap in the
  /// seqs or ops that overlap the previous change's, while the same changes numbered as a
  /// document numbers them save.
  @Test func changesADocumentCannotNumberAreRefused() throws {
    let a = ActorId([0xaa])
    func put(_ v: Int64) -> [Op] {
      [Op(object: .root, key: .map("k\(v)"), insert: false, action: .set, value: .int(v))]
    }
    let c1 = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [], ops: put(1) + put(2))
    func second(seq: UInt64, startOp: UInt64) -> [UInt8] {
      let c2 = Change(
        actors: [a], seq: seq, startOp: startOp, time: 0, message: nil, deps: [c1.hash],
        ops: put(3))
      return c1.chunk + c2.chunk
    }
    _ = try DocumentEncoder.save(second(seq: 2, startOp: 3))
    _ = try DocumentEncoder.save(second(seq: 2, startOp: 7))  // a gap in the ops is fine
    let finding = try Fixture.bytes("unsaveable/seq-0.automerge")
    for bytes in [finding, second(seq: 3, startOp: 3), second(seq: 2, startOp: 2)] {
      _ = try AutomergeFile.decode(bytes)
      expectRefused(bytes, because: { $0.hasPrefix("starts change seq") })
    }
  }

  /// The fuzzer's third finding: a change chunk that names an empty column. Its hash covers
  /// the bytes as stored, but a document gives back the canonical chunk (no empty column),
  /// whose hash differs: refused.
  @Test func aChangeChunkNotInCanonicalFormIsRefused() throws {
    let bytes = try Fixture.bytes("unsaveable/empty-column.automerge")
    _ = try AutomergeFile.decode(bytes)
    expectRefused(
      bytes, because: { $0.hasSuffix("not in the canonical form a document rebuilds it in") })
  }

  /// The fuzzer's fifth finding: a deletion that carries a value (a timestamp). Both
  /// versions load it, but a document keeps a deletion only as its target's succ and
  /// rebuilds it without the value, so that its change comes back with another hash (both
  /// versions' own saves of it do not load): refused before anything is written, as is a
  /// deletion with an insert flag or a mark's fields, while the same deletion bare saves.
  @Test func aDeletionWithAValueIsRefused() throws {
    try expectFindingRefused(
      "deletion-with-value.automerge", op: 314,
      "is a deletion with a value or flags, which a document cannot store")
    let pred = [OpId(counter: 1, actor: 0)]
    let bare = Op(object: .root, key: .map("k"), insert: false, action: .delete, pred: pred)
    var withValue = bare
    withValue.value = .timestamp(7)
    var inserting = bare
    inserting.insert = true
    var expanding = bare
    expanding.expand = true
    var named = bare
    named.markName = "bold"
    let a = ActorId([0xaa])
    func changes(then last: Op) -> [UInt8] {
      let c1 = Change(
        actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
        ops: [Op(object: .root, key: .map("k"), insert: false, action: .set, value: .int(1))])
      let c2 = Change(
        actors: [a], seq: 2, startOp: 2, time: 0, message: nil, deps: [c1.hash], ops: [last])
      return c1.chunk + c2.chunk
    }
    let saved = try DocumentEncoder.save(changes(then: bare))
    #expect(saved.heads == (try AutomergeFile.decode(changes(then: bare))).heads)
    for last in [withValue, inserting, expanding, named] {
      expectRefused(changes(then: last), because: { $0.hasPrefix("is a deletion with a value") })
    }
  }

  /// Saving `bytes` is refused as an op a document cannot hold (`unplaceableOp`), for a
  /// reason that `matches` accepts; a save, or any other error, is an issue.
  private func expectRefused(
    _ bytes: [UInt8], because matches: (String) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    do {
      _ = try DocumentEncoder.save(bytes)
      Issue.record("saved", sourceLocation: sourceLocation)
    } catch AutomergeSaveError.unplaceableOp(_, _, let why) {
      #expect(matches(why), "refused because \(why)", sourceLocation: sourceLocation)
    } catch {
      Issue.record("\(error)", sourceLocation: sourceLocation)
    }
  }

  /// The changes of `predsOutsideTheirGroupAreRefused`: a map with keys k and j, a list with
  /// two elements, then one op of a second change, `last`.
  private static func changes(then last: Op) -> [UInt8] {
    let a = ActorId([0xaa])
    func op(_ ctr: UInt32) -> OpId { OpId(counter: ctr, actor: 0) }
    let list = ObjectRef.object(op(3))
    let c1 = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
      ops: [
        Op(object: .root, key: .map("k"), insert: false, action: .set, value: .int(1)),
        Op(object: .root, key: .map("j"), insert: false, action: .set, value: .int(2)),
        Op(object: .root, key: .map("l"), insert: false, action: .makeList),
        Op(object: list, key: .head, insert: true, action: .set, value: .int(3)),
        Op(object: list, key: .element(op(4)), insert: true, action: .set, value: .int(4)),
      ])
    let c2 = Change(
      actors: [a], seq: 2, startOp: 6, time: 0, message: nil, deps: [c1.hash], ops: [last])
    return c1.chunk + c2.chunk
  }

  /// A document keeps an op's preds only as succs within its own object and key (§7.5 step
  /// 2): every other pred, a deletion of nothing and preds out of order are refused, while
  /// the same ops with their preds in place save and read back.
  @Test func predsOutsideTheirGroupAreRefused() throws {
    func op(_ ctr: UInt32) -> OpId { OpId(counter: ctr, actor: 0) }
    let list = ObjectRef.object(op(3))
    let saved: [Op] = [
      Op(object: .root, key: .map("k"), insert: false, action: .set, value: .int(5), pred: [op(1)]),
      Op(object: .root, key: .map("k"), insert: false, action: .delete, pred: [op(1)]),
      Op(
        object: list, key: .element(op(5)), insert: false, action: .set, value: .int(5),
        pred: [op(5)]),
      Op(object: list, key: .element(op(4)), insert: false, action: .delete, pred: [op(4)]),
    ]
    for last in saved {
      let bytes = Self.changes(then: last)
      let back = try AutomergeFile.decode(try DocumentEncoder.save(bytes).bytes)
      #expect(back.heads == (try AutomergeFile.decode(bytes)).heads)
    }
    let refused: [Op] = [
      // At another key of the same map, in another object, on another element.
      Op(object: .root, key: .map("k"), insert: false, action: .set, value: .int(5), pred: [op(2)]),
      Op(
        object: list, key: .element(op(4)), insert: false, action: .set, value: .int(5),
        pred: [op(1)]),
      Op(object: list, key: .element(op(4)), insert: false, action: .delete, pred: [op(5)]),
      // An insert (first in its group), a deletion of nothing, preds out of order.
      Op(
        object: list, key: .element(op(5)), insert: true, action: .set, value: .int(5),
        pred: [op(5)]),
      Op(object: .root, key: .map("k"), insert: false, action: .delete),
      Op(object: .root, key: .map("k"), insert: false, action: .delete, pred: [op(1), op(1)]),
    ]
    for last in refused {
      let bytes = Self.changes(then: last)
      _ = try AutomergeFile.decode(bytes)
      do {
        _ = try DocumentEncoder.save(bytes)
        Issue.record("saved: \(last)")
      } catch AutomergeSaveError.unplaceableOp(let counter, _, _) {
        #expect(counter == 6)
      } catch {
        Issue.record("\(last): \(error)")
      }
    }
  }

  /// Texts one after another in one document, a long one, a short one and a long one
  /// again (the tables of one text are reused for the next, smaller or larger): each saves
  /// in its own order and reads back from the document's columns as the changes say.
  @Test func textsOfDifferentLengthsSaveOneAfterAnother() throws {
    let a = ActorId([0xaa])
    var ops: [Op] = []
    func text(_ name: String, _ chars: String) {
      let made = OpId(counter: UInt32(ops.count + 1), actor: 0)
      ops.append(Op(object: .root, key: .map(name), insert: false, action: .makeText))
      var previous: Key = .head
      for ch in chars {
        let id = OpId(counter: UInt32(ops.count + 1), actor: 0)
        ops.append(
          Op(
            object: .object(made), key: previous, insert: true, action: .set,
            value: .string(String(ch))))
        previous = .element(id)
      }
    }
    let long = String(repeating: "abcdefghij", count: 4)
    text("t1", long)
    text("t2", "xy")
    text("t3", String(long.reversed()))
    let c = Change(actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [], ops: ops)
    let saved = try DocumentEncoder.save(c.chunk)
    let direct = try #require(try Materializer.materializeDocumentChunk(saved.bytes, typed: false))
    let expected = #"{"t1": "\#(long)", "t2": "xy", "t3": "\#(String(long.reversed()))"}"#
    #expect(direct == (try json(expected)))
  }

  /// An insert whose parent is an element of another text is refused, named, after the
  /// text before it was placed.
  @Test func anInsertAfterAnElementOfAnotherTextIsRefused() throws {
    let a = ActorId([0xaa])
    func op(_ ctr: UInt32) -> OpId { OpId(counter: ctr, actor: 0) }
    let c = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
      ops: [
        Op(object: .root, key: .map("t1"), insert: false, action: .makeText),
        Op(object: .object(op(1)), key: .head, insert: true, action: .set, value: .string("a")),
        Op(object: .root, key: .map("t2"), insert: false, action: .makeText),
        Op(object: .object(op(3)), key: .head, insert: true, action: .set, value: .string("b")),
        Op(
          object: .object(op(3)), key: .element(op(2)), insert: true, action: .set,
          value: .string("c")),
      ])
    _ = try AutomergeFile.decode(c.chunk)
    #expect(
      throws: AutomergeSaveError.unplaceableOp(
        counter: 5, actor: a, "refers to an element its sequence does not have")
    ) {
      try DocumentEncoder.save(c.chunk)
    }
  }

  /// Map keys are bytes: "é" (U+00E9) and "e" + U+0301, equal as Swift `String`s, are two
  /// keys, saved in byte order, and a pred at one of them for an op at the other is outside
  /// the op's key.
  @Test func mapKeysAreComparedAsBytes() throws {
    let a = ActorId([0xaa])
    let composed = "\u{e9}"
    let decomposed = "e\u{301}"
    let c1 = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
      ops: [
        Op(object: .root, key: .map(composed), insert: false, action: .set, value: .int(1)),
        Op(object: .root, key: .map(decomposed), insert: false, action: .set, value: .int(2)),
      ])
    let saved = try DocumentEncoder.save(c1.chunk)
    #expect(saved.heads == [c1.hash])
    let back = try AutomergeFile.decode(saved.bytes)
    #expect(ChangeListing.changes(back.changes) == ChangeListing.changes([c1]))

    let c2 = Change(
      actors: [a], seq: 2, startOp: 3, time: 0, message: nil, deps: [c1.hash],
      ops: [
        Op(
          object: .root, key: .map(decomposed), insert: false, action: .set, value: .int(3),
          pred: [OpId(counter: 1, actor: 0)])
      ])
    expectRefused(c1.chunk + c2.chunk, because: { $0.contains("outside its own object and key") })
  }

  /// A large file's encoding runs its steps two at a time (`DocumentEncoder.parallelOps`):
  /// an input that two steps refuse is refused as the steps one after the other refuse it,
  /// in a small file and a large one alike.
  @Test(arguments: [10, max(DocumentEncoder.parallelOps, 4_096)])
  func twoStepsAtOnceRefuseAsOneAfterTheOther(puts: Int) throws {
    let (a, b) = (ActorId([0xaa]), ActorId([0xbb]))
    let c1 = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
      ops: (1...puts).map {
        Op(object: .root, key: .map("k\($0)"), insert: false, action: .set, value: .int(Int64($0)))
      })
    let next = UInt64(puts + 1)
    // The change columns (a gap in the seqs) before the op table (an actor of no change).
    let gap = Change(
      actors: [a, b], seq: 3, startOp: next, time: 0, message: nil, deps: [c1.hash],
      ops: [
        Op(
          object: .object(OpId(counter: 1, actor: 1)), key: .map("x"), insert: false,
          action: .set, value: .int(0))
      ])
    expectRefused(c1.chunk + gap.chunk, because: { $0.hasPrefix("starts change seq 3") })
    // The succs (a pred that names no op) before the op order (an object nothing creates).
    let stray = Change(
      actors: [a], seq: 2, startOp: next, time: 0, message: nil, deps: [c1.hash],
      ops: [
        Op(
          object: .object(OpId(counter: 999_999, actor: 0)), key: .map("x"), insert: false,
          action: .set, value: .int(0), pred: [OpId(counter: 999_998, actor: 0)])
      ])
    #expect(throws: AutomergeSaveError.unrepresentablePred(counter: 999_998, actor: a)) {
      try DocumentEncoder.save(c1.chunk + stray.chunk)
    }
  }

  /// An op whose key its object cannot hold is refused, naming the op: a map key in a list
  /// (with or without the insert flag), a bare HEAD in a list, an element in a map. (An
  /// insert at HEAD saves.)
  @Test func anOpWithAKeyItsObjectCannotHoldIsRefused() throws {
    let list = ObjectRef.object(OpId(counter: 3, actor: 0))
    let fits = Op(object: list, key: .head, insert: true, action: .set, value: .int(5))
    _ = try DocumentEncoder.save(Self.changes(then: fits))
    let mapKeyInList = Op(object: list, key: .map("x"), insert: false, action: .set, value: .int(5))
    var insertAtMapKey = mapKeyInList
    insertAtMapKey.insert = true
    let bareHead = Op(object: list, key: .head, insert: false, action: .set, value: .int(5))
    for last in [mapKeyInList, insertAtMapKey, bareHead] {
      expectRefused(Self.changes(then: last), because: { $0 == "has no key a sequence can hold" })
    }
    let elementInMap = Op(
      object: .root, key: .element(OpId(counter: 4, actor: 0)), insert: false, action: .set,
      value: .int(5))
    expectRefused(Self.changes(then: elementInMap), because: { $0 == "has no key a map can hold" })
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

/// `OpPositions` finds an op by id from its change's run, whatever order the runs come in.
@Suite struct OpPositionsTests {
  @Test func findsEveryOpOfEveryRunAndNothingElse() {
    typealias Run = OpPositions.Run
    // Actor 1's runs out of counter order; actor 0 has one run, actor 2 none.
    let runs = [
      Run(actor: 1, firstCounter: 10, count: 3, firstPosition: 0),
      Run(actor: 0, firstCounter: 1, count: 2, firstPosition: 3),
      Run(actor: 1, firstCounter: 2, count: 4, firstPosition: 5),
    ]
    let table = OpPositions(runs, actors: 3)
    func id(_ counter: UInt32, _ actor: UInt32) -> UInt64 { UInt64(counter) << 32 | UInt64(actor) }
    #expect(table[id(10, 1)] == 0)
    #expect(table[id(12, 1)] == 2)
    #expect(table[id(1, 0)] == 3)
    #expect(table[id(2, 0)] == 4)
    #expect(table[id(2, 1)] == 5)
    #expect(table[id(5, 1)] == 8)
    for missing in [
      id(6, 1), id(9, 1), id(13, 1), id(1, 1), id(3, 0), id(0, 0), id(1, 2), id(1, 7),
    ] {
      #expect(table[missing] == nil)
    }
    #expect(OpPositions()[id(1, 0)] == nil)
  }
}
