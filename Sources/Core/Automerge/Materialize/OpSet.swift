/// The ops of a set of changes, indexed so that the document's current state can be read
/// (automerge-format.md §8, §10).
///
/// Built from decoded changes in any order. Everything is kept in flat arrays indexed by a
/// *global op index*: the ops of `changes[0]` first, in counter order, then those of
/// `changes[1]`, and so on. Op ids become one `UInt64` each, `counter << 32 | actorRank`,
/// where the actor rank is the actor's position in the byte-sorted document actor table,
/// so integer order is exactly Automerge's Lamport order (§1: counter, then actor bytes).
///
/// What the op set does with input real Automerge would refuse:
/// - changes whose dependencies are missing (directly or transitively) and repeated
///   hashes are left out, as Automerge leaves them queued or skips them (§4);
/// - a pred that names no op, or an op at another key or element, is ignored: Automerge looks
///   for preds only among the ops at the new op's own key;
/// - an op on a missing object, a list op naming a missing element, a key of the wrong kind,
///   duplicate op ids, actor indices out of range and non-numeric increments throw
///   `MaterializeError`.
public struct OpSet: Sendable {
  /// The kind of an object, from the action of the op that made it (§7.4, point 4).
  public enum ObjectKind: UInt8, Sendable {
    /// The root, makeMap and makeTable objects.
    case map
    /// makeList objects.
    case list
    /// makeText objects.
    case text
  }

  /// The document's actors, sorted by bytes; an actor's index here is its rank.
  public let actors: [ActorId]
  /// The changes whose ops are in the set, in input order.
  public let changes: [Change]
  /// How many input changes were left out: duplicates and changes with missing dependencies.
  public let unappliedChangeCount: Int

  /// Global index of the first op of each change; one extra entry holds the op count.
  var changeStart: [Int] = []
  /// Per op: the index in `changes` of the change that holds it.
  var opChange: [Int32] = []
  /// Per op: `counter << 32 | actorRank`.
  var ids: [UInt64] = []
  /// Per op: the action code in bits 0–2, `insertFlag`, `counterFlag`.
  var flags: [UInt8] = []
  /// Per op: the index of the object it targets (0 is the root).
  var objectOf: [Int32] = []
  /// Per op: for a sequence op, the insert op its key names (-1 for HEAD); -1 for map ops.
  var keyElement: [Int32] = []
  /// Per op: how many ops name it as a pred (at its own key).
  var succCount: [Int32] = []
  /// Per op: how many of those are increments.
  var incCount: [Int32] = []
  /// Per op: the sum of those increments (wrapping, as Rust's release builds do).
  var incSum: [Int64] = []
  /// Per object: the global index of its make op (-1 for the root).
  var objectMakeOp: [Int32] = [-1]
  /// Per object: its kind.
  var objectKinds: [ObjectKind] = [.map]

  static let actionMask: UInt8 = 0x07
  static let insertFlag: UInt8 = 0x08
  static let counterFlag: UInt8 = 0x10

  /// Builds the op set of `changes` (automerge-format.md §8.3, §8.4).
  ///
  /// - Parameter changes: decoded changes in any order; duplicates (by hash) and changes
  ///   whose dependencies are not all present are left out.
  /// - Throws: `MaterializeError` when the ops refer to things that do not exist.
  public init(changes input: [Change]) throws(MaterializeError) {
    let applied = OpSet.causallyComplete(input)
    changes = applied.count == input.count ? input : applied.map { input[$0] }
    unappliedChangeCount = input.count - applied.count
    actors = OpSet.sortedActors(changes)
    try index()
  }

  /// The indices of the changes Automerge would apply: first of each hash, deps all applied.
  static func causallyComplete(_ changes: [Change]) -> [Int] {
    var indexOf: [ChangeHash: Int] = [:]
    indexOf.reserveCapacity(changes.count)
    var isDuplicate = [Bool](repeating: false, count: changes.count)
    for (i, change) in changes.enumerated() {
      if indexOf[change.hash] == nil { indexOf[change.hash] = i } else { isDuplicate[i] = true }
    }
    // Kahn's algorithm over the deps DAG; a change with an absent dep never becomes ready,
    // and neither does anything that depends on it (or on a cycle of fake hashes).
    var pending = [Int](repeating: 0, count: changes.count)
    var dependentStart = [Int](repeating: 0, count: changes.count + 1)
    var blocked = isDuplicate
    for (i, change) in changes.enumerated() where !isDuplicate[i] {
      for dep in change.deps {
        if let d = indexOf[dep] {
          pending[i] += 1
          dependentStart[d + 1] += 1
        } else {
          blocked[i] = true
        }
      }
    }
    for i in 0..<changes.count { dependentStart[i + 1] += dependentStart[i] }
    var dependents = [Int](repeating: 0, count: dependentStart[changes.count])
    var fill = dependentStart
    for (i, change) in changes.enumerated() where !isDuplicate[i] {
      for dep in change.deps {
        if let d = indexOf[dep] {
          dependents[fill[d]] = i
          fill[d] += 1
        }
      }
    }
    var ready = (0..<changes.count).filter { !blocked[$0] && pending[$0] == 0 }
    var isApplied = [Bool](repeating: false, count: changes.count)
    var appliedCount = 0
    while let c = ready.popLast() {
      isApplied[c] = true
      appliedCount += 1
      for k in dependentStart[c]..<dependentStart[c + 1] {
        let d = dependents[k]
        pending[d] -= 1
        if pending[d] == 0 && !blocked[d] { ready.append(d) }
      }
    }
    if appliedCount == changes.count { return Array(0..<changes.count) }
    return (0..<changes.count).filter { isApplied[$0] }
  }

