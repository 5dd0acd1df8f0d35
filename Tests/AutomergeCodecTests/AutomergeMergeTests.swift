import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct AutomergeMergeTests {
  static let d0 = "valid/seed-01/device-0/tags.automerge"
  static let d1 = "valid/seed-01/device-1/tags.automerge"
  static let expected = "valid/seed-01/merged/tags.device-0+device-1.automerge"

  @Test func mergeMatchesTheReference() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    for inputs in [[a, b], [b, a], [a, b, a]] {
      let result = try AutomergeMerge.merge(inputs)
      let base = inputs[result.base]
      #expect(Array(result.bytes.prefix(base.count)) == base)
      let merged = try AutomergeFile.decode(result.bytes)
      #expect(ChangeListing.heads(merged.heads) == (try Fixture.text(Self.expected + ".heads")))
      #expect(
        ChangeListing.changes(merged.changes) == (try Fixture.text(Self.expected + ".changes")))
      #expect(result.heads == merged.heads)
      #expect(try AutomergeMerge.verify(result.bytes, inputs: inputs))
      // The appended chunks are in dependency order.
      var seen = Set(try AutomergeFile.decode(base).changes.map(\.hash))
      for h in result.added {
        let c = try #require(merged.change(h))
        #expect(c.deps.allSatisfy { seen.contains($0) })
        seen.insert(h)
      }
    }
  }

  /// `mergeAndVerify` reads the output back from the decoded inputs and the appended
  /// chunks only: the same answer as `verify`, for outputs that hold the union and for
  /// outputs that do not.
  @Test func mergeAndVerifyAgreesWithVerify() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let inc = try Fixture.bytes("valid/seed-01/device-0/tags.incremental.automerge")
    let chg = try Fixture.bytes("valid/seed-01/device-0/tags.changes.automerge")
    for inputs in [[a, b], [b, a], [a, b, a], [[], a, b], [inc, b], [chg, a, b], [a]] {
      let (result, holds) = try AutomergeMerge.mergeAndVerify(inputs)
      #expect(result.bytes == (try AutomergeMerge.merge(inputs)).bytes)
      #expect(holds)
      #expect(try AutomergeMerge.verify(result.bytes, inputs: inputs))
      let decoded = try inputs.map { try AutomergeFile.decode($0, keepOps: false) }
      let merged = try AutomergeFile.decode(result.bytes, keepOps: false)
      var base = decoded[result.base]
      let again = try AutomergeFile.decode(
        result.bytes, after: &base, prefixLength: inputs[result.base].count)
      #expect(base.changes.isEmpty)
      #expect(Set(again.changes.map(\.hash)) == Set(merged.changes.map(\.hash)))
      #expect(again.heads == merged.heads && again.opCount == merged.opCount)
      #expect(again.chunks.map(\.offset) == merged.chunks.map(\.offset))
      // Without its last appended chunk the output misses a change: both checks say so.
      guard let last = merged.chunks.last, !result.added.isEmpty else { continue }
      let short = Array(result.bytes[..<last.offset])
      var all = decoded
      #expect(!(try AutomergeMerge.verify(short, inputs: inputs, decoded: &all)))
      #expect(!(try AutomergeMerge.verify(short, inputs: inputs)))
    }
  }

  /// A first input that starts with a document chunk is read as `verify` reads a file
  /// (its document's changes by hash): whichever input is the base, whether the first adds
  /// anything to it, and whatever follows the document (changes, an orphan), the answer is
  /// `merge`'s, from `Change` values, and the output reads back as the union.
  @Test func mergeAndVerifyOntoADocumentAgreesWithMerge() throws {
    let (a, b, c, x, _) = try Self.devices()
    let heads = try AutomergeFile.decode(a).heads
    let later = Change(
      actors: [ActorId([0xee, 0x02])], seq: 1, startOp: 2000, time: 8, message: "later",
      deps: heads, ops: [])
    let orphan = Change(
      actors: [ActorId([0xee, 0x03])], seq: 1, startOp: 3000, time: 9, message: "orphan",
      deps: [ChangeHash(w0: 1, w1: 2, w2: 3, w3: 4)], ops: [])
    let followed = a + later.chunk
    let orphaned = a + orphan.chunk
    // The one of a and b with more changes, and the other: each has changes the other lacks.
    let (big, small) = try Self.largerFirst(a, b)
    #expect(try AutomergeMerge.mergeAndVerify([big, small]).result.added.count > 0)
    #expect(try AutomergeMerge.readDocument(a) != nil)
    #expect(try AutomergeMerge.readDocument(c) != nil)
    #expect(try AutomergeMerge.readDocument(later.chunk) == nil)
    for inputs in [
      [a, b], [b, a], [b, c], [c, b], [a, c], [c, a], [x, a, b], [a, x], [followed, b],
      [b, followed], [orphaned, b], [b, orphaned], [a, followed, orphaned], [a, a], [a, []],
      [big, small], [small, big], [big, small, c],
    ] {
      let (result, holds) = try AutomergeMerge.mergeAndVerify(inputs)
      let expected = try AutomergeMerge.merge(inputs)
      #expect(holds)
      #expect(result.bytes == expected.bytes && result.base == expected.base)
      #expect(result.added == expected.added && result.changeCount == expected.changeCount)
      #expect(result.heads == expected.heads)
      #expect(result.missingDependencies == expected.missingDependencies)
      let merged = try AutomergeFile.decode(result.bytes, keepOps: false)
      #expect(result.changeCount == merged.changes.count)
      #expect(try AutomergeMerge.verify(result.bytes, inputs: inputs))
    }
    // The orphan's dependency is missing from the union, and the orphan is a head.
    let withOrphan = try AutomergeMerge.mergeAndVerify([orphaned, b]).result
    #expect(withOrphan.missingDependencies == Array(orphan.deps))
    #expect(withOrphan.heads.contains(orphan.hash))
  }

  /// The read-back of a merge onto a document says no to an output that lacks an added
  /// change, holds one no input has (also in place of an added one), or does not start with
  /// the first input.
  @Test func theReadBackOntoADocumentRefusesWhatIsNotTheUnion() throws {
    let (x, y, _, _, _) = try Self.devices()
    let (a, b) = try Self.largerFirst(x, y)
    let document = try #require(try AutomergeMerge.readDocument(a))
    let others = [try AutomergeFile.decode(b, keepOps: false)]
    let result = try AutomergeMerge.merge([a, b])
    #expect(!result.added.isEmpty && result.base == 0)
    #expect(
      try AutomergeMerge.verify(result.bytes, onto: document, bytes: a, others: others))
    let last = try #require(try AutomergeFile.decode(result.bytes).chunks.last)
    let short = Array(result.bytes[..<last.offset])
    #expect(!(try AutomergeMerge.verify(short, onto: document, bytes: a, others: others)))
    let stray = Change(
      actors: [ActorId([0xee, 0x04])], seq: 1, startOp: 4000, time: 1, message: "stray",
      deps: [], ops: [])
    #expect(
      !(try AutomergeMerge.verify(
        result.bytes + stray.chunk, onto: document, bytes: a, others: others)))
    // As many changes as the union, one of them not an input's.
    #expect(
      !(try AutomergeMerge.verify(
        short + stray.chunk, onto: document, bytes: a, others: others)))
    #expect(
      !(try AutomergeMerge.verify(
        Array(result.bytes.dropFirst()), onto: document, bytes: a, others: others)))
  }

  /// A refused merge onto a document names the same two changes as `merge`: an added change
  /// that reuses a document change's `(actor, seq)`, one that reuses a later change's, and
  /// two added changes that share one.
  @Test func aCollisionOntoADocumentNamesBothChanges() throws {
    let a = try Fixture.bytes(Self.d0)
    let decoded = try AutomergeFile.decode(a)
    let first = decoded.changes[0]
    let twin = Change(
      actors: first.actors, seq: first.seq, startOp: 1, time: 1, message: "twin", deps: [],
      ops: [])
    let later = Change(
      actors: [ActorId([0xee, 0x05])], seq: 1, startOp: 1, time: 2, message: "later", deps: [],
      ops: [])
    let rival = Change(
      actors: later.actors, seq: 1, startOp: 1, time: 3, message: "rival", deps: [], ops: [])
    let followed = a + later.chunk
    for inputs in [[a, twin.chunk], [followed, rival.chunk], [a, later.chunk, rival.chunk]] {
      let expected = Result { try AutomergeMerge.merge(inputs) }
      let checked = Result { try AutomergeMerge.mergeAndVerify(inputs).result }
      guard case .failure(let e) = expected, case .failure(let f) = checked else {
        Issue.record("no collision refused: \(inputs.map(\.count))")
        continue
      }
      let (x, y) = try (#require(e as? AutomergeMergeError), #require(f as? AutomergeMergeError))
      #expect(x == y)
      guard case .duplicateSeq = x else {
        Issue.record("\(x)")
        continue
      }
    }
  }

  /// A base whose author's changes leave a gap in its seqs (1, 3, 4; 2 absent, or an orphan
  /// with a missing dependency) reads back with what fills the gap appended: its changes
  /// are not numbered 1...n, so the read-back does not take seq 4 as the author's last
  /// (it refused seq 2 as a duplicate; found by `make fuzz`, 2026-12-03).
  @Test func aBaseWithAGapInAnAuthorsSeqsReadsBack() throws {
    let a = try Fixture.bytes(Self.d0)
    let heads = try AutomergeFile.decode(a).heads
    let actor = ActorId([0xee, 0x06])
    func change(_ seq: UInt64, deps: [ChangeHash]) -> Change {
      Change(
        actors: [actor], seq: seq, startOp: 5000 + seq, time: Int64(seq), message: "\(seq)",
        deps: deps, ops: [])
    }
    let e1 = change(1, deps: heads)
    let e2 = change(2, deps: [e1.hash])
    let e3 = change(3, deps: [e1.hash])
    let e4 = change(4, deps: [e3.hash])
    let orphan = change(2, deps: [ChangeHash(w0: 9, w1: 9, w2: 9, w3: 9)])
    let gap = a + e1.chunk + e3.chunk + e4.chunk
    let filled = a + e1.chunk + orphan.chunk + e3.chunk + e4.chunk
    let other = a + e1.chunk + e2.chunk
    for inputs in [[gap, other], [other, gap], [filled, filled], [gap, gap], [filled, gap]] {
      let (result, holds) = try AutomergeMerge.mergeAndVerify(inputs)
      #expect(holds)
      #expect(result.bytes == (try AutomergeMerge.merge(inputs)).bytes)
      let merged = try AutomergeFile.decode(result.bytes, keepOps: false)
      var base = try AutomergeFile.decode(inputs[result.base], keepOps: false)
      let again = try AutomergeFile.decode(
        result.bytes, after: &base, prefixLength: inputs[result.base].count)
      #expect(Set(again.changes.map(\.hash)) == Set(merged.changes.map(\.hash)))
      #expect(again.heads == merged.heads && again.orphans == merged.orphans)
    }
    #expect(try AutomergeMerge.merge([gap, other]).bytes == gap + e2.chunk)
  }

  @Test func mergeIsIdempotent() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let once = try AutomergeMerge.merge([a, b]).bytes
    #expect(try AutomergeMerge.merge([once, a, b]).bytes == once)
    #expect(try AutomergeMerge.merge([a, a]).bytes == a)
    #expect(try AutomergeMerge.merge([a]).bytes == a)
  }

  @Test func anEmptyInputAddsNothing() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let result = try AutomergeMerge.merge([[], a, b])
    #expect(result.base != 0)
    #expect(result.bytes == (try AutomergeMerge.merge([a, b])).bytes)
    let merged = try AutomergeFile.decode(result.bytes)
    #expect(ChangeListing.changes(merged.changes) == (try Fixture.text(Self.expected + ".changes")))
    #expect(try AutomergeMerge.merge([[], []]).bytes.isEmpty)
  }

  /// Three devices' files: `a` and `b` (the fixture's two devices, each with changes the
  /// other lacks), `c` = `b` and one more change, `x` the union as one input holds it, and
  /// `y` the same changes in other bytes (every change chunk, in dependency order).
  static func devices() throws -> (a: [UInt8], b: [UInt8], c: [UInt8], x: [UInt8], y: [UInt8]) {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let heads = try AutomergeFile.decode(b).heads
    let extra = Change(
      actors: [ActorId([0xee, 0x01])], seq: 1, startOp: 1000, time: 7, message: "c",
      deps: heads, ops: [])
    let c = b + extra.chunk
    let x = try AutomergeMerge.merge([a, b]).bytes
    var pending = try AutomergeFile.decode(x).changes
    var emitted = Set<ChangeHash>()
    var y: [UInt8] = []
    while !pending.isEmpty {
      let ready = pending.filter { $0.deps.allSatisfy(emitted.contains) }
      for change in ready.sorted(by: { $0.hash > $1.hash }) {
        y += change.chunk
        emitted.insert(change.hash)
      }
      pending.removeAll { emitted.contains($0.hash) }
    }
    return (a, b, c, x, y)
  }

  /// Convergence (mn.md §6 "Merged output"): the same inputs, in any order (as different
  /// devices see them: a different file canonical, the others copies), give the same bytes.
  @Test func everyOrderOfTheSameInputsGivesTheSameBytes() throws {
    let (a, b, c, x, y) = try Self.devices()
    #expect(x != y)
    #expect(
      Set(try AutomergeFile.decode(y).changes.map(\.hash))
        == Set(try AutomergeFile.decode(x).changes.map(\.hash)))
    for set in [[a, b], [a, c], [a, b, c], [x, y], [x, y, a], [a, x], [b, c, y], [a, a, b]] {
      let outputs = try permutations(set).map { try AutomergeMerge.merge($0).bytes }
      #expect(Set(outputs).count == 1, "\(set.map(\.count))")
      let checked = try permutations(set).map { try AutomergeMerge.mergeAndVerify($0) }
      #expect(checked.allSatisfy { $0.holdsEveryChange && $0.result.bytes == outputs[0] })
    }
  }

  /// One input holds every change: the output is that input unchanged, the one whose bytes
  /// have the smallest SHA-256 among several; with none, the one holding the most changes
  /// is the base, and what the others add is appended.
  @Test func theBaseIsChosenByChangesThenByHash() throws {
    let (a, b, c, x, y) = try Self.devices()
    let smaller = SHA256.hash(x) < SHA256.hash(y) ? x : y
    for inputs in [[x, y], [y, x], [y, x, a, b]] {
      let result = try AutomergeMerge.merge(inputs)
      #expect(result.bytes == smaller)
      #expect(result.added.isEmpty)
      #expect(inputs[result.base] == smaller)
    }
    for inputs in [[b, c], [c, b]] {
      #expect(try AutomergeMerge.merge(inputs).bytes == c)
    }
    // Neither a nor c holds everything: the one with more changes is the base.
    let (inA, inC) = try (
      AutomergeFile.decode(a).changes.count, AutomergeFile.decode(c).changes.count
    )
    let result = try AutomergeMerge.merge([a, c])
    #expect(!result.added.isEmpty)
    if inA != inC { #expect(result.bytes.starts(with: inA > inC ? a : c)) }
  }

  /// The two files, the one with more changes first.
  static func largerFirst(_ x: [UInt8], _ y: [UInt8]) throws -> ([UInt8], [UInt8]) {
    let (inX, inY) = try (
      AutomergeFile.decode(x).changes.count, AutomergeFile.decode(y).changes.count
    )
    #expect(inX != inY)
    return inX > inY ? (x, y) : (y, x)
  }

  func permutations(_ items: [[UInt8]]) -> [[[UInt8]]] {
    guard items.count > 1 else { return [items] }
    var out: [[[UInt8]]] = []
    for i in items.indices {
      var rest = items
      let first = rest.remove(at: i)
      out += permutations(rest).map { [first] + $0 }
    }
    return out
  }

  @Test func duplicateSeqIsRefused() throws {
    let a = try AutomergeFile.decode(Fixture.bytes(Self.d0))
    let c1 = a.changes[0]
    let twin = Change(
      actors: c1.actors, seq: 1, startOp: 1, time: 1, message: "twin", deps: [], ops: [])
    #expect(throws: AutomergeMergeError.self) {
      try AutomergeMerge.merge([Fixture.bytes(Self.d0), twin.chunk])
    }
  }

  @Test func invalidInputIsNamed() throws {
    #expect(throws: AutomergeMergeError.self) {
      try AutomergeMerge.merge([Fixture.bytes(Self.d0), [0x85, 0x6f]])
    }
    // `mergeAndVerify` reads the largest input first, and names an input by its place in
    // the caller's order.
    let a = try Fixture.bytes(Self.d0)
    let large = [0x85, 0x6f] + [UInt8](repeating: 0, count: a.count)
    for (inputs, invalid) in [([a, large], 1), ([large, a], 0), ([a, a, large], 2)] {
      do {
        _ = try AutomergeMerge.mergeAndVerify(inputs)
        Issue.record("no error")
      } catch AutomergeMergeError.invalidInput(let index, _) {
        #expect(index == invalid)
      }
    }
  }
}
