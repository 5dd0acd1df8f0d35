import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct DocumentChunkTests {
  /// §12.4: the exemplar's one change regenerates to exactly this 343-byte chunk.
  static let exemplarChange = hex(
    """
    856f4a833df6f94601cc0200104cd4253650bc4454ad8aa023db3e10f201010000000c010602061106130915
    4c34034205561b57890170047102730200020a00000900020a02000900030900000900027e0003080100097e
    057469746c65056e6f746573000a770974696d657374616d70086c6f636174696f6e07636f756e7465720369
    6e740475696e7402667005627974657304626f6f6c0974696d657374616d70020a097e010413017eb6050003
    467b364636463602467759e6021814a301850147026948656c6c6f20f09f87acf09f87a7f09f91a8e2808df0
    9f91a8e2808df09f91a7e2808df09f91a6f09f9880f09f87acf09f87a7f09f91a8e2808df09f91a8e2808df0
    9f91a7e2808df09f91a6f09f9880fd81b0d07c68747470733a2f2f6175746f6d657267652e6f72672f057cff
    ffffffffffffffff01cd067856fb210940856f4a83c8b88ff7d36514007f017f007f0d
    """)

  @Test func exemplar() throws {
    let file = try AutomergeFile.decode(Fixture.bytes("valid/upstream/exemplar"))
    #expect(file.chunks.map(\.type) == [.document])
    #expect(file.changes.count == 1)
    let c = file.changes[0]
    #expect(c.chunk == Self.exemplarChange)
    #expect(
      c.hash.description == "3df6f946d47c57c7fa84fccc3f72c2301c94d6c7d3a79bb6267c315b3d2d364c")
    #expect(c.seq == 1 && c.startOp == 1 && c.time == 0 && c.message == nil && c.actors.count == 1)
    #expect(c.ops.count == 21)
    // Op 21 (the second timestamp) has pred [13@author].
    #expect(c.ops[20].pred == [OpId(counter: 13, actor: 0)])
    #expect(file.opCount == 21)
    // The regenerated change also decodes as a change chunk, to itself.
    let again = try AutomergeFile.decode(c.chunk)
    #expect(again.changes[0].ops == c.ops)
  }

  /// Automerge 0.6.1 (the app's) opens a document whose mark end comes before its begin,
  /// which 0.11 refuses: mn opens it as 0.6.1 does, and says that the newer one refuses it.
  @Test func zeroWidthMarkOpensAsInAutomerge06() throws {
    let rel = "valid/upstream/broken_zero_width_mark.automerge"
    let file = try AutomergeFile.decode(Fixture.bytes(rel))
    #expect(ChangeListing.heads(file.heads) == (try Fixture.text(rel + ".heads")))
    #expect(ChangeListing.changes(file.changes) == (try Fixture.text(rel + ".changes")))
    #expect(file.refusedByNewerAutomerge.count == 1)
    #expect(file.refusedByNewerAutomerge.first?.contains("occurs before its mark begin") == true)
    // Every change still re-encodes to its own bytes.
    for c in file.changes {
      let (chunk, hash) = c.encoded()
      #expect(chunk == c.chunk && hash == c.hash)
    }
    // A document both versions open carries no such note.
    #expect(
      try AutomergeFile.decode(Fixture.bytes("valid/upstream/exemplar")).refusedByNewerAutomerge
        .isEmpty)
  }

  @Test func headsMismatchIsRejected() throws {
    #expect(throws: AutomergeDecodeError.self) {
      try AutomergeFile.decode(Fixture.bytes("malformed/incorrect_max_op.automerge"))
    }
  }

  @Test(arguments: Fixture.files("malformed"))
  func malformedIsRejected(_ rel: String) throws {
    #expect(throws: AutomergeDecodeError.self) { try AutomergeFile.decode(Fixture.bytes(rel)) }
  }
}

