import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct MaterializerTests {
  typealias A = Actors

  @Test func noChangesIsAnEmptyMap() throws {
    #expect(try Materializer.materialize([], typed: false) == .object([]))
    #expect(try Materializer.materialize([], typed: true) == .object([]))
  }

  @Test func mapOverwriteAndDelete() throws {
    var doc = TestDoc()
    let h1 = doc.add(A.a, startOp: 1, [.put("x", .string("one")), .put("y", .string("gone"))])
    doc.add(
      A.a, startOp: 3, deps: [h1],
      [.put("x", .string("two"), pred: [TID(1, A.a)]), .del("y", pred: [TID(2, A.a)])])
    #expect(try doc.json() == json(#"{"x":"two"}"#))
  }

  @Test func concurrentPutsTheGreatestLamportIdWins() throws {
    // Same counter: actor bytes decide (0xbb > 0xaa > 0x0c), whatever the change order.
    var doc = TestDoc()
    doc.add(A.c, startOp: 1, [.put("k", .string("c"))])
    doc.add(A.b, startOp: 1, [.put("k", .string("b"))])
    doc.add(A.a, startOp: 1, [.put("k", .string("a"))])
    #expect(try doc.json() == json(#"{"k":"b"}"#))
    // A higher counter beats greater actor bytes.
    doc.add(A.c, startOp: 2, [.put("k", .string("c2"))])
    #expect(try doc.json() == json(#"{"k":"c2"}"#))
  }

  @Test func actorTieBreakTreatsAPrefixAsSmaller() throws {
    var doc = TestDoc()
    doc.add(A.a2, startOp: 1, [.put("k", .string("longer"))])
    doc.add(A.a1, startOp: 1, [.put("k", .string("prefix"))])
    #expect(try doc.json() == json(#"{"k":"longer"}"#))
  }

  @Test func overwritingOneSideOfAConflictLeavesTheOther() throws {
    // b overwrote only a's value; the conflict partner from c (smaller) is still visible.
    var doc = TestDoc()
    let ha = doc.add(A.a, startOp: 1, [.put("k", .string("a"))])
    doc.add(A.c, startOp: 1, [.put("k", .string("c"))])
    doc.add(A.b, startOp: 2, deps: [ha], [.put("k", .string("b"), pred: [TID(1, A.a)])])
    #expect(try doc.json() == json(#"{"k":"b"}"#))
    // And deleting the winner uncovers the loser.
    var doc2 = TestDoc()
    let h = doc2.add(A.a, startOp: 1, [.put("k", .string("a"))])
    doc2.add(A.c, startOp: 1, [.put("k", .string("c"))])
    doc2.add(A.b, startOp: 2, deps: [h], [.del("k", pred: [TID(1, A.a)])])
    #expect(try doc2.json() == json(#"{"k":"c"}"#))
  }

  @Test func countersSumConcurrentIncrements() throws {
    var doc = TestDoc()
    let h = doc.add(A.a, startOp: 1, [.put("n", .counter(10))])
    doc.add(A.a, startOp: 2, deps: [h], [.inc("n", 2, pred: [TID(1, A.a)])])
    doc.add(A.b, startOp: 2, deps: [h], [.inc("n", 3, pred: [TID(1, A.a)])])
    doc.add(A.c, startOp: 2, deps: [h], [.inc("n", -20, pred: [TID(1, A.a)])])
    #expect(try doc.json() == json(#"{"n":-5}"#))
    #expect(try doc.json(typed: true) == json(#"{"n":{"$counter":-5}}"#))
  }

  @Test func aCounterOverwrittenOrDeletedConcurrentlyWithAnIncrementIsGone() throws {
    var doc = TestDoc()
    let h = doc.add(A.a, startOp: 1, [.put("n", .counter(1)), .put("m", .counter(1))])
    doc.add(
      A.a, startOp: 3, deps: [h],
      [.put("n", .string("replaced"), pred: [TID(1, A.a)]), .del("m", pred: [TID(2, A.a)])])
    doc.add(
      A.b, startOp: 3, deps: [h],
      [.inc("n", 5, pred: [TID(1, A.a)]), .inc("m", 5, pred: [TID(2, A.a)])])
    #expect(try doc.json() == json(#"{"n":"replaced"}"#))
  }

  @Test func anIncrementHidesANonCounter() throws {
    // Automerge adds the inc to the succ list of whatever its pred names; only counters
    // stay visible with increments as successors.
    var doc = TestDoc()
    let h = doc.add(A.a, startOp: 1, [.put("n", .int(1))])
    doc.add(A.a, startOp: 2, deps: [h], [.inc("n", 5, pred: [TID(1, A.a)])])
    #expect(try doc.json() == json(#"{}"#))
  }

  @Test func concurrentInsertsAtTheSamePositionFollowRGA() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1,
      [.make(.makeList, "l"), .insert(.id(list), after: .head, .string("x"))])
    // All three insert right after x, concurrently, with the same counter 3.
    for (actor, text) in [(A.a, "a"), (A.b, "b"), (A.c, "c")] {
      doc.add(
        actor, startOp: 3, deps: [h], [.insert(.id(list), after: .elem(TID(2, A.a)), .string(text))]
      )
    }
    // And c also inserts at HEAD with counter 4, which puts it before x.
    doc.add(A.c, startOp: 4, deps: [h], [.insert(.id(list), after: .head, .string("first"))])
    // Children of x by id descending: 3@bb, 3@aa, 3@0c.
    #expect(try doc.json() == json(#"{"l":["first","x","b","a","c"]}"#))
  }

  @Test func rgaNestsLaterInsertsAfterTheirReference() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1,
      [.make(.makeList, "l"), .insert(.id(list), after: .head, .string("1"))])
    // a types "2" then "3" after "1" (a chain, 3@aa and 4@aa); b concurrently inserts "B"
    // after "1" as 3@bb, which is greater than 3@aa, so "B" comes first.
    doc.add(
      A.a, startOp: 3, deps: [h],
      [
        .insert(.id(list), after: .elem(TID(2, A.a)), .string("2")),
        .insert(.id(list), after: .elem(TID(3, A.a)), .string("3")),
      ])
    doc.add(
      A.b, startOp: 3, deps: [h], [.insert(.id(list), after: .elem(TID(2, A.a)), .string("B"))])
    #expect(try doc.json() == json(#"{"l":["1","B","2","3"]}"#))
    // With a smaller actor, c's element goes after a's whole subtree.
    doc.add(
      A.c, startOp: 3, deps: [h], [.insert(.id(list), after: .elem(TID(2, A.a)), .string("C"))])
    #expect(try doc.json() == json(#"{"l":["1","B","2","3","C"]}"#))
  }

  @Test func listElementsCanBeSetDeletedAndConflicted() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1,
      [
        .make(.makeList, "l"),
        .insert(.id(list), after: .head, .int(1)),
        .insert(.id(list), after: .elem(TID(2, A.a)), .int(2)),
        .insert(.id(list), after: .elem(TID(3, A.a)), .int(3)),
      ])
    doc.add(
      A.a, startOp: 5, deps: [h],
      [
        .delElement(.id(list), TID(3, A.a), pred: [TID(3, A.a)]),
        .setElement(.id(list), TID(4, A.a), .string("a"), pred: [TID(4, A.a)]),
      ])
    doc.add(
      A.b, startOp: 5, deps: [h],
      [.setElement(.id(list), TID(4, A.a), .string("b"), pred: [TID(4, A.a)])])
    // 6@aa beats 5@bb: the counter decides before the actor.
    #expect(try doc.json() == json(#"{"l":[1,"a"]}"#))
    #expect(try doc.json(typed: true) == json(#"{"l":[{"$int":1},"a"]}"#))
  }

  @Test func deletingAnElementConcurrentlyWithASetKeepsTheSet() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1, [.make(.makeList, "l"), .insert(.id(list), after: .head, .int(1))])
    doc.add(A.a, startOp: 3, deps: [h], [.delElement(.id(list), TID(2, A.a), pred: [TID(2, A.a)])])
    doc.add(
      A.b, startOp: 3, deps: [h],
      [.setElement(.id(list), TID(2, A.a), .int(9), pred: [TID(2, A.a)])])
    #expect(try doc.json() == json(#"{"l":[9]}"#))
  }

  @Test func counterInAListElement() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1, [.make(.makeList, "l"), .insert(.id(list), after: .head, .counter(1))])
    doc.add(
      A.b, startOp: 3, deps: [h], [.incElement(.id(list), TID(2, A.a), 41, pred: [TID(2, A.a)])])
    #expect(try doc.json(typed: true) == json(#"{"l":[{"$counter":42}]}"#))
  }

  @Test func textConcatenatesElementsAndSkipsMarks() throws {
    let text = TID(1, A.a)
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1,
      [
        .make(.makeText, "t"),
        .insert(.id(text), after: .head, .string("Hé")),
        .markBegin(.id(text), after: .elem(TID(2, A.a)), "bold", .bool(true)),
        .insert(.id(text), after: .elem(TID(3, A.a)), .string("llo")),
        .markEnd(.id(text), after: .elem(TID(4, A.a))),
        .insert(.id(text), after: .elem(TID(5, A.a)), .string(" w")),
        .insert(.id(text), after: .elem(TID(6, A.a)), .int(7)),
        .insertMake(.id(text), after: .elem(TID(7, A.a)), .makeMap),
        .insert(.id(text), after: .elem(TID(8, A.a)), .string("👨‍👩‍👧")),
      ])
    doc.add(
      A.b, startOp: 10, deps: [h], [.delElement(.id(text), TID(6, A.a), pred: [TID(6, A.a)])])
    let expected = "Héllo\u{FFFC}\u{FFFC}👨‍👩‍👧"
    #expect(try doc.json() == .object([("t", .string(expected))]))
    #expect(try doc.json(typed: true) == .object([("t", .object([("$text", .string(expected))]))]))
  }

  @Test func nestedObjects() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    doc.add(
      A.a, startOp: 1,
      [
        .make(.makeList, "items"),
        .insertMake(.id(list), after: .head, .makeMap),
        .put("name", .string("n"), in: .id(TID(2, A.a))),
        .make(.makeText, "note", in: .id(TID(2, A.a))),
        .insert(.id(TID(4, A.a)), after: .head, .string("hi")),
        .make(.makeTable, "table"),
        .put("row", .uint(1), in: .id(TID(6, A.a))),
        .insertMake(.id(list), after: .elem(TID(2, A.a)), .makeList),
        .insertMake(.id(list), after: .elem(TID(8, A.a)), .makeText),
        .make(.makeMap, "empty"),
      ])
    #expect(
      try doc.json()
        == json(#"{"empty":{},"items":[{"name":"n","note":"hi"},[],""],"table":{"row":1}}"#))
    #expect(
      try doc.json(typed: true)
        == json(
          #"{"empty":{},"items":[{"name":"n","note":{"$text":"hi"}},[],{"$text":""}],"table":{"row":{"$uint":1}}}"#
        ))
  }

  @Test func overwrittenObjectsDisappearAndConflictingObjectsPickTheWinner() throws {
    var doc = TestDoc()
    let h = doc.add(
      A.a, startOp: 1, [.make(.makeMap, "m"), .put("x", .int(1), in: .id(TID(1, A.a)))])
    doc.add(
      A.a, startOp: 3, deps: [h],
      [.make(.makeMap, "r"), .put("v", .string("a"), in: .id(TID(3, A.a)))])
    doc.add(
      A.b, startOp: 3, deps: [h],
      [.make(.makeMap, "r"), .put("v", .string("b"), in: .id(TID(3, A.b)))])
    doc.add(A.c, startOp: 3, deps: [h], [.put("m", .null, pred: [TID(1, A.a)])])
    #expect(try doc.json() == json(#"{"m":null,"r":{"v":"b"}}"#))
  }

  @Test func everyScalarTypePlainAndTyped() throws {
    var doc = TestDoc()
    doc.add(
      A.a, startOp: 1,
      [
        .put("null", .null), .put("t", .bool(true)), .put("f", .bool(false)),
        .put("uint", .uint(UInt64.max)), .put("int", .int(Int64.min)), .put("f64", .f64(-0.5)),
        .put("nan", .f64(.nan)), .put("str", .string("s\"\n")), .put("bytes", .bytes([0, 0xff])),
        .put("emptyBytes", .bytes([])), .put("counter", .counter(-3)),
        .put("ts", .timestamp(-905182979000)), .put("unknown", .unknown(code: 12, bytes: [1, 2])),
      ])
    #expect(
      try doc.json()
        == json(
          #"""
          {"bytes":{"$bytes":"00ff"},"counter":-3,"emptyBytes":{"$bytes":""},"f":false,"f64":-0.5,
           "int":-9223372036854775808,"nan":null,"null":null,"str":"s\"\n","t":true,
           "ts":-905182979000,"uint":18446744073709551615,
           "unknown":{"$unknown":{"type":12,"bytes":"0102"}}}
          """#))
    #expect(
      try doc.json(typed: true)
        == json(
          #"""
          {"bytes":{"$bytes":"00ff"},"counter":{"$counter":-3},"emptyBytes":{"$bytes":""},
           "f":false,"f64":{"$f64":-0.5},"int":{"$int":-9223372036854775808},"nan":{"$f64":null},
           "null":null,"str":"s\"\n","t":true,"ts":{"$timestamp":-905182979000},
           "uint":{"$uint":18446744073709551615},"unknown":{"$unknown":{"type":12,"bytes":"0102"}}}
          """#))
  }

  @Test func keysAreSortedByUTF8BytesAndCanonicalEquivalentsStayApart() throws {
    var doc = TestDoc()
    doc.add(
      A.a, startOp: 1,
      [
        .put("é", .int(1)), .put("e\u{301}", .int(2)), .put("Z", .int(3)), .put("", .int(4)),
        .put("\u{FF5A}", .int(5)), .put("😀", .int(6)),
      ])
    let value = try doc.json()
    guard case .object(let members) = value else {
      Issue.record("not an object")
      return
    }
    #expect(
      members.map { Array($0.0.utf8) }
        == ["", "Z", "e\u{301}", "é", "\u{FF5A}", "😀"].map { Array($0.utf8) })
  }

  @Test func theExemplarContent() throws {
    // interop/exemplar (automerge-format.md §7.9, §10), rebuilt op by op.
    let actor = ActorId(Hex.decode("4cd4253650bc4454ad8aa023db3e10f2") ?? [])
    let flagsAndFamily = ["🇬", "🇧", "👨", "\u{200D}", "👨", "\u{200D}", "👧", "\u{200D}", "👦", "😀"]
    var ops: [TOp] = [
      .put("title", .string("Hello 🇬🇧👨‍👨‍👧‍👦😀")),
      .make(.makeText, "notes"),
    ]
    for (i, s) in flagsAndFamily.enumerated() {
      let after: TOp.K = i == 0 ? .head : .elem(TID(UInt32(2 + i), actor))
      ops.append(.insert(.id(TID(2, actor)), after: after, .string(s)))
    }
    ops += [
      .put("timestamp", .timestamp(0)),
      .put("location", .string("https://automerge.org/")),
      .put("counter", .counter(5)),
      .put("int", .int(-4)),
      .put("uint", .uint(18_446_744_073_709_551_615)),
      .put("fp", .f64(3.14159267)),
      .put("bytes", .bytes([0x85, 0x6f, 0x4a, 0x83])),
      .put("bool", .bool(true)),
      .put("timestamp", .timestamp(-905_182_979_000), pred: [TID(13, actor)]),
    ]
    var doc = TestDoc()
    doc.add(actor, startOp: 1, ops)
    #expect(doc.changes[0].ops.count == 21)
    #expect(
      try doc.json()
        == json(
          #"""
          {"bool":true,"bytes":{"$bytes":"856f4a83"},"counter":5,"fp":3.14159267,"int":-4,
           "location":"https://automerge.org/","notes":"🇬🇧👨‍👨‍👧‍👦😀","timestamp":-905182979000,
           "title":"Hello 🇬🇧👨‍👨‍👧‍👦😀","uint":18446744073709551615}
          """#))
    #expect(
      try doc.json(typed: true)
        == json(
          #"""
          {"bool":true,"bytes":{"$bytes":"856f4a83"},"counter":{"$counter":5},"fp":{"$f64":3.14159267},
           "int":{"$int":-4},"location":"https://automerge.org/","notes":{"$text":"🇬🇧👨‍👨‍👧‍👦😀"},
           "timestamp":{"$timestamp":-905182979000},"title":"Hello 🇬🇧👨‍👨‍👧‍👦😀",
           "uint":{"$uint":18446744073709551615}}
          """#))
  }

  @Test func changeOrderDoesNotMatter() throws {
    let list = TID(1, A.a)
    var doc = TestDoc()
    let h1 = doc.add(
      A.a, startOp: 1, [.make(.makeList, "l"), .insert(.id(list), after: .head, .int(1))])
    let h2 = doc.add(
      A.b, startOp: 3, deps: [h1], [.insert(.id(list), after: .elem(TID(2, A.a)), .int(2))])
    doc.add(A.c, startOp: 4, deps: [h2], [.insert(.id(list), after: .elem(TID(3, A.b)), .int(3))])
    doc.add(A.a, startOp: 3, deps: [h1], [.put("k", .string("a"))])
    let expected = try doc.json()
    #expect(try expected == json(#"{"k":"a","l":[1,2,3]}"#))
    #expect(try Materializer.materialize(doc.changes.reversed(), typed: false) == expected)
    #expect(
      try Materializer.materialize([2, 0, 3, 1].map { doc.changes[$0] }, typed: false) == expected)
  }

  @Test func orphansAndDuplicatesAreLeftOut() throws {
    var doc = TestDoc()
    let h1 = doc.add(A.a, startOp: 1, [.put("a", .int(1))])
    let missing = TestDoc.fakeHash(999)
    let orphan = doc.add(A.b, startOp: 2, deps: [h1, missing], [.put("b", .int(2))])
    doc.add(A.c, startOp: 3, deps: [orphan], [.put("c", .int(3))])
    let changes = doc.changes + [doc.changes[0]]
    let set = try OpSet(changes: changes)
    #expect(set.unappliedChangeCount == 3)
    #expect(try set.json(typed: false) == json(#"{"a":1}"#))
  }

  @Test func predsThatNameNothingOrAnotherKeyAreIgnored() throws {
    var doc = TestDoc()
    let h = doc.add(A.a, startOp: 1, [.put("x", .int(1)), .put("y", .int(2))])
    doc.add(
      A.a, startOp: 3, deps: [h],
      [.put("z", .int(3), pred: [TID(2, A.a)]), .put("w", .int(4), pred: [TID(77, A.b)])])
    #expect(try doc.json() == json(#"{"w":4,"x":1,"y":2,"z":3}"#))
  }

  @Test func aLongTextNeedsNoDeepRecursion() throws {
    let text = TID(1, A.a)
    var ops: [TOp] = [.make(.makeText, "t")]
    for i in 0..<200_000 {
      let after: TOp.K = i == 0 ? .head : .elem(TID(UInt32(i + 1), A.a))
      ops.append(.insert(.id(text), after: after, .string(i % 2 == 0 ? "a" : "b")))
    }
    var doc = TestDoc()
    doc.add(A.a, startOp: 1, ops)
    let value = try doc.json()
    #expect(value["t"]?.stringValue?.utf8.count == 200_000)
  }
}
