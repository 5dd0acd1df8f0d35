/// Where each change of a list sits, by hash: a hash table with open addressing (linear
/// probing, at most three quarters full) that holds positions in the list, not hashes.
///
/// A change hash is SHA-256 output, so its words are already uniform: the slot is taken from
/// the second word, mixed with a salt drawn once per process, instead of running a `Hasher`
/// (SipHash) over it, which cost more than the rest of an insertion when a document of
/// 260,000 changes is loaded. A slot is 8 bytes (a position and 32 bits of the hash, which
/// spare most comparisons with the list); the hashes stay in the list. The salt means that a
/// file crafted to crowd one slot would have to guess it, on top of grinding SHA-256.
struct ChangeIndex: Sendable {
  private struct Slot {
    /// The third word's low half: compared before the whole hash is.
    var tag: UInt32
    /// The position in the list; `empty` for a free slot.
    var position: Int32
  }

  private var slots: [Slot]
  /// `64 - log2(slots.count)`: a slot is the top bits of the mixed word.
  private var shift: UInt64
  /// The number of positions held.
  private(set) var count = 0

  private static let empty: Int32 = -1
  private static let processSalt = UInt64.random(in: UInt64.min...UInt64.max)
  /// The process's salt, copied in (reading the lazily made global costs a `swift_once`).
  private let salt = ChangeIndex.processSalt

  /// An empty index with room for `capacity` changes before it grows.
  init(capacity: Int = 0) {
    var n = 8
    while 3 * n < 4 * capacity { n *= 2 }
    slots = [Slot](repeating: Slot(tag: 0, position: ChangeIndex.empty), count: n)
    shift = UInt64(64 - n.trailingZeroBitCount)
  }

  /// The position of the change with `hash` in `changes` (the list the index was built over);
  /// nil when it holds none.
  @inline(__always) func position(of hash: ChangeHash, in changes: [Change]) -> Int? {
    position(of: hash) { changes[$0].hash }
  }

  /// The position of `hash` in `hashes` (the list the index was built over); nil when it
  /// holds none.
  @inline(__always) func position(of hash: ChangeHash, in hashes: [ChangeHash]) -> Int? {
    position(of: hash) { hashes[$0] }
  }

  @inline(__always) private func position(of hash: ChangeHash, hashAt: (Int) -> ChangeHash)
    -> Int?
  {
    let p = slots[slot(of: hash, hashAt: hashAt)].position
    return p == ChangeIndex.empty ? nil : Int(p)
  }

  /// Adds `changes[position]` unless a change with its hash is held already.
  ///
  /// - Returns: nil when it was added; the position of the one held otherwise (unchanged).
  @discardableResult
  mutating func insert(_ position: Int, of changes: [Change]) -> Int? {
    insert(position) { changes[$0].hash }
  }

  /// Adds `hashes[position]` unless it is held already.
  ///
  /// - Returns: nil when it was added; the position of the one held otherwise (unchanged).
  @discardableResult
  mutating func insert(_ position: Int, of hashes: [ChangeHash]) -> Int? {
    insert(position) { hashes[$0] }
  }

  private mutating func insert(_ position: Int, hashAt: (Int) -> ChangeHash) -> Int? {
    // Not reachable from a file: positions index a list in memory, and 2^31 changes would
    // take over 300 GB as `Change` values, 64 GB as hashes.
    precondition(position >= 0 && position < Int(Int32.max), "change position out of range")
    let hash = hashAt(position)
    let s = slot(of: hash, hashAt: hashAt)
    if slots[s].position != ChangeIndex.empty { return Int(slots[s].position) }
    slots[s] = Slot(tag: ChangeIndex.tag(hash), position: Int32(position))
    count += 1
    if 4 * count > 3 * slots.count { grow(hashAt) }
    return nil
  }

  /// Replaces every position `p` with `transform(p)` (the list was permuted by it).
  mutating func renumber(_ transform: (Int) -> Int) {
    for s in slots.indices where slots[s].position != ChangeIndex.empty {
      slots[s].position = Int32(transform(Int(slots[s].position)))
    }
  }

  @inline(__always) private static func tag(_ hash: ChangeHash) -> UInt32 {
    UInt32(truncatingIfNeeded: hash.w2)
  }

  /// The slot that holds `hash`, or the free slot where it would go.
  @inline(__always) private func slot(of hash: ChangeHash, hashAt: (Int) -> ChangeHash) -> Int {
    let mask = slots.count - 1
    let tag = ChangeIndex.tag(hash)
    var s = Int(
      truncatingIfNeeded: ((hash.w1 ^ salt) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    while true {
      let slot = slots[s]
      if slot.position == ChangeIndex.empty { return s }
      if slot.tag == tag && hashAt(Int(slot.position)) == hash { return s }
      s = (s + 1) & mask
    }
  }

  private mutating func grow(_ hashAt: (Int) -> ChangeHash) {
    var bigger = ChangeIndex(capacity: slots.count)
    for slot in slots where slot.position != ChangeIndex.empty {
      // The hashes were distinct here: none is held already.
      _ = bigger.insert(Int(slot.position), hashAt: hashAt)
    }
    self = bigger
  }
}

/// A set of change hashes: the hashes in a list, found through a `ChangeIndex` over it
/// (8 bytes a slot, no `Hasher`; a `Set` of a document's 262,961 hashes took 7% of a
/// merge onto it).
struct ChangeHashSet: Sequence, Sendable {
  /// The hashes, in the order they were given; one given twice is there twice (the index
  /// holds its first place, which is all `contains` needs).
  private var hashes: [ChangeHash]
  private var index: ChangeIndex

  /// The set of `hashes`.
  init(_ hashes: [ChangeHash]) {
    self.hashes = hashes
    index = ChangeIndex(capacity: hashes.count)
    for p in hashes.indices { index.insert(p, of: hashes) }
  }

  func contains(_ hash: ChangeHash) -> Bool { index.position(of: hash, in: hashes) != nil }

  /// Adds `hash` unless it is held already.
  mutating func insert(_ hash: ChangeHash) {
    guard !contains(hash) else { return }
    hashes.append(hash)
    index.insert(hashes.count - 1, of: hashes)
  }

  func makeIterator() -> IndexingIterator<[ChangeHash]> { hashes.makeIterator() }
}