/// A document chunk of `Reconstruction.parallelOps` ops or more has its op columns decoded in
/// two halves at once (`decodeOpColumns`), one whose change columns reach
/// `Reconstruction.parallelRowBytes` its change rows beside its ops (`DocumentChunk.decode`):
/// every change it holds must come back as it went in.
@Suite struct LargeDocumentChunkTests {
  /// A text of `count` characters typed by two actors, one change of `perChange` ops after
  /// another, each on the last; the changes in order.
  static func typedText(count: Int, perChange: Int) -> [Change] {
    let actors = [ActorId([0x01]), ActorId([0x02])]
    var changes: [Change] = []
    var seqs = [UInt64](repeating: 0, count: 2)
    var counter: UInt32
    var last: OpId?  // the last character, actors as in `actors`
    let make = Op(
      object: .root, key: .map("text"), insert: false, action: .makeText, value: .null, pred: [])
    changes.append(
      Change(
        actors: [actors[0]], seq: 1, startOp: 1, time: 0, message: nil, deps: [], ops: [make]))
    seqs[0] = 1
    counter = 2
    var typed = 0
    while typed < count {
      let a = (changes.count % 2)
      // The author's table: itself first, then the other actor (named by the text object or
      // by the previous character).
      let table = a == 0 ? actors : [actors[1], actors[0]]
      func local(_ id: OpId) -> OpId {
        OpId(counter: id.counter, actor: UInt32(table.firstIndex(of: actors[Int(id.actor)]) ?? 0))
      }
      let text = local(OpId(counter: 1, actor: 0))
      var ops: [Op] = []
      let startOp = UInt64(counter)
      for _ in 0..<min(perChange, count - typed) {
        let key: Key = last.map { .element(local($0)) } ?? .head
        ops.append(
          Op(
            object: .object(text), key: key, insert: true, action: .set,
            value: .string(String(UnicodeScalar(UInt8(97 + typed % 26)))), pred: []))
        last = OpId(counter: counter, actor: UInt32(a))
        counter += 1
        typed += 1
      }
      seqs[a] += 1
      // Times that differ irregularly, as a person's do: their column does not shrink.
      let time = 1_700_000_000_000 + Int64(changes.count) * 1000 + Int64(changes.count * 7919 % 997)
      changes.append(
        Change(
          actors: table, seq: seqs[a], startOp: startOp, time: time, message: nil,
          deps: [changes[changes.count - 1].hash], ops: ops))
    }
    return changes
  }

