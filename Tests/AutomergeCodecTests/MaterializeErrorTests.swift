import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// Hostile or broken input: every case is a typed error, never a crash.
@Suite struct MaterializeErrorTests {
  typealias A = Actors

  private func error(_ doc: TestDoc) -> MaterializeError? {
    do {
      _ = try Materializer.materialize(doc.changes, typed: false)
      return nil
    } catch {
      return error
    }
  }

  private func id(_ counter: UInt64, _ actor: ActorId) -> DocumentOpId {
    DocumentOpId(counter: counter, actor: actor)
  }

  @Test func anOpOnAMissingObject() {
    var doc = TestDoc()
    doc.add(A.a, startOp: 1, [.put("k", .int(1), in: .id(TID(9, A.b)))])
    #expect(error(doc) == .missingObject(op: id(1, A.a)))
    // A set op is not an object either.
    var doc2 = TestDoc()
    doc2.add(A.a, startOp: 1, [.put("k", .int(1)), .put("x", .int(1), in: .id(TID(1, A.a)))])
    #expect(error(doc2) == .missingObject(op: id(2, A.a)))
  }

  @Test func keysOfTheWrongKind() {
    var doc = TestDoc()
    doc.add(A.a, startOp: 1, [.insert(.root, after: .head, .int(1))])
    #expect(error(doc) == .keyKindMismatch(op: id(1, A.a)))
    var doc2 = TestDoc()
    doc2.add(A.a, startOp: 1, [.make(.makeList, "l"), .put("k", .int(1), in: .id(TID(1, A.a)))])
    #expect(error(doc2) == .keyKindMismatch(op: id(2, A.a)))
    var doc3 = TestDoc()
    doc3.add(A.a, startOp: 1, [TOp(obj: .root, key: .map("k"), insert: true, action: .set)])
    #expect(error(doc3) == .keyKindMismatch(op: id(1, A.a)))
  }

  @Test func missingOrForeignElements() {
    let list = TOp.Obj.id(TID(1, A.a))
    var doc = TestDoc()
    doc.add(
      A.a, startOp: 1, [.make(.makeList, "l"), .insert(list, after: .elem(TID(7, A.b)), .int(1))])
    #expect(error(doc) == .missingElement(op: id(2, A.a)))
    // An element of another list.
    var doc2 = TestDoc()
    doc2.add(
      A.a, startOp: 1,
      [
        .make(.makeList, "l"), .make(.makeList, "m"), .insert(list, after: .head, .int(1)),
        .insert(.id(TID(2, A.a)), after: .elem(TID(3, A.a)), .int(2)),
      ])
    #expect(error(doc2) == .missingElement(op: id(4, A.a)))
    // A key naming an op that is not an insert.
    var doc3 = TestDoc()
    doc3.add(
      A.a, startOp: 1,
      [
        .make(.makeList, "l"), .insert(list, after: .head, .int(1)),
        .setElement(list, TID(2, A.a), .int(2), pred: [TID(2, A.a)]),
        .insert(list, after: .elem(TID(3, A.a)), .int(3)),
      ])
    #expect(error(doc3) == .missingElement(op: id(4, A.a)))
    // Setting HEAD.
    var doc4 = TestDoc()
    doc4.add(A.a, startOp: 1, [.make(.makeList, "l"), TOp(obj: list, key: .head, action: .set)])
    #expect(error(doc4) == .missingElement(op: id(2, A.a)))
  }

  @Test func insertsInACycle() {
    let list = TOp.Obj.id(TID(1, A.a))
    var doc = TestDoc()
    doc.add(
      A.a, startOp: 1,
      [
        .make(.makeList, "l"), .insert(list, after: .elem(TID(3, A.a)), .int(1)),
        .insert(list, after: .elem(TID(2, A.a)), .int(2)),
        .insert(list, after: .elem(TID(4, A.a)), .int(3)),
      ])
    #expect(error(doc) == .unreachableElement(op: id(2, A.a)))
  }

  @Test func badChangeHeaders() {
    var doc = TestDoc()
    doc.add(A.a, startOp: 1, [.put("k", .int(1))])
    var noActors = doc
    noActors.changes[0].actors = []
    #expect(error(noActors) == .missingAuthor(change: TestDoc.fakeHash(1)))
    var badIndex = doc
    badIndex.changes[0].ops[0].pred = [OpId(counter: 1, actor: 3)]
    #expect(error(badIndex) == .actorIndexOutOfRange(change: TestDoc.fakeHash(1), index: 3))
    var huge = doc
    huge.changes[0].startOp = UInt64(UInt32.max)
    huge.changes[0].ops.append(huge.changes[0].ops[0])
    #expect(error(huge) == .counterTooLarge(change: TestDoc.fakeHash(1)))
    huge.changes[0].startOp = UInt64.max
    #expect(error(huge) == .counterTooLarge(change: TestDoc.fakeHash(1)))
    var twice = doc
    twice.add(A.a, startOp: 1, [.put("j", .int(1))])
    #expect(error(twice) == .duplicateOpId(id(1, A.a)))
  }

  @Test func aNonNumericIncrement() {
    var doc = TestDoc()
    doc.add(
      A.a, startOp: 1,
      [
        .put("n", .counter(1)),
        TOp(
          obj: .root, key: .map("n"), action: .increment, value: .string("x"), pred: [TID(1, A.a)]),
      ])
    #expect(error(doc) == .nonNumericIncrement(op: id(2, A.a)))
  }

  @Test func nestingIsBounded() throws {
    func nested(_ depth: Int) -> TestDoc {
      var ops: [TOp] = [.make(.makeMap, "m")]
      for k in 1..<depth { ops.append(.make(.makeMap, "m", in: .id(TID(UInt32(k), A.a)))) }
      var doc = TestDoc()
      doc.add(A.a, startOp: 1, ops)
      return doc
    }
    #expect(throws: Never.self) { try Materializer.materialize(nested(1000).changes, typed: false) }
    #expect(error(nested(1001)) == .nestingTooDeep(op: id(1001, A.a), limit: 1000))
    #expect(error(nested(100_000)) == .nestingTooDeep(op: id(1001, A.a), limit: 1000))
  }
}
