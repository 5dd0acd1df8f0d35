/// A map from packed op ids (`counter << 32 | actor`, as `DocumentEncoder`'s `OpTable` packs
/// them) to `Int32`: a hash table with open addressing (linear probing, at most half full)
/// of a size fixed when it is made.
///
/// `doc save` looks up an op id for every pred, every sequence element and every insert's
/// parent; a `Dictionary` runs SipHash over each key, which cost more than the rest of the
/// lookup on a text of 260,000 characters. Here a slot is the top bits of one multiply of
/// the key mixed with a salt drawn once per process (as `ChangeIndex` does), so that a file
/// crafted to crowd one slot would have to guess it.
struct OpIdTable {
  private var keys: [UInt64] = []
  private var values: [Int32] = []
  /// The slots in use are the first `mask + 1` (a power of two): a table reset for fewer
  /// keys keeps its storage and uses the start of it.
  private var mask = 0
  /// `64 - log2(mask + 1)`.
  private var shift: UInt64 = 0

  /// No packed op id is this: its actor index would be 2^32 - 1, more actors than any
  /// input can name.
  private static let empty = UInt64.max
  private static let processSalt = UInt64.random(in: UInt64.min...UInt64.max)
  /// The process's salt, copied into each table: a lazily made global is behind a
  /// `swift_once` call at every read, which showed in `doc save`'s per-object tables.
  private let salt = OpIdTable.processSalt

  /// An empty table with room for `capacity` keys (more is a programming error).
  init(capacity: Int) {
    reset(capacity: capacity)
  }

  /// Empties the table, with room for `capacity` keys; its storage is reused when it is
  /// large enough, so that only the slots used are cleared.
  mutating func reset(capacity: Int) {
    var n = 16
    while n < 2 * capacity { n *= 2 }
    if keys.count < n {
      keys = [UInt64](repeating: OpIdTable.empty, count: n)
      values = [Int32](repeating: 0, count: n)
    } else {
      for i in 0..<n { keys[i] = OpIdTable.empty }
    }
    mask = n - 1
    shift = UInt64(64 - n.trailingZeroBitCount)
  }

  @inline(__always) private func slot(of key: UInt64) -> Int {
    // The counter is the high half: folded into the low half first, so that the multiply
    // spreads consecutive counters over the whole table.
    var x = key ^ salt
    x ^= x >> 32
    return Int(truncatingIfNeeded: (x &* 0x9e37_79b9_7f4a_7c15) >> shift)
  }

  /// The value of `key`, or nil.
  subscript(key: UInt64) -> Int32? {
    var i = slot(of: key)
    while true {
      let k = keys[i]
      if k == key { return values[i] }
      if k == OpIdTable.empty { return nil }
      i = (i + 1) & mask
    }
  }

  /// Sets the value of `key` (replacing the one it had).
  mutating func set(_ key: UInt64, _ value: Int32) {
    var i = slot(of: key)
    while keys[i] != key && keys[i] != OpIdTable.empty { i = (i + 1) & mask }
    keys[i] = key
    values[i] = value
  }
}
