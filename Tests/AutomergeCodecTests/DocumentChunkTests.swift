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
