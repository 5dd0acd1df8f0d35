/// Materializes a document chunk straight from its stored op columns (automerge-format.md
/// §7.4, §8.4, §10), without a `Change` or an `Op` value per op: the path of `mn doc show`
/// for a file that is one document chunk, as Automerge's `save()` writes it.
///
/// A document stores each object's ops together, a map's by key then id, a sequence's
/// element by element in sequence order, each op with its successors: the current value of
/// a key or element is its visible op (§8.4) with the greatest id, found in one pass. Where
/// the columns are not in that shape (possible only in documents no Automerge writes), the
/// answer is nil and the caller takes the general path (`OpSet`), which applies the changes.
struct DocumentMaterializer {
  private let ops: Reconstruction
  private let typed: Bool
  /// The stored increments (action 5): their id and index.
  private var increments: [UInt64: Int] = [:]
  /// The counters (value code 8) that have successors: where those start in `ops.succKeys`
  /// (no table per op: only a counter's visibility and value read its successors).
  private var counterSuccStart: [Int: Int] = [:]

  /// The ops of one object: its id (0 for the root) and its range of stored ops.
  private struct ObjectRun {
    var id: UInt64
    var ops: Range<Int>
  }

  /// The JSON of the document whose stored ops are `ops` (decoded, see
  /// `DocumentChunk.decode(inspect:)`), or nil when the columns are not in the shape this reader
  /// relies on, or nest deeper than `maxDepth` (the general path says why).
  static func json(_ ops: Reconstruction, typed: Bool, maxDepth: Int) -> JSONValue? {
    var m = DocumentMaterializer(ops: ops, typed: typed)
    return m.run(maxDepth: maxDepth)
  }

  private init(ops: Reconstruction, typed: Bool) {
    self.ops = ops
    self.typed = typed
  }

  private mutating func run(maxDepth: Int) -> JSONValue? {
    let n = ops.opCount
    // Objects: contiguous runs of ops, in increasing id order (the root, id 0, first). The
    // decoder has checked that the value payloads and the successors fill their columns.
    var runs: [ObjectRun] = []
    var runOf: [UInt64: Int] = [:]
    var succ = 0
    for i in 0..<n {
      guard let object = try? ops.objectKey(i) else { return nil }
      if let last = runs.last, last.id == object {
        runs[runs.count - 1].ops = last.ops.lowerBound..<(i + 1)
      } else {
        if let last = runs.last, last.id >= object { return nil }
        runOf[object] = runs.count
        runs.append(ObjectRun(id: object, ops: i..<(i + 1)))
      }
      guard ops.actionValue(i) <= 7 else { return nil }
      if ops.action[i] == Action.increment.rawValue { increments[id(i)] = i }
      let count = succCount(i)
      if count > 0 && ops.meta(i) & 0x0f == 8 { counterSuccStart[i] = succ }
      succ += count
    }

    // Forward, parents before children (an object's id is greater than its parent's): the
    // winners of each object reached from the root. A text has no children: its string is
    // built here, and its winners are not kept.
    var kind = [OpSet.ObjectKind?](repeating: nil, count: runs.count)
    var depth = [Int](repeating: 0, count: runs.count)
    var winners = [[Int32]](repeating: [], count: runs.count)
    var built = [JSONValue?](repeating: nil, count: runs.count)
    guard runs.first?.id ?? 0 == 0 else { return nil }
    if !runs.isEmpty { kind[0] = .map }
    for r in runs.indices {
      guard let k = kind[r] else { continue }
      if k == .text {
        guard let t = text(runs[r].ops) else { return nil }
        built[r] = t
        continue
      }
      guard let w = k == .map ? mapWinners(runs[r].ops) : elementWinners(runs[r].ops) else {
        return nil
      }
      for g in w {
        guard let childKind = Self.kind(made: ops.action[Int(g)]) else { continue }
        guard depth[r] < maxDepth else { return nil }
        if let c = runOf[id(Int(g))] {
          kind[c] = childKind
          depth[c] = depth[r] + 1
        }
      }
      winners[r] = w
    }

    // Backward, children before parents: the JSON of each map and list reached.
    for r in runs.indices.reversed() {
      guard let k = kind[r], k != .text else { continue }
      var values: [JSONValue] = []
      values.reserveCapacity(winners[r].count)
      for g in winners[r].lazy.map({ Int($0) }) {
        if let childKind = Self.kind(made: ops.action[g]) {
          if let c = runOf[id(g)], let v = built[c] {
            values.append(v)
            built[c] = nil
          } else {
            values.append(empty(childKind))
          }
        } else {
          guard let v = scalar(g) else { return nil }
          values.append(v)
        }
      }
      if k == .map {
        var entries: [(String, JSONValue)] = []
        entries.reserveCapacity(values.count)
        for (g, v) in zip(winners[r], values) {
          guard case .map(let s) = key(Int(g)) else { return nil }
          entries.append((ops.strings[s], v))
        }
        built[r] = .object(entries)
      } else {
        built[r] = .array(values)
      }
      winners[r] = []
    }
    return built.first.flatMap { $0 } ?? .object([])
  }

