extension OpSet {
  /// The elements of every list and text object in sequence order (automerge-format.md §7.4).
  struct SequenceOrder {
    /// Insert ops (global indices), object after object, each object in RGA order.
    var order: [Int32]
    /// Per object: its slice of `order` (empty for maps).
    var ranges: [Range<Int>]
  }

  /// Orders the insert ops of every sequence object by RGA (automerge-format.md §7.4).
  ///
  /// Each insert op is a child of the element its key names (or of its object's HEAD).
  /// Children are sorted by id, descending, and the sequence is the pre-order walk of that
  /// tree. The tree is stored as child lists in one flat array (a counting sort by parent),
  /// and walked with an explicit stack, so a million elements need neither a million
  /// allocations nor a million stack frames.
  ///
  /// - Throws: `MaterializeError.unreachableElement` when insert ops reference each other
  ///   in a cycle (no HEAD above them), which no real document contains.
  func sequenceOrder() throws(MaterializeError) -> SequenceOrder {
    let opCount = ids.count
    let nodeCount = opCount + objectKinds.count
    // Node k < opCount is insert op k; node opCount + o is the HEAD of object o.
    var childStart = [Int32](repeating: 0, count: nodeCount + 1)
    var insertCount = 0
    for g in 0..<opCount where flags[g] & OpSet.insertFlag != 0 {
      let parent = keyElement[g] >= 0 ? Int(keyElement[g]) : opCount + Int(objectOf[g])
      childStart[parent + 1] += 1
      insertCount += 1
    }
    for k in 0..<nodeCount { childStart[k + 1] += childStart[k] }
    var children = [Int32](repeating: 0, count: insertCount)
    // Fill each bucket using its start as a cursor; afterwards childStart[k] holds the
    // end of bucket k, which is the start of bucket k + 1, so shift it back by one.
    for g in 0..<opCount where flags[g] & OpSet.insertFlag != 0 {
      let parent = keyElement[g] >= 0 ? Int(keyElement[g]) : opCount + Int(objectOf[g])
      children[Int(childStart[parent])] = Int32(g)
      childStart[parent] += 1
    }
    for k in stride(from: nodeCount, to: 0, by: -1) { childStart[k] = childStart[k - 1] }
    childStart[0] = 0
    ids.withUnsafeBufferPointer { ids in
      children.withUnsafeMutableBufferPointer { children in
        for k in 0..<nodeCount where childStart[k + 1] - childStart[k] > 1 {
          var slice = UnsafeMutableBufferPointer(
            rebasing: children[Int(childStart[k])..<Int(childStart[k + 1])])
          slice.sort { ids[Int($0)] > ids[Int($1)] }
        }
      }
    }

    var order: [Int32] = []
    order.reserveCapacity(insertCount)
    var ranges = [Range<Int>](repeating: 0..<0, count: objectKinds.count)
    var stack: [Int32] = []
    for object in objectKinds.indices where objectKinds[object] != .map {
      let start = order.count
      let head = opCount + object
      var k = childStart[head + 1]
      while k > childStart[head] {
        k -= 1
        stack.append(children[Int(k)])
      }
      while let node = stack.popLast() {
        order.append(node)
        var k = childStart[Int(node) + 1]
        while k > childStart[Int(node)] {
          k -= 1
          stack.append(children[Int(k)])
        }
      }
      ranges[object] = start..<order.count
    }
    if order.count != insertCount {
      var reached = [Bool](repeating: false, count: opCount)
      for g in order { reached[Int(g)] = true }
      for g in 0..<opCount where flags[g] & OpSet.insertFlag != 0 && !reached[g] {
        throw .unreachableElement(op: documentId(g))
      }
    }
    return SequenceOrder(order: order, ranges: ranges)
  }

  /// Per insert op, the op that holds its element's current value, or -1 (§10).
  ///
  /// The candidates are the visible ops of the element's group (the insert op and the
  /// sets on its element); the one with the greatest Lamport id wins. Entries for ops that
  /// are not inserts into sequences are -1.
  func elementWinners() -> [Int32] {
    var winner = [Int32](repeating: -1, count: ids.count)
    for g in 0..<ids.count where objectKinds[Int(objectOf[g])] != .map && isVisible(g) {
      let e = Int(group(g))
      if e < 0 { continue }
      let current = winner[e]
      if current < 0 || ids[g] > ids[Int(current)] { winner[e] = Int32(g) }
    }
    return winner
  }

  /// A map key of one object, compared by UTF-8 bytes (Swift's `String ==` would merge
  /// canonically equivalent keys, which Automerge keeps apart).
  struct MapSlot: Hashable {
    var object: Int32
    var key: String

    static func == (a: MapSlot, b: MapSlot) -> Bool {
      a.object == b.object && OpSet.sameBytes(a.key, b.key)
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(object)
      let done: Void? = key.utf8.withContiguousStorageIfAvailable {
        hasher.combine(bytes: UnsafeRawBufferPointer($0))
      }
      if done == nil { Array(key.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
  }

  /// Per object, its present keys (sorted by UTF-8 bytes) with the op that wins each (§10).
  ///
  /// The winner of a key is the visible op with the greatest Lamport id; a key with no
  /// visible op is absent.
  func mapWinners() -> [[(key: String, op: Int32)]] {
    var winners: [MapSlot: Int32] = [:]
    for g in 0..<ids.count where objectKinds[Int(objectOf[g])] == .map && isVisible(g) {
      guard case .map(let key) = key(g) else { continue }
      let slot = MapSlot(object: objectOf[g], key: key)
      if let current = winners[slot], ids[Int(current)] > ids[g] { continue }
      winners[slot] = Int32(g)
    }
    var entries = [[(key: String, op: Int32)]](repeating: [], count: objectKinds.count)
    for (slot, op) in winners { entries[Int(slot.object)].append((slot.key, op)) }
    for object in entries.indices where entries[object].count > 1 {
      entries[object].sort { OpSet.bytesPrecede($0.key, $1.key) }
    }
    return entries
  }
}
