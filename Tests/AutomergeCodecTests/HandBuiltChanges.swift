@testable import AutomergeCodec
@testable import TestSupport

/// An op id with its actor spelled out, for writing test changes by hand.
struct TID: Hashable {
  var counter: UInt32
  var actor: ActorId
  init(_ counter: UInt32, _ actor: ActorId) {
    self.counter = counter
    self.actor = actor
  }
}

/// Test actors whose byte order is not their alphabetical "name" order in the tests.
enum Actors {
  static let a = ActorId([0xaa])
  static let b = ActorId([0xbb])
  static let c = ActorId([0x0c])
  /// A proper prefix of `a2`, so it sorts first.
  static let a1 = ActorId([0x01])
  static let a2 = ActorId([0x01, 0x00])
}

/// A hand-written op: the same fields as `Op`, with document-wide ids.
struct TOp {
  enum Obj { case root, id(TID) }
  enum K { case map(String), head, elem(TID) }
  var obj: Obj
  var key: K
  var insert = false
  var action: Action
  var value: ScalarValue = .null
  var pred: [TID] = []
  var expand = false
  var markName: String? = nil

  static func put(_ key: String, _ value: ScalarValue, in obj: Obj = .root, pred: [TID] = []) -> TOp
  {
    TOp(obj: obj, key: .map(key), action: .set, value: value, pred: pred)
  }
  static func make(_ action: Action, _ key: String, in obj: Obj = .root, pred: [TID] = []) -> TOp {
    TOp(obj: obj, key: .map(key), action: action, pred: pred)
  }
  static func del(_ key: String, in obj: Obj = .root, pred: [TID]) -> TOp {
    TOp(obj: obj, key: .map(key), action: .delete, pred: pred)
  }
  static func inc(_ key: String, _ by: Int64, in obj: Obj = .root, pred: [TID]) -> TOp {
    TOp(obj: obj, key: .map(key), action: .increment, value: .int(by), pred: pred)
  }
  static func insert(_ obj: Obj, after: K, _ value: ScalarValue) -> TOp {
    TOp(obj: obj, key: after, insert: true, action: .set, value: value)
  }
  static func insertMake(_ obj: Obj, after: K, _ action: Action) -> TOp {
    TOp(obj: obj, key: after, insert: true, action: action)
  }
  static func setElement(_ obj: Obj, _ elem: TID, _ value: ScalarValue, pred: [TID]) -> TOp {
    TOp(obj: obj, key: .elem(elem), action: .set, value: value, pred: pred)
  }
  static func delElement(_ obj: Obj, _ elem: TID, pred: [TID]) -> TOp {
    TOp(obj: obj, key: .elem(elem), action: .delete, pred: pred)
  }
  static func incElement(_ obj: Obj, _ elem: TID, _ by: Int64, pred: [TID]) -> TOp {
    TOp(obj: obj, key: .elem(elem), action: .increment, value: .int(by), pred: pred)
  }
  static func markBegin(_ obj: Obj, after: K, _ name: String, _ value: ScalarValue) -> TOp {
    TOp(
      obj: obj, key: after, insert: true, action: .mark, value: value, expand: true, markName: name)
  }
  static func markEnd(_ obj: Obj, after: K) -> TOp {
    TOp(obj: obj, key: after, insert: true, action: .mark, expand: true)
  }
}

/// Collects hand-built changes, translating ids to change-local actor indices (§6.4).
struct TestDoc {
  var changes: [Change] = []
  private var seqs: [ActorId: UInt64] = [:]
  private var nextHash: UInt64 = 1

  static func fakeHash(_ n: UInt64) -> ChangeHash {
    var bytes = [UInt8](repeating: 0, count: 32)
    for k in 0..<8 { bytes[24 + k] = UInt8(truncatingIfNeeded: n >> UInt64(56 - 8 * k)) }
    return ChangeHash(bytes)
  }

  /// Adds a change by `author` whose ops start at `startOp`; returns its hash.
  @discardableResult
  mutating func add(_ author: ActorId, startOp: UInt64, deps: [ChangeHash] = [], _ ops: [TOp])
    -> ChangeHash
  {
    var referenced = Set<ActorId>()
    for op in ops {
      if case .id(let id) = op.obj { referenced.insert(id.actor) }
      if case .elem(let id) = op.key { referenced.insert(id.actor) }
      for p in op.pred { referenced.insert(p.actor) }
    }
    referenced.remove(author)
    let actors = [author] + referenced.sorted()
    func local(_ id: TID) -> OpId {
      OpId(counter: id.counter, actor: UInt32(actors.firstIndex(of: id.actor) ?? 0))
    }
    let converted = ops.map { t -> Op in
      let object: ObjectRef
      switch t.obj {
      case .root: object = .root
      case .id(let id): object = .object(local(id))
      }
      let key: Key
      switch t.key {
      case .map(let s): key = .map(s)
      case .head: key = .head
      case .elem(let id): key = .element(local(id))
      }
      let pred = t.pred.sorted { ($0.counter, $0.actor) < ($1.counter, $1.actor) }.map(local)
      return Op(
        object: object, key: key, insert: t.insert, action: t.action, value: t.value, pred: pred,
        expand: t.expand, markName: t.markName)
    }
    let seq = (seqs[author] ?? 0) + 1
    seqs[author] = seq
    let hash = TestDoc.fakeHash(nextHash)
    nextHash += 1
    changes.append(
      Change(
        hash: hash, actors: actors, seq: seq, startOp: startOp, time: 0, message: nil,
        deps: ChangeDeps(deps.sorted()), ops: converted, extra: [], chunk: []))
    return hash
  }

  func json(typed: Bool = false) throws -> JSONValue {
    try Materializer.materialize(changes, typed: typed)
  }
}

/// Parses JSON text for expectations.
func json(_ text: String) throws -> JSONValue {
  try JSONParser.parse(Array(text.utf8))
}
