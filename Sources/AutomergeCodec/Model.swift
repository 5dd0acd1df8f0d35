/// The value types of the Automerge model that every layer of the codec shares.
///
/// These are the decoded form of a change (automerge-format.md §1, §6, §8). The parse layer
/// produces them, the materializer and the merger consume them. Actor references inside a
/// change are indices into `Change.actors` (index 0 is the author), exactly as in a change
/// chunk (§6.4); the materializer maps them to document-wide actors itself.

/// An actor id: an arbitrary byte string, normally 16 random bytes (§2.3).
///
/// Ordered by bytes, a proper prefix first, as Automerge orders actors.
public struct ActorId: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The raw bytes of the actor id.
  public var bytes: [UInt8]

  /// Creates an actor id from its raw bytes.
  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  public static func < (a: ActorId, b: ActorId) -> Bool {
    a.bytes.lexicographicallyPrecedes(b.bytes)
  }

  /// The actor id as lowercase hex.
  public var description: String { Hex.encode(bytes) }
}

/// A change hash: the SHA-256 of the canonical change chunk (§3, §6).
///
/// Stored as four big-endian words so that comparison is byte order and hashing is cheap.
public struct ChangeHash: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var w0: UInt64
  public var w1: UInt64
  public var w2: UInt64
  public var w3: UInt64

  /// Creates a hash from its four big-endian words.
  public init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
    (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
  }

  /// Creates a hash from exactly 32 bytes starting at `offset` of `bytes`.
  ///
  /// - Precondition: `bytes` holds at least `offset + 32` bytes (a programmer error otherwise).
  public init(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int = 0) {
    func word(_ k: Int) -> UInt64 {
      var v: UInt64 = 0
      let start = bytes.index(bytes.startIndex, offsetBy: offset + 8 * k)
      var i = start
      for _ in 0..<8 {
        v = (v << 8) | UInt64(bytes[i])
        i = bytes.index(after: i)
      }
      return v
    }
    w0 = word(0)
    w1 = word(1)
    w2 = word(2)
    w3 = word(3)
  }

  /// The 32 raw bytes of the hash.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(32)
    for w in [w0, w1, w2, w3] {
      for shift in stride(from: 56, through: 0, by: -8) {
        out.append(UInt8(truncatingIfNeeded: w >> UInt64(shift)))
      }
    }
    return out
  }

  public static func < (a: ChangeHash, b: ChangeHash) -> Bool {
    (a.w0, a.w1, a.w2, a.w3) < (b.w0, b.w1, b.w2, b.w3)
  }

  /// Hashes two of the four words: they are SHA-256 output, so 128 bits are plenty, and
  /// dictionaries of hundreds of thousands of changes hash half as much.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(w0)
    hasher.combine(w1)
  }

  /// The hash as 64 lowercase hex characters.
  public var description: String { Hex.encode(bytes) }
}

/// The hashes of the changes a change depends on, in the order given (sorted by bytes in a
/// `Change`), held inline when there is at most one: nearly every change of a document has
/// one, and decoding hundreds of thousands of changes then allocates nothing for their deps.
public struct ChangeDeps: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
  /// The hash when there is exactly one; zero otherwise.
  private var only: ChangeHash
  /// Every hash when there are two or more; empty otherwise.
  private var many: [ChangeHash]
  public let count: Int

  /// The hashes of `hashes`, in their order.
  public init(_ hashes: [ChangeHash]) {
    count = hashes.count
    only = count == 1 ? hashes[0] : ChangeHash(w0: 0, w1: 0, w2: 0, w3: 0)
    many = count > 1 ? hashes : []
  }

  public init(arrayLiteral hashes: ChangeHash...) { self.init(hashes) }

  /// The one hash `hash`, without an array in between (a literal's array is allocated
  /// wherever the optimizer does not remove it: once per change of a document's rebuild).
  init(one hash: ChangeHash) {
    count = 1
    only = hash
    many = []
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { count }

  public subscript(i: Int) -> ChangeHash {
    precondition(i >= 0 && i < count, "ChangeDeps index out of range")
    return count == 1 ? only : many[i]
  }
}

/// An operation id `(counter, actor)` inside one change: `actor` indexes `Change.actors`.
public struct OpId: Hashable, Sendable {
  /// The Lamport counter; Automerge limits counters to 32 bits (§2.4).
  public var counter: UInt32
  /// Index into the actor table of the change that holds this id.
  public var actor: UInt32

  /// Creates an op id.
  public init(counter: UInt32, actor: UInt32) {
    self.counter = counter
    self.actor = actor
  }
}

/// The object an op targets (§8.2).
public enum ObjectRef: Hashable, Sendable {
  /// The root map.
  case root
  /// The object created by the make op with this id.
  case object(OpId)
}

/// The key of an op: a map key or a list element (§8.2).
public enum Key: Hashable, Sendable {
  /// A string key of a map (may be empty).
  case map(String)
  /// The start of a sequence (`_head`).
  case head
  /// The element created by the insert op with this id.
  case element(OpId)
}

