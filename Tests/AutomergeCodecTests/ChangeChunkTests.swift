import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct ChangeChunkTests {
  static let twoChanges = hex(
    """
    856f4a839ac3d73001390010da0a5454424349848500a5ebe1acd94d0101c1bec483e130086368616e676520
    310005150334014202560270027f0161017f007f007f00856f4a83a7e727d50164019ac3d730f262da35e71d
    b591b9e8150de9b02826daf75006f2298916adec6e0b10da0a5454424349848500a5ebe1acd94d0202c1bec4
    83e130086368616e676520320008010202021503340142025602570170027f007f017f0161017f017f16627f
    00
    """)

  static let compressed = hex(
    """
    856f4a839ac3d730023e6210b8c51512e2e4ecd9d2cab0f4f5c335377d19190fee3bd2fcd080233923312f3d
    55c190815594d984d189298ca980a99e3191b19e010401010000ffff856f4a83a7e727d5026e0064009bff01
    9ac3d730f262da35e71db591b9e8150de9b02826daf75006f2298916adec6e0b10da0a5454424349848500a5
    ebe1acd94d0202c1bec483e130086368616e676520320008010202021503340142025602570170027f007f01
    7f0161017f017f16627f00010000ffff
    """)

  static let h1 = "9ac3d730f262da35e71db591b9e8150de9b02826daf75006f2298916adec6e0b"
  static let h2 = "a7e727d50d6fdc1419e018cdce333683f48b609bf30f5b4b3a613ba35d6b1dc9"

  /// §6.7: both changes decode to the documented fields and re-encode byte for byte.
  /// A change encoded up to its deps (`finishAfterDeps`), then finished with them
  /// (`finish(deps:rest:)`), has the chunk and the hash `finish` gives it: with no dep, one
  /// or three, a message or none, other actors, extra bytes.
  @Test(arguments: [0, 1, 3])
  func aChangeHashedAfterItsDepsHasItsChunksHash(depCount: Int) throws {
    let (a, b) = (ActorId([0xaa, 0x01]), ActorId([0xbb]))
    let deps = (0..<depCount).map { SHA256.hash([UInt8(truncatingIfNeeded: $0)]) }.sorted()
    let ops = [
      Op(object: .root, key: .map("k"), insert: false, action: .set, value: .string("v")),
      Op(
        object: .object(OpId(counter: 3, actor: 1)), key: .head, insert: true, action: .set,
        value: .int(-7), pred: [OpId(counter: 2, actor: 1)]),
    ]
    for (message, extra) in [(String?.none, [UInt8]()), ("a message", [1, 2, 3])] {
      let change = Change(
        actors: [a, b], seq: 4, startOp: 9, time: 1_700_000_000_123, message: message,
        deps: deps, ops: ops, extra: extra)
      var encoder = ChangeEncoder()
      var rest: [UInt8] = [0xee]  // what another change left before it
      for op in ops { encoder.append(op) }
      encoder.finishAfterDeps(
        actors: change.actors, seq: 4, startOp: 9, time: change.time, message: message,
        extra: extra, into: &rest)
      let hash = rest.withUnsafeBufferPointer {
        encoder.finish(deps: change.deps, rest: UnsafeBufferPointer(rebasing: $0[1...]))
      }
      #expect(hash == change.hash)
      #expect(encoder.lastChunk == change.chunk)
    }
  }

  @Test func workedExample() throws {
    let file = try AutomergeFile.decode(Self.twoChanges)
    #expect(file.changes.count == 2)
    let c1 = file.changes[0]
    let c2 = file.changes[1]
    #expect(c1.hash.description == Self.h1)
    #expect(c2.hash.description == Self.h2)
    #expect(c1.chunk == Array(Self.twoChanges[0..<67]))
    #expect(
      c1.seq == 1 && c1.startOp == 1 && c1.time == 1_675_313_094_465 && c1.message == "change 1")
    #expect(c1.ops == [Op(object: .root, key: .map("a"), insert: false, action: .makeMap)])
    #expect(c2.deps.map(\.description) == [Self.h1])
    #expect(
      c2.ops == [
        Op(
          object: .object(OpId(counter: 1, actor: 0)), key: .map("a"), insert: false, action: .set,
          value: .string("b"))
      ])
    for c in file.changes {
      let (chunk, hash) = c.encoded()
      #expect(chunk == c.chunk)
      #expect(hash == c.hash)
    }
    #expect(file.heads.map(\.description) == [Self.h2])
    // Building the change from its fields gives the same bytes.
    let rebuilt = Change(
      actors: c2.actors, seq: 2, startOp: 2, time: c2.time, message: "change 2",
      deps: Array(c2.deps),
      ops: c2.ops)
    #expect(rebuilt.chunk == c2.chunk)
  }

  /// §12.3: type-2 chunks checksum and hash their inflated form.
  @Test func compressedChunks() throws {
    let file = try AutomergeFile.decode(Self.compressed)
    #expect(file.changes.map(\.hash.description) == [Self.h1, Self.h2])
    #expect(file.chunks.map(\.type) == [.compressedChange, .compressedChange])
    #expect(file.chunks[1].inflatedLength == 100)
    let plain = try AutomergeFile.decode(Self.twoChanges)
    #expect(file.changes.map(\.chunk) == plain.changes.map(\.chunk))
  }

  /// The chunk order does not matter (`two_change_chunks_out_of_order`).
  @Test func outOfOrder() throws {
    let swapped = Array(Self.twoChanges[67...]) + Array(Self.twoChanges[0..<67])
    let file = try AutomergeFile.decode(swapped)
    #expect(file.changes.map(\.hash.description) == [Self.h1, Self.h2])
    #expect(file.heads.map(\.description) == [Self.h2])
  }

  /// §12.5 counter payloads.
  @Test func counterPayloads() throws {
    let ok = try Fixture.bytes("valid/upstream/counter_value_is_ok.automerge")
    let file = try AutomergeFile.decode(ok)
    #expect(file.changes[0].ops[0].value == .counter(2000))
    for bad in [
      "counter_value_is_overlong.automerge", "counter_value_has_incorrect_meta.automerge",
    ] {
      #expect(throws: AutomergeDecodeError.self) {
        try AutomergeFile.decode(Fixture.bytes("malformed/" + bad))
      }
    }
  }

  @Test func checksumMismatch() {
    var bytes = Self.twoChanges
    bytes[4] ^= 1
    #expect(
      throws: AutomergeDecodeError.checksumMismatch(
        offset: 0, stored: 0x9bc3_d730, computed: 0x9ac3_d730)
    ) {
      try AutomergeFile.decode(bytes)
    }
  }

  @Test func firstChangeWithMissingDepsIsRejected() throws {
    let second = Array(Self.twoChanges[67...])
    #expect(throws: AutomergeDecodeError.self) { try AutomergeFile.decode(second) }
  }

  @Test func rejectedChunkShapes() {
    var type3 = Array(Self.twoChanges[0..<67])
    type3[8] = 3
    var badMagic = Self.twoChanges
    badMagic[0] = 0x84
    let cases: [[UInt8]] = [
      type3, badMagic, Self.twoChanges + [0x85], Array(Self.twoChanges[0..<60]),
      Self.twoChanges + [0, 0, 0, 0],
    ]
    for c in cases { #expect(throws: AutomergeDecodeError.self) { try AutomergeFile.decode(c) } }
  }

  @Test func duplicateSeqIsRejected() throws {
    let file = try AutomergeFile.decode(Self.twoChanges)
    let c1 = file.changes[0]
    let other = Change(
      actors: c1.actors, seq: 1, startOp: 1, time: 0, message: "another first change", deps: [],
      ops: c1.ops)
    #expect(throws: AutomergeDecodeError.duplicateSeq(actor: c1.actors[0], seq: 1)) {
      try AutomergeFile.decode(c1.chunk + other.chunk)
    }
  }

  @Test func emptyInputs() throws {
    let empty = try AutomergeFile.decode([])
    #expect(empty.changes.isEmpty && empty.chunks.isEmpty)
    // §12.1: the empty document.
    let doc = try AutomergeFile.decode(hex("85 6f 4a 83 b8 1a 95 44 00 04 00 00 00 00"))
    #expect(doc.changes.isEmpty && doc.heads.isEmpty && doc.chunks.count == 1)
  }
}