  @Test(arguments: [
    (Reconstruction.parallelOps + 1000, 700),  // the op columns in halves
    (max(40_000, Reconstruction.parallelEncodeRows + 1), 1),  // the change rows beside the ops
  ])
  func aLargeDocumentComesBackWhole(count: Int, perChange: Int) throws {
    let changes = Self.typedText(count: count, perChange: perChange)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk))
    let file = try AutomergeFile.decode(saved.bytes)
    #expect(file.chunks.map(\.type) == [.document])
    #expect(file.changes.map(\.hash) == changes.map(\.hash))
    // As a check reads it (each change's hash only; from `parallelEncodeRows` rows, the
    // second half encoded on a thread of its own and hashed once the first half's are in).
    #expect(try AutomergeFile.verifyListing(saved.bytes).hashes == changes.map(\.hash))
    #expect(file.heads == [changes[changes.count - 1].hash])
    guard case .object(let root) = try Materializer.materialize(file.changes, typed: false),
      case .string(let text) = root.first(where: { $0.0 == "text" })?.1
    else {
      Issue.record("no text")
      return
    }
    #expect(text.count == count)
    #expect(text.hasPrefix("abcdefghijklmnopqrstuvwxyzabc"))
  }

  /// A document's changes rebuilt without their ops, as a merge reads its inputs, or with
  /// them, as a save reads its input: from `parallelEncodeRows` rows in two parts (the
  /// second half encoded, its ops built, on a thread of its own up to its deps, then
  /// finished in row order). Every field, the ops when kept, and the chunk of each change
  /// kept, must be those of the change read one by one.
  @Test(arguments: [false, true])
  func changesComeBackAsTheyWentIn(keepOps: Bool) throws {
    let changes = Self.typedText(count: 3 * Reconstruction.parallelEncodeRows, perChange: 2)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk)).bytes
    let keep: @Sendable (ChangeHash) -> Bool = { $0.w0 & 1 == 0 }
    let file = try AutomergeFile.decode(
      saved, keepOps: keepOps, chunks: .only(keep), inspectFirstDocument: nil)
    #expect(file.changes.count == changes.count)
    for (got, want) in zip(file.changes, changes) {
      #expect(got.hash == want.hash)
      #expect(got.actors == want.actors)
      #expect(
        [got.seq, got.startOp, UInt64(bitPattern: got.time)]
          == [want.seq, want.startOp, UInt64(bitPattern: want.time)])
      #expect(got.deps == want.deps)
      #expect(got.message == want.message && got.extra == want.extra)
      #expect(got.ops == (keepOps ? want.ops : []))
      #expect(got.chunk == (keep(want.hash) ? want.chunk : []))
    }
    #expect(file.heads == [changes[changes.count - 1].hash])
  }

  /// An unknown action in a row of each half of such a document: the first half's is the
  /// error, as when the rows are built one after the other, whether the changes are kept
  /// (with or without their ops) or only hashed; each alone gives its own.
  @Test func changesBuiltInTwoPartsGiveTheirFirstError() throws {
    let changes = Self.typedText(count: 3 * Reconstruction.parallelEncodeRows, perChange: 2)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk)).bytes
    let action: UInt64 = 66
    func refusals(_ doc: [UInt8]) -> [String] {
      let reads: [() throws -> Void] = [
        { _ = try AutomergeFile.decode(doc, keepOps: false) },
        { _ = try AutomergeFile.verifyListing(doc) },
        { _ = try AutomergeFile.decode(doc, keepOps: true) },
      ]
      return reads.map { read in
        do {
          try read()
          return "accepted"
        } catch {
          return "\(error)"
        }
      }
    }
    let early = try ManyOpsInOneChangeTests.setting(action, at: [0.2], to: 9, in: saved)
    let late = try ManyOpsInOneChangeTests.setting(action, at: [0.9], to: 10, in: saved)
    let both = try ManyOpsInOneChangeTests.setting(action, at: [0.9], to: 10, in: early)
    let (first, second) = (refusals(early), refusals(late))
    #expect(first[0].contains("unrecognized action index 9"))
    #expect(second[0].contains("unrecognized action index 10"))
    #expect(Set(first).count == 1 && Set(second).count == 1)
    #expect(refusals(both) == first)
  }

  /// `doc save`'s read-back: a document's rows rebuilt with the hashes expected of them as
  /// their deps' (in two halves at once, from `Reconstruction.parallelRebuildRows` rows)
  /// give the hashes the rows give one after the other.
  @Test func rowsRebuiltAgainstTheirExpectedHashesGiveTheirOwn() throws {
    let changes = Self.typedText(count: Self.rebuiltRows, perChange: 1)
    let hashes = changes.map(\.hash)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk)).bytes
    let alone = try AutomergeFile.verifyListing(saved)
    let expected = try AutomergeFile.verifyListing(saved, expected: hashes)
    #expect(alone.hashes == hashes)
    #expect(expected.hashes == hashes)
    #expect(expected.facts == alone.facts)
    // Expectations of another length are not used.
    #expect(
      try AutomergeFile.verifyListing(saved, expected: Array(hashes.dropLast())).hashes == hashes)
  }

  /// Rows enough for two halves (a typed text of that many changes, one op each): three
  /// times the threshold, and rows in both halves at any threshold.
  static let rebuiltRows = max(3 * Reconstruction.parallelRebuildRows, 3_072)

  /// A wrong expected hash shows where it is expected and in the rows that list it as a
  /// dep, whichever half they are in: the save compares every row, so a document that does
  /// not hold the input's changes cannot pass.
  @Test(arguments: [10, rebuiltRows * 2 / 3])
  func aWrongExpectedHashShowsInItsRowAndItsDependents(at row: Int) throws {
    let changes = Self.typedText(count: Self.rebuiltRows, perChange: 1)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk)).bytes
    var expected = changes.map(\.hash)
    expected[row] = changes[0].hash
    let back = try AutomergeFile.verifyListing(saved, expected: expected).hashes
    let differ = back.indices.filter { back[$0] != expected[$0] }
    // Each change of the typed text depends on the one before it.
    #expect(differ == [row, row + 1])
  }
}