  /// The kind of the object a make op creates; nil for any other action.
  private static func kind(made action: UInt8) -> OpSet.ObjectKind? {
    switch action {
    case Action.makeMap.rawValue, Action.makeTable.rawValue: return .map
    case Action.makeList.rawValue: return .list
    case Action.makeText.rawValue: return .text
    default: return nil
    }
  }

  @inline(__always) private func id(_ i: Int) -> UInt64 {
    ops.opId(i)
  }

  @inline(__always) private func succCount(_ i: Int) -> Int {
    i < ops.succNum.count ? Int(ops.succNum[i]) : 0
  }

  /// Where the successors of counter `i` are in `ops.succKeys`; nil when `i` is not a
  /// counter with successors.
  private func counterSuccs(_ i: Int) -> Range<Int>? {
    guard let s = counterSuccStart[i] else { return nil }
    return s..<(s + succCount(i))
  }

  /// The key of stored op `i`; nil when it is invalid.
  private func key(_ i: Int) -> StoredKey? { try? ops.key(i) }

  /// The JSON of an object that has no ops.
  private func empty(_ kind: OpSet.ObjectKind) -> JSONValue {
    switch kind {
    case .map: return .object([])
    case .list: return .array([])
    case .text: return typed ? .object([("$text", .string(""))]) : .string("")
    }
  }

  /// Whether op `i` is a current value (§8.4): a set or make op that nothing supersedes, or
  /// a counter that only increments supersede.
  private func isVisible(_ i: Int) -> Bool {
    switch ops.action[i] {
    case Action.set.rawValue, Action.makeMap.rawValue, Action.makeList.rawValue,
      Action.makeText.rawValue, Action.makeTable.rawValue:
      if succCount(i) == 0 { return true }
      guard let succs = counterSuccs(i) else { return false }  // not a counter
      for k in succs where increments[ops.succKeys[k]] == nil { return false }
      return true
    default:
      return false
    }
  }

  /// A map's winners, one per present key in key order: per run of ops with one key, the
  /// visible op with the greatest id. Nil when the keys are not map keys in byte order.
  private func mapWinners(_ range: Range<Int>) -> [Int32]? {
    var out: [Int32] = []
    var i = range.lowerBound
    var previous: Int? = nil
    while i < range.upperBound {
      guard !ops.isInsert(i), case .map(let k) = key(i) else { return nil }
      if let p = previous {
        guard OpSet.bytesPrecede(ops.strings[p], ops.strings[k]) else { return nil }
      }
      previous = k
      var winner = -1
      var j = i
      while j < range.upperBound, !ops.isInsert(j), case .map(let kj) = key(j),
        kj == k || OpSet.sameBytes(ops.strings[kj], ops.strings[k])
      {
        if isVisible(j) && (winner < 0 || id(j) > id(winner)) { winner = j }
        j += 1
      }
      if winner >= 0 { out.append(Int32(truncatingIfNeeded: winner)) }
      i = j
    }
    return out
  }

  /// A sequence's winners, one per present element in sequence order (`forEachWinner`).
  private func elementWinners(_ range: Range<Int>) -> [Int32]? {
    var out: [Int32] = []
    // At most one per op: room untouched is no resident memory, while an array grown by
    // doubling touched 2.7 times its size (moby-dick: 12.6 MB of pages for 4.7 MB).
    out.reserveCapacity(range.count)
    let shaped = forEachWinner(inSequence: range) { out.append(Int32(truncatingIfNeeded: $0)) }
    return shaped ? out : nil
  }