  /// Every actor of every change (authors and referenced actors), sorted by bytes.
  static func sortedActors(_ changes: [Change]) -> [ActorId] {
    var seen = Set<ActorId>()
    for change in changes {
      for actor in change.actors { seen.insert(actor) }
    }
    return seen.sorted()
  }

  /// A run of consecutive op ids of one actor: the ops of one change.
  struct Run {
    var start: UInt32
    var count: UInt32
    var base: Int32
  }

  /// The id of op `g` with its actor spelled out, for errors.
  func documentId(_ g: Int) -> DocumentOpId {
    let rank = Int(ids[g] & 0xffff_ffff)
    return DocumentOpId(counter: ids[g] >> 32, actor: actors[rank])
  }

  /// Whether op `g` is an insert op.
  func isInsert(_ g: Int) -> Bool { flags[g] & OpSet.insertFlag != 0 }

  /// The action of op `g`.
  func action(_ g: Int) -> Action? { Action(rawValue: flags[g] & OpSet.actionMask) }

  /// The op `g` as it appears in its change.
  func op(_ g: Int) -> Op {
    let c = Int(opChange[g])
    return changes[c].ops[g - changeStart[c]]
  }

  /// The value of op `g` as it appears in its change.
  func value(_ g: Int) -> ScalarValue {
    let c = Int(opChange[g])
    return changes[c].ops[g - changeStart[c]].value
  }

  /// Whether op `g` is a current value (automerge-format.md §8.4).
  ///
  /// Increments, marks and deletes never are. A counter is visible while every op that
  /// supersedes it is an increment; any other op only while nothing supersedes it.
  func isVisible(_ g: Int) -> Bool {
    let f = flags[g]
    switch f & OpSet.actionMask {
    case Action.set.rawValue, Action.makeMap.rawValue, Action.makeList.rawValue,
      Action.makeText.rawValue, Action.makeTable.rawValue:
      return f & OpSet.counterFlag != 0 ? succCount[g] == incCount[g] : succCount[g] == 0
    default:
      return false
    }
  }

  /// The element group of sequence op `g`: its own index for an insert, else its key.
  func group(_ g: Int) -> Int32 { isInsert(g) ? Int32(g) : keyElement[g] }