/// A change of `Reconstruction.splitRowOps` ops or more is encoded on two threads when a
/// document is read (`encodeOnTwoThreads`): its objects, keys and flags on one, the rest of
/// its columns on the other. It must come back byte for byte, and a bad op in it must be
/// refused as it is in a small change.
@Suite struct ManyOpsInOneChangeTests {
  static let a = ActorId([0xaa])
  static let b = ActorId([0x0b])

  /// Two changes: `a` makes a map, a text and a counter; then `b`, in one change of at least
  /// `count` ops, types into the text, deletes some of it, marks parts of it, overwrites the
  /// map's keys with values of every type and increments the counter: objects, keys and
  /// preds of both actors, synthesized deletions, expands and mark names.
  static func changes(count: Int) -> [Change] {
    let make = [
      Op(object: .root, key: .map("m"), insert: false, action: .makeMap),
      Op(object: .root, key: .map("t"), insert: false, action: .makeText),
      Op(object: .root, key: .map("n"), insert: false, action: .set, value: .counter(0)),
    ]
    let first = Change(
      actors: [a], seq: 1, startOp: 1, time: 0, message: nil, deps: [], ops: make)
    // In b's change, b is actor 0 and a actor 1.
    let map = ObjectRef.object(OpId(counter: 1, actor: 1))
    let text = ObjectRef.object(OpId(counter: 2, actor: 1))
    let counterOp = OpId(counter: 3, actor: 1)
    var ops: [Op] = []
    var counter: UInt32 = 4
    func add(_ op: Op) -> OpId {
      ops.append(op)
      counter += 1
      return OpId(counter: counter - 1, actor: 0)
    }
    var chars: [OpId] = []
    var last: OpId? = nil  // the text's last element: a character or a mark
    var lastOnKey: [String: OpId] = [:]
    let values: [(Int) -> ScalarValue] = [
      { .int(-Int64($0)) }, { .uint(UInt64($0) * 977) }, { .f64(Double($0) / 3) },
      { .bool($0 % 2 == 0) }, { .bytes([UInt8(truncatingIfNeeded: $0), 0xff]) },
      { .timestamp(1_700_000_000_000 + Int64($0)) }, { _ in .null }, { .string("v\($0)") },
    ]
    var i = 0
    while ops.count < count {
      let character = add(
        Op(
          object: text, key: last.map { .element($0) } ?? .head, insert: true, action: .set,
          value: .string(String(UnicodeScalar(UInt8(97 + i % 26))))))
      chars.append(character)
      last = character
      if i % 5 == 0 {
        let key = "k\(i % 61)"
        lastOnKey[key] = add(
          Op(
            object: map, key: .map(key), insert: false, action: .set,
            value: values[i % values.count](i), pred: lastOnKey[key].map { [$0] } ?? []))
      }
      // The character before this one, so that deletions are all along the text.
      if i % 7 == 3 {
        let gone = chars[chars.count - 2]
        _ = add(
          Op(object: text, key: .element(gone), insert: false, action: .delete, pred: [gone]))
      }
      if i % 11 == 0 {
        _ = add(
          Op(
            object: .root, key: .map("n"), insert: false, action: .increment, value: .int(1),
            pred: [counterOp]))
      }
      // A mark over the last six characters: its begin and its end are consecutive ops,
      // as Automerge makes them (an end names its begin by the counter before its own).
      if i % 13 == 12 {
        _ = add(
          Op(
            object: text, key: .element(chars[chars.count - 6]), insert: true, action: .mark,
            value: .bool(true), expand: true, markName: "bold"))
        last = add(
          Op(object: text, key: .element(character), insert: true, action: .mark, expand: true))
      }
      i += 1
    }
    let second = Change(
      actors: [b, a], seq: 1, startOp: 4, time: 1_700_000_000_000, message: "many",
      deps: [first.hash], ops: ops)
    return [first, second]
  }