  /// Calls `body` with a sequence's winners, one per present element in sequence order: per
  /// element (its insert op and the ops on it), the visible op with the greatest id. False
  /// when an op does not follow its element's insert op.
  @inline(__always)
  private func forEachWinner(inSequence range: Range<Int>, _ body: (Int) -> Void) -> Bool {
    var i = range.lowerBound
    while i < range.upperBound {
      guard ops.isInsert(i) else { return false }
      switch key(i) {
      case .head, .element: break
      default: return false
      }
      let element = id(i)
      var winner = isVisible(i) ? i : -1
      var j = i + 1
      while j < range.upperBound, !ops.isInsert(j) {
        guard case .element(let e) = key(j), e == element else { return false }
        if isVisible(j) && (winner < 0 || id(j) > id(winner)) { winner = j }
        j += 1
      }
      if winner >= 0 { body(winner) }
      i = j
    }
    return true
  }

  /// The value of stored op `i`; nil when it does not decode (the general path says why).
  private func storedValue(_ i: Int) -> ScalarValue? {
    ops.valRaw.withUnsafeBufferPointer {
      try? ValueDecoder.decode(
        meta: ops.meta(i), raw: $0, start: ops.valueStart(i), spec: ColumnSpecs.valRaw,
        chunk: ops.chunk)
    }
  }

  /// A text object's string: its present elements' strings, U+FFFC for any other value;
  /// nil when its ops are not in a sequence's shape or a string is not UTF-8. `range` is
  /// the object's ops.
  private func text(_ range: Range<Int>) -> JSONValue? {
    // Made in place in a room for every visible op's bytes, of which the winners' are some
    // (all, but where concurrent sets of one element conflict): neither grown nor copied
    // (moby-dick's 1.2 MB text, grown then copied, touched 3.6 MB of pages).
    var room = 0
    for i in range where isVisible(i) {
      let meta = ops.meta(i)
      room += isString(i, meta) ? Int(truncatingIfNeeded: meta >> 4) : 3
    }
    var valid = true
    var starts = PayloadStarts(ops, from: range.lowerBound)
    let text = String(unsafeUninitializedCapacity: room) { out in
      var written = 0
      let shaped = ops.valRaw.withUnsafeBufferPointer { raw in
        forEachWinner(inSequence: range) { g in
          let meta = ops.meta(g)
          let start = starts.start(of: g, ops)
          guard valid else { return }
          guard isString(g, meta) else {
            (out[written], out[written + 1], out[written + 2]) = (0xef, 0xbf, 0xbc)
            written += 3
            return
          }
          let payload = UnsafeBufferPointer(
            rebasing: raw[start..<(start + Int(truncatingIfNeeded: meta >> 4))])
          guard UTF8Validation.isValidOrASCII(payload) else {
            valid = false
            return
          }
          // Most characters are one byte: copying a buffer of one cost ten times as much.
          if payload.count == 1 {
            out[written] = payload[0]
          } else {
            _ = UnsafeMutableBufferPointer(rebasing: out[written...]).initialize(from: payload)
          }
          written += payload.count
        }
      }
      valid = valid && shaped
      return valid ? written : 0
    }
    guard valid else { return nil }
    let string = JSONValue.string(text)
    return typed ? .object([("$text", string)]) : string
  }

  /// Where the value payloads of an object's ops start in `valRaw`, for ops asked in
  /// increasing order: each start is the one before plus the payloads between.
  private struct PayloadStarts {
    private var at: Int
    private var start: Int

    init(_ ops: Reconstruction, from first: Int) {
      at = first
      start = ops.valueStart(first)
    }

    @inline(__always) mutating func start(of g: Int, _ ops: Reconstruction) -> Int {
      while at < g {
        start += Int(truncatingIfNeeded: ops.meta(at) >> 4)
        at += 1
      }
      return start
    }
  }

  /// Whether element op `g`, whose value metadata is `meta`, sets a string (any other op
  /// shows in a text as U+FFFC).
  @inline(__always) private func isString(_ g: Int, _ meta: UInt64) -> Bool {
    ops.action[g] == Action.set.rawValue && meta & 0x0f == 6
  }

  /// The JSON of scalar op `g`, a counter with its increments added.
  private func scalar(_ g: Int) -> JSONValue? {
    guard let v = storedValue(g) else { return nil }
    var increment: Int64 = 0
    if case .counter = v {
      for k in counterSuccs(g) ?? 0..<0 {
        guard let inc = increments[ops.succKeys[k]], let d = storedValue(inc) else { return nil }
        switch d {
        case .int(let x): increment &+= x
        case .uint(let x): increment &+= Int64(truncatingIfNeeded: x)
        default: return nil
        }
      }
    }
    return Materializer.json(of: v, increments: increment, typed: typed)
  }
}