  /// Fills the per-op and per-object arrays from `changes`.
  private mutating func index() throws(MaterializeError) {
    var rankOf: [ActorId: UInt32] = [:]
    for (i, actor) in actors.enumerated() { rankOf[actor] = UInt32(i) }

    // Pass 0: ids, flags, actor translation, and the objects that make ops create.
    var localRanks: [[UInt32]] = []
    localRanks.reserveCapacity(changes.count)
    var total = 0
    changeStart.reserveCapacity(changes.count + 1)
    for change in changes {
      changeStart.append(total)
      total += change.ops.count
    }
    changeStart.append(total)
    guard total < Int(Int32.max) else { throw .tooManyOps(total) }
    ids.reserveCapacity(total)
    flags.reserveCapacity(total)
    opChange.reserveCapacity(total)
    var createdObject = [Int32](repeating: -1, count: total)
    var runs = [[Run]](repeating: [], count: actors.count)
    for (c, change) in changes.enumerated() {
      guard !change.actors.isEmpty else { throw .missingAuthor(change: change.hash) }
      let ranks = change.actors.map { rankOf[$0] ?? 0 }
      localRanks.append(ranks)
      let author = UInt64(ranks[0])
      let count = UInt64(change.ops.count)
      guard count == 0 || change.startOp + count - 1 <= UInt64(UInt32.max) else {
        throw .counterTooLarge(change: change.hash)
      }
      if count > 0 {
        runs[Int(author)].append(
          Run(start: UInt32(change.startOp), count: UInt32(count), base: Int32(changeStart[c])))
      }
      for (j, op) in change.ops.enumerated() {
        let g = changeStart[c] + j
        ids.append((change.startOp + UInt64(j)) << 32 | author)
        opChange.append(Int32(c))
        var f = op.action.rawValue
        if op.insert { f |= OpSet.insertFlag }
        if case .counter = op.value { f |= OpSet.counterFlag }
        flags.append(f)
        let kind: ObjectKind?
        switch op.action {
        case .makeMap, .makeTable: kind = .map
        case .makeList: kind = .list
        case .makeText: kind = .text
        default: kind = nil
        }
        if let kind {
          createdObject[g] = Int32(objectKinds.count)
          objectKinds.append(kind)
          objectMakeOp.append(Int32(g))
        }
      }
    }
    for rank in runs.indices {
      runs[rank].sort { $0.start < $1.start }
      for k in runs[rank].indices.dropFirst() {
        let previous = runs[rank][k - 1]
        if UInt64(previous.start) + UInt64(previous.count) > UInt64(runs[rank][k].start) {
          throw .duplicateOpId(
            DocumentOpId(counter: UInt64(runs[rank][k].start), actor: actors[rank]))
        }
      }
    }

    // Resolves a change-local id to a global op index: the change itself first (most
    // references are to the same change), then a binary search of the actor's runs.
    func resolve(_ id: OpId, in c: Int) throws(MaterializeError) -> Int? {
      let ranks = localRanks[c]
      guard Int(id.actor) < ranks.count else {
        throw .actorIndexOutOfRange(change: changes[c].hash, index: id.actor)
      }
      let rank = Int(ranks[Int(id.actor)])
      let counter = UInt64(id.counter)
      let change = changes[c]
      if id.actor == 0 || rank == Int(ranks[0]) {
        if counter >= change.startOp && counter - change.startOp < UInt64(change.ops.count) {
          return changeStart[c] + Int(counter - change.startOp)
        }
      }
      let list = runs[rank]
      var lo = 0
      var hi = list.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if UInt64(list[mid].start) <= counter { lo = mid + 1 } else { hi = mid }
      }
      guard lo > 0 else { return nil }
      let run = list[lo - 1]
      let offset = counter - UInt64(run.start)
      return offset < UInt64(run.count) ? Int(run.base) + Int(offset) : nil
    }

    // Pass 1: the object and key element of every op.
    objectOf = [Int32](repeating: 0, count: total)
    keyElement = [Int32](repeating: -1, count: total)
    for (c, change) in changes.enumerated() {
      for (j, op) in change.ops.enumerated() {
        let g = changeStart[c] + j
        var object = 0
        if case .object(let id) = op.object {
          guard let make = try resolve(id, in: c), createdObject[make] >= 0 else {
            throw .missingObject(op: documentId(g))
          }
          object = Int(createdObject[make])
        }
        objectOf[g] = Int32(object)
        let isMap = objectKinds[object] == .map
        switch op.key {
        case .map:
          guard isMap, !op.insert else { throw .keyKindMismatch(op: documentId(g)) }
        case .head:
          guard !isMap else { throw .keyKindMismatch(op: documentId(g)) }
          guard op.insert else { throw .missingElement(op: documentId(g)) }
        case .element(let id):
          guard !isMap else { throw .keyKindMismatch(op: documentId(g)) }
          guard let element = try resolve(id, in: c) else {
            throw .missingElement(op: documentId(g))
          }
          keyElement[g] = Int32(element)
        }
      }
    }

    // Pass 2: check the key elements (their objects are known now) and invert the preds.
    succCount = [Int32](repeating: 0, count: total)
    incCount = [Int32](repeating: 0, count: total)
    incSum = [Int64](repeating: 0, count: total)
    for (c, change) in changes.enumerated() {
      for (j, op) in change.ops.enumerated() {
        let g = changeStart[c] + j
        let element = keyElement[g]
        if element >= 0 {
          let e = Int(element)
          guard isInsert(e), objectOf[e] == objectOf[g] else {
            throw .missingElement(op: documentId(g))
          }
        }
        if op.pred.isEmpty || op.insert { continue }
        var increment: Int64 = 0
        let isIncrement = op.action == .increment
        if isIncrement {
          switch op.value {
          case .int(let v): increment = v
          case .uint(let v): increment = Int64(truncatingIfNeeded: v)
          default: throw .nonNumericIncrement(op: documentId(g))
          }
        }
        for id in op.pred {
          guard let p = try resolve(id, in: c), objectOf[p] == objectOf[g] else { continue }
          if case .map(let key) = op.key {
            let other = self.op(p)
            guard case .map(let otherKey) = other.key, key.utf8.elementsEqual(otherKey.utf8)
            else { continue }
          } else if group(p) != element {
            continue
          }
          succCount[p] += 1
          if isIncrement {
            incCount[p] += 1
            incSum[p] &+= increment
          }
        }
      }
    }
  }
}
