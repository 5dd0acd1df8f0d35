import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// Cross-checks the tree-walk RGA order against Automerge's incremental insertion rule.
@Suite struct SequenceOrderTests {
  /// One replica of a list, kept the way Rust's op tree keeps it: elements in sequence
  /// order, each new insert placed after its reference, skipping every following element
  /// whose id is greater (automerge-format.md §7.4, "an equivalent incremental rule").
  struct Replica {
    var elements: [(id: TID, value: String, deleted: Bool)] = []
    var seen: Set<Int> = []

    static func less(_ x: TID, _ y: TID) -> Bool { (x.counter, x.actor) < (y.counter, y.actor) }

    mutating func apply(_ op: TOp) {
      switch op.key {
      case .head, .elem:
        if op.insert {
          guard case .string(let value) = op.value else { return }
          var i = 0
          if case .elem(let ref) = op.key {
            i = (elements.firstIndex { $0.id == ref } ?? -1) + 1
          }
          let id = op.pred.first ?? TID(0, Actors.a)  // the generator passes the op's own id here
          while i < elements.count && Replica.less(id, elements[i].id) { i += 1 }
          elements.insert((id, value, false), at: i)
        } else if case .elem(let target) = op.key,
          let k = elements.firstIndex(where: { $0.id == target })
        {
          elements[k].deleted = true
        }
      case .map:
        return
      }
    }
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as [UInt64])
  func randomConcurrentEditingMatchesIncrementalRGA(seed: UInt64) throws {
    var rng = SplitMix64(state: seed)
    let actors = [Actors.a, Actors.b, Actors.c, Actors.a1, Actors.a2]
    let list = TID(1, Actors.a)
    var doc = TestDoc()
    // Every change, with the ops as the replicas apply them (own id smuggled in `pred`).
    var log: [(actor: Int, ops: [TOp], maxCounter: UInt32)] = []
    log.append((0, [], 1))
    doc.add(actors[0], startOp: 1, [.make(.makeList, "l")])
    var replicas = [Replica](repeating: Replica(), count: actors.count)
    var maxCounter = [UInt32](repeating: 1, count: actors.count)
    replicas[0].seen.insert(0)
    func sync(_ r: Int, from other: Int) {
      for k in log.indices where replicas[other].seen.contains(k) && !replicas[r].seen.contains(k) {
        for op in log[k].ops { replicas[r].apply(op) }
        replicas[r].seen.insert(k)
        maxCounter[r] = max(maxCounter[r], log[k].maxCounter)
      }
    }
    for _ in 0..<60 {
      let r = rng.below(actors.count)
      sync(r, from: 0)  // everyone starts from the list's creation
      if rng.below(3) == 0 { sync(r, from: rng.below(actors.count)) }
      let deps = log.indices.filter { replicas[r].seen.contains($0) }
      var counter = maxCounter[r] + 1
      var docOps: [TOp] = []
      var replayOps: [TOp] = []
      for _ in 0..<(1 + rng.below(4)) {
        let id = TID(counter, actors[r])
        let visible = replicas[r].elements.filter { !$0.deleted }
        if !visible.isEmpty && rng.below(4) == 0 {
          let target = visible[rng.below(visible.count)].id
          let del = TOp.delElement(.id(list), target, pred: [target])
          docOps.append(del)
          replicas[r].apply(del)
          replayOps.append(del)
        } else {
          let after: TOp.K =
            visible.isEmpty || rng.below(5) == 0
            ? .head : .elem(visible[rng.below(visible.count)].id)
          let value = "\(counter)@\(r)"
          docOps.append(.insert(.id(list), after: after, .string(value)))
          var replay = TOp.insert(.id(list), after: after, .string(value))
          replay.pred = [id]
          replicas[r].apply(replay)
          replayOps.append(replay)
        }
        counter += 1
      }
      let hashes = deps.map { TestDoc.fakeHash(UInt64($0 + 1)) }
      doc.add(actors[r], startOp: UInt64(maxCounter[r] + 1), deps: hashes, docOps)
      maxCounter[r] = counter - 1
      log.append((r, replayOps, maxCounter[r]))
      replicas[r].seen.insert(log.count - 1)
    }
    var full = Replica()
    for entry in log { for op in entry.ops { full.apply(op) } }
    let expected = full.elements.filter { !$0.deleted }.map { JSONValue.string($0.value) }
    let actual = try Materializer.materialize(doc.changes, typed: false)
    #expect(actual == .object([("l", .array(expected))]), "seed \(seed)")
  }
}
