import Testing

@testable import AutomergeCodec

/// `ChangeIndex`: positions by hash, duplicates kept out, growth, renumbering.
@Suite struct ChangeIndexTests {
  /// `count` distinct changes with one author, seq 1...count (hashes differ by seq).
  static func changes(_ count: Int) -> [Change] {
    (0..<count).map {
      Change(
        actors: [ActorId([0xaa])], seq: UInt64($0 + 1), startOp: 1, time: 0, message: nil,
        deps: [], ops: [])
    }
  }

  @Test func findsEveryInsertedChangeAcrossGrowth() {
    let list = ChangeIndexTests.changes(1000)
    var index = ChangeIndex()  // starts small: grows several times
    for i in list.indices { #expect(index.insert(i, of: list) == nil) }
    #expect(index.count == 1000)
    for (i, c) in list.enumerated() { #expect(index.position(of: c.hash, in: list) == i) }
  }

  @Test func refusesADuplicateAndKeepsTheFirstPosition() {
    var list = ChangeIndexTests.changes(3)
    list.append(list[1])  // position 3 repeats position 1's hash
    var index = ChangeIndex(capacity: 4)
    for i in 0..<3 { index.insert(i, of: list) }
    #expect(index.insert(3, of: list) == 1)
    #expect(index.count == 3)
    #expect(index.position(of: list[1].hash, in: list) == 1)
  }

  @Test func answersNilForAnAbsentHash() {
    let list = ChangeIndexTests.changes(10)
    var index = ChangeIndex(capacity: 10)
    for i in 0..<5 { index.insert(i, of: list) }
    for c in list[5...] { #expect(index.position(of: c.hash, in: list) == nil) }
    // Hashes that share the slot word but differ elsewhere are told apart.
    var twin = list[0].hash
    twin.w3 ^= 1
    #expect(index.position(of: twin, in: list) == nil)
  }

  @Test func renumbersAfterAPermutation() {
    let list = ChangeIndexTests.changes(50)
    var index = ChangeIndex(capacity: 50)
    for i in list.indices { index.insert(i, of: list) }
    let reversed = Array(list.reversed())
    index.renumber { 49 - $0 }
    for (i, c) in reversed.enumerated() { #expect(index.position(of: c.hash, in: reversed) == i) }
  }

  @Test func fileLookupsGoThroughIt() throws {
    let list = ChangeIndexTests.changes(3)
    var bytes: [UInt8] = []
    for c in list { bytes += c.chunk }
    let file = try AutomergeFile.decode(bytes)
    for c in list {
      #expect(file.contains(c.hash))
      #expect(file.position(of: c.hash).map { file.changes[$0].hash } == c.hash)
    }
    var other = list[0].hash
    other.w0 ^= 1
    #expect(!file.contains(other))
    #expect(file.change(other) == nil)
  }
}

/// `ChangeHashSet`: a set of hashes over a list, as a merge holds its base's.
@Suite struct ChangeHashSetTests {
  static let hashes = ChangeIndexTests.changes(1000).map(\.hash)

  @Test func holdsWhatItIsGivenAndWhatIsAdded() {
    let given = Array(Self.hashes.prefix(600))
    var set = ChangeHashSet(given)
    for h in Self.hashes { #expect(set.contains(h) == given.contains(h)) }
    for h in Self.hashes[500...] { set.insert(h) }  // 100 held already, 400 new: it grows
    for h in Self.hashes { #expect(set.contains(h)) }
    #expect(Array(set) == Self.hashes)
    var other = Self.hashes[0]
    other.w3 ^= 1
    #expect(!set.contains(other))
  }

  @Test func aHashGivenTwiceIsHeld() {
    let h = Self.hashes
    let set = ChangeHashSet([h[0], h[1], h[0]])
    #expect(set.contains(h[0]) && set.contains(h[1]) && !set.contains(h[2]))
    #expect(Array(set) == [h[0], h[1], h[0]])
  }
}

/// `ChangeDeps`: none, one and many hashes read back in their order.
@Suite struct ChangeDepsTests {
  static let hashes = (0..<3).map { ChangeHash(w0: UInt64($0), w1: 7, w2: 0, w3: 1) }

  @Test(arguments: [0, 1, 2, 3])
  func readsBackWhatItHolds(count: Int) {
    let given = Array(ChangeDepsTests.hashes.prefix(count).reversed())
    let deps = ChangeDeps(given)
    #expect(deps.count == count)
    #expect(Array(deps) == given)
    #expect(deps.isEmpty == (count == 0))
  }

  @Test func equalWhenTheirHashesAreEqual() {
    let h = ChangeDepsTests.hashes
    #expect(ChangeDeps([h[0]]) == [h[0]])
    #expect(ChangeDeps([h[0], h[1]]) != [h[1], h[0]])
    #expect(ChangeDeps([]) == [])
  }
}