/// Operation action codes (§8.1).
public enum Action: UInt8, Sendable {
  case makeMap = 0
  case set = 1
  case makeList = 2
  case delete = 3
  case makeText = 4
  case increment = 5
  case makeTable = 6
  case mark = 7
}

/// A scalar value with its Automerge type (§5.9, §8.5).
public enum ScalarValue: Sendable {
  case null
  case bool(Bool)
  case uint(UInt64)
  case int(Int64)
  /// An IEEE 754 double; equality compares bit patterns so that NaN and -0.0 round-trip.
  case f64(Double)
  case string(String)
  case bytes([UInt8])
  /// A counter's initial value.
  case counter(Int64)
  /// Milliseconds since the Unix epoch.
  case timestamp(Int64)
  /// A value type code 10 to 15, carried through unchanged.
  case unknown(code: UInt8, bytes: [UInt8])
}

extension ScalarValue: Equatable {
  public static func == (a: ScalarValue, b: ScalarValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.uint(let x), .uint(let y)): return x == y
    case (.int(let x), .int(let y)): return x == y
    case (.f64(let x), .f64(let y)): return x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.bytes(let x), .bytes(let y)): return x == y
    case (.counter(let x), .counter(let y)): return x == y
    case (.timestamp(let x), .timestamp(let y)): return x == y
    case (.unknown(let c1, let x), .unknown(let c2, let y)): return c1 == c2 && x == y
    default: return false
    }
  }
}

/// One operation of a change, with actor references local to the change (§6.2, §6.3).
///
/// The stored properties are declared in the order that packs them tightest (80 bytes a
/// value instead of 96: the materializer holds millions of ops).
public struct Op: Equatable, Sendable {
  public var key: Key
  public var insert: Bool
  public var action: Action
  /// Marks only: whether the mark expands at this boundary.
  public var expand: Bool
  public var object: ObjectRef
  /// The value: the set value, the inc delta (an int), the mark value, or null.
  public var value: ScalarValue
  /// The ops this one supersedes, sorted in Lamport order (counter, then actor bytes).
  public var pred: [OpId]
  /// Mark begin ops only: the mark's name.
  public var markName: String?
}

extension Op {
  /// Creates an op.
  ///
  /// It hands its arguments to the memberwise initialiser, which is why it is declared in
  /// an extension (one in the struct would take that initialiser's place): an initialiser
  /// that sets each property itself builds the op, copies it out and destroys the first
  /// (every reference retained and released once more), an op decoded at a time.
  public init(
    object: ObjectRef, key: Key, insert: Bool, action: Action, value: ScalarValue = .null,
    pred: [OpId] = [], expand: Bool = false, markName: String? = nil
  ) {
    self.init(
      key: key, insert: insert, action: action, expand: expand, object: object, value: value,
      pred: pred, markName: markName)
  }
}

/// A decoded change (§6): its metadata, its ops and its canonical bytes.
public struct Change: Sendable {
  /// The change hash: SHA-256 of the canonical uncompressed change chunk.
  public var hash: ChangeHash
  /// `[author] + otherActors`: the table that the ops' actor indices refer to (§6.4).
  public var actors: [ActorId]
  public var seq: UInt64
  /// The counter of the first op (≥ 1).
  public var startOp: UInt64
  /// Advisory time, in whatever unit the writer used (§6.1); round-tripped exactly.
  public var time: Int64
  /// The message; nil when absent or empty (§13, pitfall 14).
  public var message: String?
  /// The hashes of the changes this one depends on, sorted by bytes.
  public var deps: ChangeDeps
  /// The ops, in counter order: op i has id `(startOp + i, actor 0)`.
  public var ops: [Op]
  /// Extra bytes after the op columns, kept verbatim.
  public var extra: [UInt8]
  /// The canonical type-1 change chunk, magic to end, whose SHA-256 body hash is `hash`
  /// (empty when the file was decoded with `keepChunks: false`).
  public var chunk: [UInt8]

  /// The author of the change.
  public var author: ActorId { actors[0] }

  /// The counter of the change's last op (`startOp + ops.count - 1`).
  public var maxOp: UInt64 { startOp + UInt64(ops.count) - 1 }
}

/// Lowercase hexadecimal encoding, used for actors, hashes and `$bytes`.
public enum Hex {
  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Encodes bytes as lowercase hex.
  public static func encode(_ bytes: some Sequence<UInt8>) -> String {
    var out: [UInt8] = []
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes hex (either case); nil when the text is not an even number of hex digits.
  public static func decode(_ text: String) -> [UInt8]? {
    let chars = Array(text.utf8)
    guard chars.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
      switch c {
      case 0x30...0x39: return c - 0x30
      case 0x61...0x66: return c - 0x61 + 10
      case 0x41...0x46: return c - 0x41 + 10
      default: return nil
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(chars.count / 2)
    var i = 0
    while i < chars.count {
      guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
      i += 2
    }
    return out
  }
}
