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
  /// Per op: the action code in bits 0–2, then `insertFlag`, `counterFlag`,
  /// `supersededFlag` and `incrementedFlag`.
  var flags: [UInt8] = []
  /// Per op: the index of the object it targets (0 is the root).
  var objectOf: [Int32] = []
  /// Per op: for a sequence op, the insert op its key names (-1 for HEAD); -1 for map ops.
  var keyElement: [Int32] = []
  /// The sum of the increments naming each op (wrapping, as Rust's release builds do);
  /// only ops that have increments appear.
  var incrementSum: [Int32: Int64] = [:]
  /// Per object: the global index of its make op (-1 for the root), ascending.
  var objectMakeOp: [Int32] = [-1]
  /// Per object: its kind.
  var objectKinds: [ObjectKind] = [.map]

  static let actionMask: UInt8 = 0x07
  static let insertFlag: UInt8 = 0x08
  /// The op's value is a counter.
  static let counterFlag: UInt8 = 0x10
  /// Some op other than an increment names this op as a pred.
  static let supersededFlag: UInt8 = 0x20
  /// Some increment names this op as a pred.
  static let incrementedFlag: UInt8 = 0x40

  /// Builds the op set of `changes` (automerge-format.md §8.3, §8.4).
  ///
  /// - Parameter input: decoded changes in any order; duplicates (by hash) and changes
  ///   whose dependencies are not all present are left out, as Automerge leaves them out.
  /// - Throws: `MaterializeError` when the ops refer to things that do not exist.
  public init(changes input: [Change]) throws(MaterializeError) {
    let applied = OpSet.causallyComplete(input)
    try self.init(
      causallyComplete: applied.count == input.count ? input : applied.map { input[$0] },
      unapplied: input.count - applied.count)
  }

  /// Builds the op set of changes already known to be the ones Automerge applies: distinct,
  /// with every dependency present, in any order.
  ///
  /// This skips the dependency check of `init(changes:)`; use it for the non-orphan changes
  /// of a decoded file (`AutomergeFile` has done that check). Ops are still validated.
  ///
  /// - Throws: `MaterializeError` when the ops refer to things that do not exist.
  public init(causallyComplete changes: [Change], unapplied: Int = 0) throws(MaterializeError) {
    self.changes = changes
    unappliedChangeCount = unapplied
    actors = OpSet.sortedActors(changes)
    try index()
  }

  /// The indices of the changes Automerge would apply: first of each hash, deps all applied.
  static func causallyComplete(_ changes: [Change]) -> [Int] {
    let n = changes.count
    var table = ChangeHashTable(capacity: n)
    var isDuplicate = [Bool](repeating: false, count: n)
    for i in 0..<n where !table.insert(changes[i].hash, index: i, changes) { isDuplicate[i] = true }
    // Kahn's algorithm over the deps DAG; a change with an absent dep never becomes ready,
    // and neither does anything that depends on it (or on a cycle of fake hashes).
    var pending = [Int](repeating: 0, count: n)
    var dependentStart = [Int](repeating: 0, count: n + 1)
    var blocked = isDuplicate
    for i in 0..<n where !isDuplicate[i] {
      for dep in changes[i].deps {
        if let d = table.find(dep, changes) {
          pending[i] += 1
          dependentStart[d + 1] += 1
        } else {
          blocked[i] = true
        }
      }
    }
    for i in 0..<n { dependentStart[i + 1] += dependentStart[i] }
    var dependents = [Int](repeating: 0, count: dependentStart[n])
    var fill = dependentStart
    for i in 0..<n where !isDuplicate[i] {
      for dep in changes[i].deps {
        if let d = table.find(dep, changes) {
          dependents[fill[d]] = i
          fill[d] += 1
        }
      }
    }
    var ready = (0..<n).filter { !blocked[$0] && pending[$0] == 0 }
    var isApplied = [Bool](repeating: false, count: n)
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
    if appliedCount == n { return Array(0..<n) }
    return (0..<n).filter { isApplied[$0] }
  }

  /// An open-addressing set of change indices keyed by hash.
  ///
  /// Change hashes are SHA-256 digests, so their bits are already uniform: mixing the four
  /// words is a cheap, good enough table hash, and avoids `Hasher` on every lookup.
  struct ChangeHashTable {
    private var slots: [Int32]
    private let mask: Int

    init(capacity: Int) {
      var size = 16
      while size < capacity * 2 { size <<= 1 }
      slots = [Int32](repeating: -1, count: size)
      mask = size - 1
    }

    private func start(_ h: ChangeHash) -> Int {
      var x = h.w0 ^ h.w1 ^ h.w2 ^ h.w3
      x = (x ^ (x >> 31)) &* 0x9e37_79b9_7f4a_7c15
      return Int(truncatingIfNeeded: x >> 20) & mask
    }

    /// Adds `index` (whose change has hash `h`); false when the hash is already present.
    mutating func insert(_ h: ChangeHash, index: Int, _ changes: [Change]) -> Bool {
      var i = start(h)
      while slots[i] >= 0 {
        if changes[Int(slots[i])].hash == h { return false }
        i = (i + 1) & mask
      }
      slots[i] = Int32(index)
      return true
    }

    /// The index of the change with hash `h`, if present.
    func find(_ h: ChangeHash, _ changes: [Change]) -> Int? {
      var i = start(h)
      while slots[i] >= 0 {
        if changes[Int(slots[i])].hash == h { return Int(slots[i]) }
        i = (i + 1) & mask
      }
      return nil
    }
  }

  /// Every actor of every change (authors and referenced actors), sorted by bytes.
  static func sortedActors(_ changes: [Change]) -> [ActorId] {
    var seen = Set<ActorId>()
    var previous: [ActorId] = []
    for c in changes.indices where changes[c].actors != previous {
      previous = changes[c].actors
      for actor in previous { seen.insert(actor) }
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

  /// The key of op `g` as it appears in its change.
  func key(_ g: Int) -> Key {
    let c = Int(opChange[g])
    return changes[c].ops[g - changeStart[c]].key
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
      if f & OpSet.supersededFlag != 0 { return false }
      return f & OpSet.counterFlag != 0 || f & OpSet.incrementedFlag == 0
    default:
      return false
    }
  }

  /// The index of the object made by op `g`, or nil when `g` is not a make op.
  ///
  /// Objects are numbered in op order, so `objectMakeOp` is sorted and a binary search
  /// finds it.
  func objectIndex(makeOp g: Int) -> Int? {
    var lo = 1
    var hi = objectMakeOp.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if Int(objectMakeOp[mid]) < g { lo = mid + 1 } else { hi = mid }
    }
    return lo < objectMakeOp.count && Int(objectMakeOp[lo]) == g ? lo : nil
  }

  /// The element group of sequence op `g`: its own index for an insert, else its key.
  func group(_ g: Int) -> Int32 { isInsert(g) ? Int32(g) : keyElement[g] }

  /// Fills the per-op and per-object arrays from `changes` (automerge-format.md §8.3).
  ///
  /// One pass over the ops does everything when the changes come in a causal order (as
  /// decoders deliver them): an op's object, key element and preds are then earlier ops.
  /// Ops that name a later op are deferred and finished after the pass, so any order works.
  /// Ops are read field by field (`ops[j].key`), never copied whole: an `Op` holds several
  /// reference-counted fields, and millions of copies would dominate the run time.
  private mutating func index() throws(MaterializeError) {
    var rankOf: [ActorId: UInt32] = [:]
    for (i, actor) in actors.enumerated() { rankOf[actor] = UInt32(i) }

    // Change headers: op ranges, actor translation, and each actor's runs of op ids.
    var rankStart: [Int] = []
    var rankTable: [UInt32] = []
    rankStart.reserveCapacity(changes.count + 1)
    var total = 0
    changeStart.reserveCapacity(changes.count + 1)
    var runs = [[Run]](repeating: [], count: actors.count)
    var previousActors: [ActorId] = []
    var previousRanks: [UInt32] = []
    for c in changes.indices {
      let opCount = changes[c].ops.count
      let startOp = changes[c].startOp
      guard !changes[c].actors.isEmpty else { throw .missingAuthor(change: changes[c].hash) }
      if changes[c].actors != previousActors {
        previousActors = changes[c].actors
        previousRanks = previousActors.map { rankOf[$0] ?? 0 }
      }
      rankStart.append(rankTable.count)
      rankTable.append(contentsOf: previousRanks)
      let count = UInt64(opCount)
      // Overflow-safe form of `startOp + count - 1 <= UInt32.max`.
      guard
        count == 0 || (startOp <= UInt64(UInt32.max) && count - 1 <= UInt64(UInt32.max) - startOp)
      else {
        throw .counterTooLarge(change: changes[c].hash)
      }
      guard total + opCount < Int(Int32.max) else { throw .tooManyOps(total + opCount) }
      if count > 0 {
        runs[Int(previousRanks[0])].append(
          Run(start: UInt32(startOp), count: UInt32(count), base: Int32(total)))
      }
      changeStart.append(total)
      total += opCount
    }
    changeStart.append(total)
    rankStart.append(rankTable.count)
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

    ids.reserveCapacity(total)
    opChange.reserveCapacity(total)
    for c in changes.indices {
      let author = UInt64(rankTable[rankStart[c]])
      let startOp = changes[c].startOp
      for j in 0..<(changeStart[c + 1] - changeStart[c]) {
        ids.append((startOp + UInt64(j)) << 32 | author)
        opChange.append(Int32(c))
      }
    }

    let lookup = IdLookup(rankStart: rankStart, rankTable: rankTable, runs: runs)
    flags = [UInt8](repeating: 0, count: total)
    objectOf = [Int32](repeating: 0, count: total)
    keyElement = [Int32](repeating: -1, count: total)
    var isDeferred = [Bool](repeating: false, count: total)
    var deferred: [(g: Int, c: Int, j: Int)] = []
    var cache = (make: -1, object: 0)

    for c in changes.indices {
      let ops = changes[c].ops
      for j in 0..<ops.count {
        let g = changeStart[c] + j
        let action = ops[j].action
        var f = flags[g] | action.rawValue
        if ops[j].insert { f |= OpSet.insertFlag }
        if case .counter = ops[j].value { f |= OpSet.counterFlag }
        flags[g] = f
        switch action {
        case .makeMap, .makeTable:
          objectKinds.append(.map)
          objectMakeOp.append(Int32(g))
        case .makeList:
          objectKinds.append(.list)
          objectMakeOp.append(Int32(g))
        case .makeText:
          objectKinds.append(.text)
          objectMakeOp.append(Int32(g))
        default:
          break
        }
        guard try target(g, c, ops, j, lookup, &cache, complete: false),
          try link(g, c, ops, j, lookup, isDeferred, complete: false)
        else {
          isDeferred[g] = true
          deferred.append((g, c, j))
          continue
        }
      }
    }
    if deferred.isEmpty { return }
    for (g, c, j) in deferred {
      _ = try target(g, c, changes[c].ops, j, lookup, &cache, complete: true)
    }
    for (g, c, j) in deferred {
      _ = try link(g, c, changes[c].ops, j, lookup, isDeferred, complete: true)
    }
  }

  /// The actor translation and id runs of the changes, for resolving change-local ids.
  struct IdLookup {
    /// Per change, where its actors start in `rankTable` (one extra entry at the end).
    var rankStart: [Int]
    /// The document rank of each change-local actor index, change after change.
    var rankTable: [UInt32]
    /// Per actor rank, its changes' id runs sorted by start counter.
    var runs: [[Run]]
  }

  /// Resolves a change-local id to a global op index, or nil when no op has it.
  ///
  /// The change itself is tried first (most references are to the same change), then a
  /// binary search of the actor's runs.
  func resolve(_ id: OpId, in c: Int, _ lookup: IdLookup) throws(MaterializeError) -> Int? {
    let local = lookup.rankStart[c] + Int(id.actor)
    guard local < lookup.rankStart[c + 1] else {
      throw .actorIndexOutOfRange(change: changes[c].hash, index: id.actor)
    }
    let rank = Int(lookup.rankTable[local])
    let counter = UInt64(id.counter)
    let first = changeStart[c]
    let count = changeStart[c + 1] - first
    if rank == Int(lookup.rankTable[lookup.rankStart[c]]) && count > 0 {
      let start = ids[first] >> 32
      if counter >= start && counter - start < UInt64(count) { return first + Int(counter - start) }
    }
    let list = lookup.runs[rank]
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

  /// Sets the object and key element of op g (`ops[j]` of change c); false when its object
  /// is made by an op not indexed yet. `complete` is set once every op is indexed.
  private mutating func target(
    _ g: Int, _ c: Int, _ ops: [Op], _ j: Int, _ lookup: IdLookup,
    _ cache: inout (make: Int, object: Int), complete: Bool
  ) throws(MaterializeError) -> Bool {
    var object = 0
    if case .object(let id) = ops[j].object {
      guard let make = try resolve(id, in: c, lookup) else {
        throw .missingObject(op: documentId(g))
      }
      if make == cache.make {
        object = cache.object
      } else {
        if make >= g && !complete { return false }
        guard let made = objectIndex(makeOp: make) else { throw .missingObject(op: documentId(g)) }
        object = made
        cache = (make, made)
      }
    }
    objectOf[g] = Int32(object)
    let isMap = objectKinds[object] == .map
    switch ops[j].key {
    case .map:
      guard isMap, !ops[j].insert else { throw .keyKindMismatch(op: documentId(g)) }
    case .head:
      guard !isMap else { throw .keyKindMismatch(op: documentId(g)) }
      guard ops[j].insert else { throw .missingElement(op: documentId(g)) }
    case .element(let id):
      guard !isMap else { throw .keyKindMismatch(op: documentId(g)) }
      guard let element = try resolve(id, in: c, lookup) else {
        throw .missingElement(op: documentId(g))
      }
      keyElement[g] = Int32(element)
    }
    return true
  }

  /// Checks op g's key element and records g as a successor of its preds (§8.3); false
  /// when one of them is not indexed yet (`isDeferred`, or later in the order).
  private mutating func link(
    _ g: Int, _ c: Int, _ ops: [Op], _ j: Int, _ lookup: IdLookup, _ isDeferred: [Bool],
    complete: Bool
  ) throws(MaterializeError) -> Bool {
    let element = keyElement[g]
    if element >= 0 {
      let e = Int(element)
      if !complete && (e >= g || isDeferred[e]) { return false }
      guard flags[e] & OpSet.insertFlag != 0, objectOf[e] == objectOf[g] else {
        throw .missingElement(op: documentId(g))
      }
    }
    if ops[j].insert || ops[j].pred.isEmpty { return true }
    var increment: Int64 = 0
    let isIncrement = ops[j].action == .increment
    if isIncrement {
      switch ops[j].value {
      case .int(let v): increment = v
      case .uint(let v): increment = Int64(truncatingIfNeeded: v)
      default: throw .nonNumericIncrement(op: documentId(g))
      }
    }
    let pred = ops[j].pred
    if !complete {
      for id in pred {
        if let p = try resolve(id, in: c, lookup), p >= g || isDeferred[p] { return false }
      }
    }
    for id in pred {
      guard let p = try resolve(id, in: c, lookup), objectOf[p] == objectOf[g] else { continue }
      if case .map(let key) = ops[j].key {
        guard case .map(let otherKey) = self.key(p), OpSet.sameBytes(key, otherKey) else {
          continue
        }
      } else if (flags[p] & OpSet.insertFlag != 0 ? Int32(p) : keyElement[p]) != element {
        continue
      }
      if isIncrement {
        flags[p] |= OpSet.incrementedFlag
        incrementSum[Int32(p), default: 0] &+= increment
      } else {
        flags[p] |= OpSet.supersededFlag
      }
    }
    return true
  }

  /// Whether two strings have the same UTF-8 bytes (`==` on `String` compares canonical
  /// equivalence, which is not how Automerge compares keys).
  static func sameBytes(_ a: String, _ b: String) -> Bool {
    let fast = a.utf8.withContiguousStorageIfAvailable { x in
      b.utf8.withContiguousStorageIfAvailable { y in x.elementsEqual(y) }
    }
    return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
  }

  /// Whether `a` sorts before `b` by UTF-8 bytes (Automerge's key order, §7.4).
  static func bytesPrecede(_ a: String, _ b: String) -> Bool {
    let fast = a.utf8.withContiguousStorageIfAvailable { x in
      b.utf8.withContiguousStorageIfAvailable { y in x.lexicographicallyPrecedes(y) }
    }
    return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
  }
}