  /// Enough for one change to be encoded on two threads, and for the document's stored ops
  /// (the deletions are not stored) to have their preds rebuilt in two halves.
  static let opCount = max(Reconstruction.splitRowOps, Reconstruction.parallelOps) * 5 / 4 + 1_000

  @Test func aChangeOfManyOpsComesBackWhole() throws {
    let changes = Self.changes(count: Self.opCount)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk))
    let file = try AutomergeFile.decode(saved.bytes)
    #expect(file.chunks.map(\.type) == [.document])
    #expect(file.changes.map(\.hash) == changes.map(\.hash))
    #expect(file.changes.map(\.chunk) == changes.map(\.chunk))
    #expect(file.changes[1].ops == changes[1].ops)
    // As a check reads it: each change's hash only.
    #expect(try AutomergeFile.verifyListing(saved.bytes).hashes == changes.map(\.hash))
  }

  /// An action no Automerge knows, put into the document's action column at `fraction` of
  /// its ops (past the root's, so in the large change), is refused with the error a small
  /// change gives for it.
  @Test(arguments: [0.2, 0.5, 0.99])
  func anUnknownActionInTheLargeChangeIsRefused(at fraction: Double) throws {
    let saved = try DocumentEncoder.save(Self.changes(count: Self.opCount).flatMap(\.chunk)).bytes
    let small = try DocumentEncoder.save(Self.changes(count: 100).flatMap(\.chunk)).bytes
    let expected = Self.refusal(try Self.setting(66, at: [0.5], to: 9, in: small))
    #expect(expected.contains("unrecognized action index 9"))
    let big = try Self.setting(66, at: [fraction], to: 9, in: saved)
    #expect(Self.refusal(big) == expected)
    #expect(throws: AutomergeDecodeError.self) { try AutomergeFile.verifyListing(big) }
  }

  /// The preds of a document of `Reconstruction.parallelOps` ops or more are rebuilt in two
  /// halves at once (`predsFromSuccs`): with an invalid object id in the first half and an
  /// invalid element id in the second, the object's error comes first, as when the ops are
  /// read in order; each alone gives its own.
  @Test func aDocumentReadInHalvesGivesItsFirstError() throws {
    let changes = Self.changes(count: Self.opCount)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk)).bytes
    // A document stores every op but the deletions.
    let stored = changes.flatMap(\.ops).filter { $0.action != .delete }.count
    #expect(stored >= Reconstruction.parallelOps)
    let objectActor: UInt64 = 1
    let keyActor: UInt64 = 17
    let badObject = Self.refusal(try Self.setting(objectActor, at: [0.3], to: 9, in: saved))
    let badKey = Self.refusal(try Self.setting(keyActor, at: [0.8], to: 7, in: saved))
    #expect(badObject.contains("invalid object id"))
    #expect(badKey.contains("invalid element id") && badObject != badKey)
    let both = try Self.setting(
      keyActor, at: [0.8], to: 7, in: try Self.setting(objectActor, at: [0.3], to: 9, in: saved))
    #expect(Self.refusal(both) == badObject)
  }

  /// The op counters are counted before they are read (to size their array): a column
  /// with a bad counter in its first row and a run past the rows after it is refused for
  /// the counter, the first bad row, as when the rows were only read.
  @Test func theCountersFirstBadRowIsTheErrorGiven() throws {
    let saved = try DocumentEncoder.save(Self.changes(count: 100).flatMap(\.chunk)).bytes
    let idCtr: UInt64 = 35
    let bad = try #require(
      Self.rewritingOpColumn(saved, spec: idCtr) { _ in
        var column = ByteWriter()
        column.sleb(-1)  // a literal run of one row: counter 0
        column.sleb(0)
        column.sleb(1 << 40)  // a run of far more rows than the chunk may hold
        column.sleb(1)
        return column.bytes
      })
    let refusal = Self.refusal(bad)
    #expect(refusal.contains("op counter out of range"), "\(refusal)")
  }

  /// Why `AutomergeFile.decode` refuses `doc`, or "accepted".
  static func refusal(_ doc: [UInt8]) -> String {
    do {
      _ = try AutomergeFile.decode(doc)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  /// `doc` (a document chunk alone) with the values of its uLEB op column `spec` at
  /// `fractions` of its length set to `value`.
  static func setting(_ spec: UInt64, at fractions: [Double], to value: UInt64, in doc: [UInt8])
    throws -> [UInt8]
  {
    try #require(
      rewritingOpColumn(doc, spec: spec) { data in
        var values = try ColumnDecoder.uint(data, limit: 1 << 30, spec: UInt32(spec), chunk: 0)
        for f in fractions { values[Int(Double(values.count - 1) * f)] = value }
        var encoder = RLEEncoder<UInt64>()
        for v in values {
          if v == ColumnDecoder.nullUInt { encoder.appendNull() } else { encoder.append(v) }
        }
        return encoder.take()
      })
  }

  /// `bytes`, a document chunk alone, with op column `spec` replaced by `transform` of its
  /// inflated data, every column written uncompressed, and its checksum made again.
  static func rewritingOpColumn(
    _ bytes: [UInt8], spec: UInt64, _ transform: (UnsafeBufferPointer<UInt8>) throws -> [UInt8]
  ) throws -> [UInt8]? {
    var at = 9
    func uleb(_ from: [UInt8]) -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        let b = from[at]
        at += 1
        value |= UInt64(b & 0x7f) << shift
        if b < 0x80 { return value }
        shift += 7
      }
    }
    guard bytes.count > 9, bytes[8] == 0 else { return nil }
    let length = Int(uleb(bytes))
    let body = Array(bytes[at..<(at + length)])
    at = 0
    for _ in 0..<uleb(body) { at += Int(uleb(body)) }
    at += 32 * Int(uleb(body))
    let prefix = Array(body[..<at])
    var columns: [[(spec: UInt64, length: Int)]] = []
    for _ in 0..<2 {
      columns.append((0..<uleb(body)).map { _ in (uleb(body), Int(uleb(body))) })
    }
    var data: [[UInt8]] = []
    for (kind, list) in columns.enumerated() {
      for c in list {
        var column = Array(body[at..<(at + c.length)])
        at += c.length
        if c.spec & 8 != 0 {
          column = try column.withUnsafeBufferPointer { try Deflate.inflate($0, offset: 0) }
        }
        if kind == 1 && c.spec & ~8 == spec {
          column = try column.withUnsafeBufferPointer { try transform($0) }
        }
        data.append(column)
      }
    }
    var out = prefix
    var k = 0
    for list in columns {
      out.putULEB(UInt64(list.count))
      for c in list {
        out.putULEB(c.spec & ~8)
        out.putULEB(UInt64(data[k].count))
        k += 1
      }
    }
    for column in data { out += column }
    out += body[at...]
    return ChangeEncoder.wrap(type: 0, body: out).chunk
  }
}
