import Threads

/// §7.5 steps 1 to 6 on the decoded columns: the changes of a document chunk, each
/// re-encoded canonically and hashed. Step 7 (the heads) is `DocumentChunk.decode`'s.
extension Reconstruction {
  /// The preds of every op (§7.5 steps 1 to 4): the stored ops' from the succ lists, and
  /// the del ops synthesized from the succ ids that name no stored op.
  ///
  /// Op `k` below `opCount` is stored op `k`; op `opCount + d` is synthesized del `d`.
  /// Preds are packed ids (`Reconstruction.pack`), each list in Lamport order.
  struct Preds {
    /// Stored op `k`'s preds are `flat[start[k]..<start[k + 1]]`.
    var start: [Int32]
    var flat: [UInt64] = []
    /// Del `d`'s id, object and key (its group's, §7.5 step 2).
    var delId: [UInt64] = []
    var delObject: [UInt64] = []
    var delKey: [StoredKey] = []
    /// Del `d`'s preds are `delFlat[delStart[d]..<delStart[d + 1]]`.
    var delStart: [Int32] = []
    var delFlat: [UInt64] = []

    /// Room for `succs` preds, and for `moreOps` stored ops beyond `storedOps`.
    init(storedOps: Int, succs: Int, moreOps: Int = 0) {
      start = []
      start.reserveCapacity(storedOps + 1 + moreOps)
      start.append(contentsOf: repeatElement(0, count: storedOps + 1))
      flat.reserveCapacity(succs)
    }
  }

  /// Where every op goes (§7.5 step 5, and the counter order of step 6): the change rows
  /// are numbered in file order, and row `r`'s ops are `opsByRow[perRow[r]..<perRow[r + 1]]`
  /// in counter order (op numbers as in `Preds`).
  struct Assignment {
    var perRow: [Int32]
    var opsByRow: [Int32]
    /// Rows whose ops are not the consecutive counters up to their max op (invalid).
    var misplaced: [Bool]

    /// An empty array with room for row `r`'s ops.
    func roomForOps(ofRow r: Int) -> [Op] {
      var ops: [Op] = []
      ops.reserveCapacity(Int(perRow[r + 1] - perRow[r]))
      return ops
    }

    /// The first row before which at least half of the ops are, from 1 to the last row
    /// (with two rows or more): where two halves of the rows meet.
    var halfway: Int {
      let rows = perRow.count - 1
      let half = perRow[rows] / 2
      var low = 1
      var high = rows - 1
      while low < high {
        let mid = (low + high) / 2
        if perRow[mid] < half { low = mid + 1 } else { high = mid }
      }
      return low
    }
  }

  /// Each actor's change rows, in file order (§7.5 step 5), with their max ops.
  ///
  /// Actor `a`'s rows are `rows[start[a]..<start[a + 1]]` (one array: a lookup retains
  /// nothing). Its row at `i` owns the counters `bound[i - 1] < c <= bound[i]`.
  /// A lookup starts where that actor's last one ended: a document's ops come in runs of
  /// one change, or of the next change of the same author (typing), so most lookups take no
  /// search.
  struct RowsByActor {
    let rows: [Int32]
    let start: [Int]
    /// `bound[i]` is the max op of `rows[i]` (kept beside it: one load less a lookup).
    let bound: [UInt32]
    /// Per actor, the index in `rows` of its last lookup's row.
    private var last: [Int]

    init(rows: [Int32], start: [Int], maxOp: [UInt32]) {
      self.rows = rows
      self.start = start
      bound = rows.map { maxOp[Int($0)] }
      last = Array(start.dropLast())
    }

    /// The first row of `actor` whose max op is ≥ `counter`; nil when there is none.
    @inline(__always) mutating func first(actor: Int, atLeast counter: UInt32) -> Int32? {
      let lower = start[actor]
      let upper = start[actor + 1]
      let i = last[actor]
      if owns(i, lower, upper, counter) { return rows[i] }
      if owns(i + 1, lower, upper, counter) {
        last[actor] = i + 1
        return rows[i + 1]
      }
      var lo = lower
      var hi = upper
      while lo < hi {
        let mid = (lo + hi) / 2
        if bound[mid] < counter { lo = mid + 1 } else { hi = mid }
      }
      guard lo < upper else { return nil }
      last[actor] = lo
      return rows[lo]
    }

    /// Whether `rows[i]` is the first of `rows[lower..<upper]` whose max op is ≥ `counter`.
    @inline(__always) private func owns(_ i: Int, _ lower: Int, _ upper: Int, _ counter: UInt32)
      -> Bool
    {
      i < upper && bound[i] >= counter && (i == lower || bound[i - 1] < counter)
    }
  }

  /// Stored op `k`'s fields, checked (§7.3, §8.1): what re-encoding and `storedOp` read.
  struct CheckedOp {
    let index: Int
    let object: UInt64
    let key: StoredKey
    let action: Action
    let meta: UInt64
    /// Where its value payload starts in `valRaw`.
    let valueStart: Int
  }

  /// What `reconstruct` returns of the regenerated changes, in row order.
  struct Rebuilt {
    /// The changes; empty when they were not kept (`keepChanges: false`).
    var changes: [Change]
    /// Every change's hash when the changes are not kept; else empty (each change has its
    /// own).
    var hashes: [ChangeHash]
    /// Every change's op count.
    var opCounts: [Int32]
  }

  /// Runs §7.5 steps 1 to 6 and returns the regenerated changes in row order.
  ///
  /// - Parameters:
  ///   - keepChanges: build the `Change` values; else every change is still rebuilt,
  ///     encoded and hashed, and only its hash and op count are kept (a check needs no
  ///     more, and is spared a value of 152 bytes and its references per change).
  ///   - keepOps: keep each change's ops (only with `keepChanges`).
  ///   - chunks: the changes whose canonical chunk is kept (only with `keepChanges`).
  ///   - spareCapacity: room to reserve in `changes` beyond its changes.
  ///   - expected: without `keepChanges`, the hashes the rows are expected to have
  ///     (`rebuiltHashes`: the hashes returned must then be compared with them).
  /// - Returns: the changes (when kept), their hashes and op counts, in row order.
  /// - Throws: `invalidDocument` or a column error for the first invalid op or row.
  mutating func reconstruct(
    keepChanges: Bool = true, keepOps: Bool, chunks: KeptChunks = .all, spareCapacity: Int = 0,
    expected: [ChangeHash]? = nil
  ) throws -> Rebuilt {
    let preds = try predsFromSuccs()
    // The successor columns are consumed: free them before the changes are built.
    succNum = PackedUInts()
    succKeys = []
    let owners = try rowsByActor()
    let assignment = try assignOps(preds, owners)
    return try buildChanges(
      preds, assignment, keepChanges: keepChanges, keepOps: keepOps && keepChanges,
      chunks: chunks, spareCapacity: spareCapacity, expected: expected)
  }

  /// §7.5 steps 1 to 4: rebuilds every op's preds from the succ lists, group by group
  /// (one object and element group, contiguous by §7.4); the succ ids left over in a group
  /// become del ops of that group.
  ///
  /// A chunk of `parallelOps` ops or more is done in two halves at once, split where an
  /// insert starts a group (near the middle), each half's preds numbered from its own first
  /// op, then put together.
  ///
  /// - Throws: `invalidDocument` when the objects are out of order, a column error for an
  ///   invalid object id, key, or a succ list out of order; of two halves, the first's error
  ///   first, as the ops are read in order.
  func predsFromSuccs() throws -> Preds {
    let n = opCount
    guard n >= max(2, Reconstruction.parallelOps), Processors.available > 1,
      let middle = (max(1, n / 2)..<n).first(where: { isInsert($0) })
    else {
      var all = try preds(0..<n, succs: 0..<succKeys.count, after: 0)
      all.delStart.append(Int32(all.delFlat.count))
      return all
    }
    var counted = 0
    for j in 0..<min(middle, succNum.count) { counted += Int(succNum[j]) }
    let succsBefore = counted
    let reader = self
    let (second, first) = alongside(
      onThread: true,
      {
        Result {
          // The op before the middle is in the first half, which checks its object first.
          let previous = (try? reader.objectKey(middle - 1)) ?? 0
          return try reader.preds(
            middle..<n, succs: succsBefore..<reader.succKeys.count, after: previous)
        }
      },
      {
        // Room for the second half's too: it is appended without a copy of this half's.
        Result {
          try preds(
            0..<middle, succs: 0..<succsBefore, after: 0,
            room: (n - middle, succKeys.count - succsBefore))
        }
      })
    // `first` is consumed: held to the end of the scope, it would share the arrays, and
    // the appends below would copy them (moby-dick: 4.7 MB more at the peak).
    var all = try (consume first).get()
    let rest = try second.get()
    let flatBefore = Int32(all.flat.count)
    for s in rest.start.dropFirst() { all.start.append(s + flatBefore) }
    all.flat += rest.flat
    let delFlatBefore = Int32(all.delFlat.count)
    all.delId += rest.delId
    all.delObject += rest.delObject
    all.delKey += rest.delKey
    for s in rest.delStart { all.delStart.append(s + delFlatBefore) }
    all.delFlat += rest.delFlat
    all.delStart.append(Int32(all.delFlat.count))
    return all
  }

  /// `predsFromSuccs` for the ops `range`, which starts a group: their preds, op
  /// `range.lowerBound + k`'s at `start[k]..<start[k + 1]`, and their groups' dels (without
  /// `delStart`'s last entry). Their succs are `succKeys[succs]` (as far as the succ counts
  /// say); the object of the op before them is `after` (0 for none). Its arrays have room
  /// for `room`'s ops and succs more.
  private func preds(
    _ range: Range<Int>, succs: Range<Int>, after: UInt64, room: (ops: Int, succs: Int) = (0, 0)
  ) throws -> Preds {
    let n = range.upperBound
    var preds = Preds(
      storedOps: range.count, succs: succs.count + room.succs, moreOps: room.ops)
    var pairs: [(succ: UInt64, pred: UInt64)] = []
    var matched: [Bool] = []
    var succPos = succs.lowerBound
    let first = range.lowerBound
    var i = first
    var previousObject = after
    while i < n {
      let obj = try objectKey(i)
      guard obj >= previousObject else { throw fail("ops out of order") }
      previousObject = obj
      let k0 = try key(i)
      let group: StoredKey = isInsert(i) ? .element(opId(i)) : k0
      var j = i
      // (Emptying costs a call even on an empty array.)
      if !pairs.isEmpty { pairs.removeAll(keepingCapacity: true) }
      while j < n {
        if j > i {
          guard try objectKey(j) == obj else { break }
          let kj = try key(j)
          if isInsert(j) || !sameKey(kj, group) { break }
        }
        let count = j < succNum.count ? Int(succNum[j]) : 0
        let id = opId(j)
        var previous: UInt64 = 0
        // By index: a slice would retain and release `succKeys` for every op, which two
        // threads doing it at once made slower than one.
        for q in succPos..<(succPos + count) {
          let s = succKeys[q]
          guard s > previous else {
            throw ColumnDecoder.fail(S.succCtr, chunk, "succ out of order")
          }
          previous = s
          pairs.append((s, id))
        }
        succPos += count
        j += 1
      }
      // Group [i, j). Every op must have a valid action and value (checked when built).
      if pairs.isEmpty {
        for o in i..<j { preds.start[o - first + 1] = Int32(preds.flat.count) }
      } else {
        if pairs.count > 1 {
          pairs.sort { $0.succ != $1.succ ? $0.succ < $1.succ : $0.pred < $1.pred }
        }
        matched.removeAll(keepingCapacity: true)
        matched.append(contentsOf: repeatElement(false, count: pairs.count))
        for o in i..<j {
          let id = opId(o)
          var lo = 0
          var hi = pairs.count
          while lo < hi {
            let mid = (lo + hi) / 2
            if pairs[mid].succ < id { lo = mid + 1 } else { hi = mid }
          }
          while lo < pairs.count && pairs[lo].succ == id {
            preds.flat.append(pairs[lo].pred)
            matched[lo] = true
            lo += 1
          }
          preds.start[o - first + 1] = Int32(preds.flat.count)
        }
        var p = 0
        while p < pairs.count {
          if matched[p] {
            p += 1
            continue
          }
          let s = pairs[p].succ
          preds.delId.append(s)
          preds.delObject.append(obj)
          preds.delKey.append(group)
          preds.delStart.append(Int32(preds.delFlat.count))
          while p < pairs.count && pairs[p].succ == s {
            preds.delFlat.append(pairs[p].pred)
            p += 1
          }
        }
      }
      i = j
    }
    return preds
  }

  /// §7.5 step 5, the rows: each actor's change rows in file order, checking that its seqs
  /// are 1, 2, 3, … and its max ops never decrease.
  ///
  /// - Throws: a column error on the seq or max op column.
  func rowsByActor() throws -> RowsByActor {
    var lastRow = [Int32](repeating: -1, count: actors.count)
    var nextSeq = [UInt64](repeating: 1, count: actors.count)
    for r in 0..<rowActor.count {
      let a = Int(rowActor[r])
      guard rowSeq[r] == nextSeq[a] else {
        throw ColumnDecoder.fail(
          S.changeSeq, chunk, "seq \(rowSeq[r]) of actor \(actors[a]) should be \(nextSeq[a])")
      }
      nextSeq[a] += 1
      if lastRow[a] >= 0, rowMaxOp[Int(lastRow[a])] > rowMaxOp[r] {
        throw ColumnDecoder.fail(S.changeMaxOp, chunk, "max op decreases for actor \(actors[a])")
      }
      lastRow[a] = Int32(r)
    }
    // Actor a has nextSeq[a] - 1 rows: its range starts after the actors before it.
    var start = [Int](repeating: 0, count: actors.count + 1)
    for a in actors.indices { start[a + 1] = start[a] + Int(nextSeq[a] - 1) }
    var fill = Array(start.dropLast())
    var rows = [Int32](repeating: 0, count: rowActor.count)
    for r in 0..<rowActor.count {
      let a = Int(rowActor[r])
      rows[fill[a]] = Int32(r)
      fill[a] += 1
    }
    return RowsByActor(rows: rows, start: start, maxOp: rowMaxOp)
  }

  /// The counter of op `k` (numbered as in `Preds`).
  @inline(__always) func counter(_ k: Int, _ preds: Preds) -> UInt32 {
    k < opCount ? idCtr[k] : UInt32(truncatingIfNeeded: preds.delId[k - opCount] >> 32)
  }

  /// The change row of op `k`: its actor's first row whose max op is ≥ its counter.
  ///
  /// - Throws: `invalidDocument` when there is none (Rust: "missing change").
  @inline(__always) func row(of k: Int, _ preds: Preds, _ owners: inout RowsByActor) throws
    -> Int32
  {
    let ctr = counter(k, preds)
    let actor =
      k < opCount ? Int(idActor[k]) : Int(UInt32(truncatingIfNeeded: preds.delId[k - opCount]))
    guard let row = owners.first(actor: actor, atLeast: ctr) else {
      throw AutomergeDecodeError.invalidDocument(
        reason: "op \(ctr)@\(actors[actor]) belongs to no change (missing change)", offset: chunk)
    }
    return row
  }

  /// §7.5 step 5, the ops: assigns every op (stored and synthesized) to its change row, and
  /// puts each row's ops in counter order (step 6).
  ///
  /// Each op goes straight to its place: a valid change's ops are numbered
  /// `startOp...maxOp` with `startOp = maxOp + 1 - count`. A row whose ops do not fit (a
  /// counter below startOp, or two on one slot) is marked `misplaced`: it is invalid, and
  /// `buildChanges` throws its error in row order. The rows are looked up twice (to count,
  /// then to place), which costs less than keeping each op's row.
  ///
  /// - Throws: `invalidDocument` for an op that belongs to no change.
  func assignOps(_ preds: Preds, _ owners: RowsByActor) throws -> Assignment {
    var owners = owners
    let rows = rowActor.count
    let total = opCount + preds.delId.count
    var perRow = [Int32](repeating: 0, count: rows + 1)
    for k in 0..<total {
      perRow[Int(try row(of: k, preds, &owners)) + 1] += 1
    }
    for r in 0..<rows { perRow[r + 1] += perRow[r] }
    var opsByRow = [Int32](repeating: -1, count: total)
    var misplaced = [Bool](repeating: false, count: rows)
    for k in 0..<total {
      let r = Int(try row(of: k, preds, &owners))
      let start = Int(perRow[r])
      let slot =
        Int64(counter(k, preds)) + Int64(Int(perRow[r + 1]) - start) - 1 - Int64(rowMaxOp[r])
      if slot >= 0, opsByRow[start + Int(slot)] < 0 {
        opsByRow[start + Int(slot)] = Int32(k)
      } else {
        misplaced[r] = true
      }
    }
    return Assignment(perRow: perRow, opsByRow: opsByRow, misplaced: misplaced)
  }

  /// The start op of change row `r` with `count` ops (§7.5 step 6).
  ///
  /// - Throws: `invalidDocument` when it has more ops than its max op, or would start at 0.
  @inline(__always) func startOp(ofRow r: Int, count: Int) throws -> UInt64 {
    let maxOp = UInt64(rowMaxOp[r])
    guard UInt64(count) <= maxOp || (count == 0) else {
      throw fail("change \(r) has more ops than its max op")
    }
    let startOp = maxOp + 1 - UInt64(count)
    guard startOp >= 1 else { throw fail("change \(r) has start op 0") }
    return startOp
  }

  /// §7.5 step 6: builds each change row's change, in file order: its actors (the author,
  /// then the others recomputed, §6.4), its ops re-encoded with their preds into the
  /// canonical change chunk (§6.6), its deps' hashes, and its hash.
  ///
  /// With `keepChanges: false` (`reconstruct`'s parameters), `expected` are the hashes the
  /// rows are expected to have, in row order (see `rebuiltHashes`); they are ignored when
  /// there are not as many. Kept changes are built in two parts from `parallelEncodeRows`
  /// rows, as `rebuiltHashes` builds hashes without `expected`, with their ops when
  /// `keepOps` (a save's input); the error thrown is the one the rows one after the other
  /// meet first.
  ///
  /// - Returns: the changes, or their hashes (`Rebuilt`).
  /// - Throws: `invalidDocument` for a row whose ops are not the counters up to its max op,
  ///   and the checks of `checkedOp` on the stored ops, in row order.
  func buildChanges(
    _ preds: Preds, _ assignment: Assignment, keepChanges: Bool, keepOps: Bool,
    chunks: KeptChunks, spareCapacity: Int, expected: [ChangeHash]? = nil
  ) throws -> Rebuilt {
    let rows = rowActor.count
    let arena = stringArena()
    guard keepChanges else {
      let rebuilt = try rebuiltHashes(
        preds, assignment, arena: arena, expected: expected?.count == rows ? expected : nil)
      return Rebuilt(changes: [], hashes: rebuilt.hashes, opCounts: rebuilt.opCounts)
    }
    guard rows >= max(2, Reconstruction.parallelEncodeRows), Processors.available > 1 else {
      return try changes(
        0..<rows, preds, assignment, keepOps: keepOps, chunks: chunks, arena: arena,
        capacity: rows + spareCapacity)
    }
    // As `rebuiltHashes` without `expected`: the second half's rows encoded up to their
    // deps (and their ops built) on the worker while this thread builds the first half's
    // changes, then each of them finished in row order once its deps' hashes are in.
    let middle = assignment.halfway
    let rebuilder = self
    let (second, first) = alongside(
      onThread: true,
      {
        Result {
          try rebuilder.encodedAfterDeps(
            middle..<rows, preds, assignment, arena: arena, keepTables: true, keepOps: keepOps)
        }
      },
      {
        Result {
          try changes(
            0..<middle, preds, assignment, keepOps: keepOps, chunks: chunks, arena: arena,
            capacity: rows + spareCapacity)
        }
      })
    // Consumed, or the first append copies the first part's changes (as `predsFromSuccs`).
    var rebuilt = try (consume first).get()
    let encoded = try second.get()
    var encoder = ChangeEncoder()
    try encoded.forEachRow { k, rest in
      let r = middle + k
      let deps = self.deps(ofRow: r) { rebuilt.changes[$0].hash }
      let hash = encoder.finish(deps: deps, rest: rest)
      rebuilt.changes.append(
        Change(
          hash: hash, actors: encoded.tables[k], seq: rowSeq[r],
          startOp: try startOp(ofRow: r, count: Int(encoded.opCounts[k])), time: rowTime[r],
          message: message(ofRow: r), deps: deps, ops: keepOps ? encoded.ops[k] : [],
          extra: extraBytes(r), chunk: chunks.keeps(hash) ? encoder.lastChunk : []))
    }
    rebuilt.opCounts.append(contentsOf: encoded.opCounts)
    return rebuilt
  }

  /// The changes of rows `range`, one after the other from the first (whose deps must all
  /// be in the range), with their ops when `keepOps`, in arrays with room for `capacity`.
  private func changes(
    _ range: Range<Int>, _ preds: Preds, _ assignment: Assignment, keepOps: Bool,
    chunks: KeptChunks, arena: (bytes: [UInt8], start: [Int]), capacity: Int
  ) throws -> Rebuilt {
    var encoder = ChangeEncoder()
    var changes: [Change] = []
    changes.reserveCapacity(capacity)
    var opCounts: [Int32] = []
    opCounts.reserveCapacity(capacity)
    var state = RowActors(actors)
    // The chunk is encoded straight from the columns; `Op` values are built only when they
    // are kept.
    var ops: [Op]? = nil
    try withRowBytes(arena) { text, values in
      for r in range {
        if keepOps { ops = assignment.roomForOps(ofRow: r) }
        let row = try encodeRow(
          r, preds, assignment, &state, into: &encoder, ops: &ops, arena: arena, text: text,
          values: values)
        let deps = self.deps(ofRow: r) { changes[$0 - range.lowerBound].hash }
        let message = self.message(ofRow: r)
        let extra = extraBytes(r)
        let hash = encoder.finish(
          actors: row.table, seq: rowSeq[r], startOp: row.startOp, time: rowTime[r],
          message: message, deps: deps, extra: extra)
        let chunkBytes = chunks.keeps(hash) ? encoder.lastChunk : []
        changes.append(
          Change(
            hash: hash, actors: row.table, seq: rowSeq[r], startOp: row.startOp,
            time: rowTime[r], message: message, deps: deps, ops: ops ?? [], extra: extra,
            chunk: chunkBytes))
        opCounts.append(Int32(truncatingIfNeeded: row.count))
      }
    }
    return Rebuilt(changes: changes, hashes: [], opCounts: opCounts)
  }

  /// Rows from which `rebuiltHashes` rebuilds a document whose row hashes are expected in
  /// two halves at once, on two threads (a Minuta month has about 2,000).
  static let parallelRebuildRows = 1 << 10

  /// Rows from which `rebuiltHashes` encodes the second half of a document's rows on a
  /// thread of its own when their hashes are not known beforehand (a Minuta month has about
  /// 2,000; `doctor` and `log`, which decode a month per processor, do not split it:
  /// `Processors.available`).
  static let parallelEncodeRows = 1 << 10

  /// Every change row rebuilt, encoded and hashed, without a `Change` value: the hashes and
  /// op counts, in row order.
  ///
  /// A row's chunk holds its deps' hashes, so each row's hash waits for those of the rows it
  /// depends on (earlier rows). Without `expected`, a large document's second half is
  /// encoded on a thread of its own meanwhile, up to its deps (`ChangeEncoder.
  /// finishAfterDeps`), and each of its rows hashed here, in row order, once the first
  /// half's hashes are in (`ChangeEncoder.finish(deps:rest:)`): the bytes hashed are those
  /// `finish` writes. With `expected` (as many hashes as rows, the hashes the caller knows
  /// the rows must have: `DocumentEncoder.save` reading back what it wrote), each row's
  /// deps are taken from there instead, so that no row waits for another: the rows of a
  /// large document are rebuilt in two halves at once. Such hashes prove what the caller
  /// wants only where each one equals the expected one: then, row after row (a row's deps
  /// are earlier rows), each is the hash the rows rebuild to one by one. The caller must
  /// compare them: a wrong expected hash shows in its own row and in the rows that list it
  /// as a dep.
  ///
  /// - Throws: as `buildChanges`; of two halves, the first's error first.
  private func rebuiltHashes(
    _ preds: Preds, _ assignment: Assignment, arena: (bytes: [UInt8], start: [Int]),
    expected: [ChangeHash]?
  ) throws -> (hashes: [ChangeHash], opCounts: [Int32]) {
    let rows = rowActor.count
    let threshold =
      expected == nil ? Reconstruction.parallelEncodeRows : Reconstruction.parallelRebuildRows
    guard rows >= max(2, threshold), Processors.available > 1 else {
      return try rebuiltHashes(
        0..<rows, preds, assignment, arena: arena, expected: expected, capacity: rows)
    }
    let middle = assignment.halfway
    // The second half on the worker: the first, on this thread, makes the arrays that hold
    // both (essay's 262,961 hashes are 8 MB), where this thread's allocator has room that
    // the save's encoding freed.
    let rebuilder = self
    guard let expected else {
      let (second, first) = alongside(
        onThread: true,
        {
          Result { try rebuilder.encodedAfterDeps(middle..<rows, preds, assignment, arena: arena) }
        },
        {
          Result {
            try rebuiltHashes(
              0..<middle, preds, assignment, arena: arena, expected: nil, capacity: rows)
          }
        })
      // Consumed, or the first append copies the first half's hashes (as `predsFromSuccs`).
      var (hashes, opCounts) = try (consume first).get()
      let encoded = try second.get()
      var encoder = ChangeEncoder()
      encoded.forEachRow { k, rest in
        let deps = self.deps(ofRow: middle + k) { hashes[$0] }
        hashes.append(encoder.finish(deps: deps, rest: rest))
      }
      opCounts.append(contentsOf: encoded.opCounts)
      return (hashes, opCounts)
    }
    let (second, first) = alongside(
      onThread: true,
      {
        Result {
          try rebuilder.rebuiltHashes(
            middle..<rows, preds, assignment, arena: arena, expected: expected,
            capacity: rows - middle)
        }
      },
      {
        Result {
          try rebuiltHashes(
            0..<middle, preds, assignment, arena: arena, expected: expected, capacity: rows)
        }
      })
    var (hashes, opCounts) = try (consume first).get()
    let rest = try second.get()
    hashes.append(contentsOf: rest.hashes)
    opCounts.append(contentsOf: rest.opCounts)
    return (hashes, opCounts)
  }

  /// The rows whose encoded size `encodedAfterDeps` takes for that of the others. A range of
  /// fewer rows (a Minuta month's second half has about a thousand) grows by doubling:
  /// reserving for it after an eighth of its rows lowered the heap's peak of the months'
  /// merge by 0.6 MB and raised its resident peak by 0.3 MB.
  static let sizingRows = 1 << 10

  /// Change rows encoded up to their deps (`encodedAfterDeps`): the `k`-th row of the range
  /// ends at `ends[k]` in `bytes`.
  struct RowsAfterDeps {
    var bytes: [UInt8]
    var ends: [Int]
    var opCounts: [Int32]
    /// Their actor tables, when asked for.
    var tables: [[ActorId]]
    /// Their ops, when asked for.
    var ops: [[Op]] = []

    /// Calls `body` with each row's place in the range and what follows its deps, in order.
    func forEachRow(_ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
      try bytes.withUnsafeBufferPointer { all in
        var start = 0
        for (k, end) in ends.enumerated() {
          try body(k, UnsafeBufferPointer(rebasing: all[start..<end]))
          start = end
        }
      }
    }
  }

  /// The change rows `range` encoded up to their deps (`ChangeEncoder.finishAfterDeps`),
  /// one after the other, their op counts, with `keepTables` their actor tables, and with
  /// `keepOps` their ops.
  private func encodedAfterDeps(
    _ range: Range<Int>, _ preds: Preds, _ assignment: Assignment,
    arena: (bytes: [UInt8], start: [Int]), keepTables: Bool = false, keepOps: Bool = false
  ) throws -> RowsAfterDeps {
    var encoder = ChangeEncoder()
    var bytes: [UInt8] = []
    var ends: [Int] = []
    ends.reserveCapacity(range.count)
    var opCounts: [Int32] = []
    opCounts.reserveCapacity(range.count)
    var tables: [[ActorId]] = []
    if keepTables { tables.reserveCapacity(range.count) }
    var state = RowActors(actors)
    var ops: [Op]? = nil
    var rowOps: [[Op]] = []
    if keepOps { rowOps.reserveCapacity(range.count) }
    try withRowBytes(arena) { text, values in
      for r in range {
        if keepOps { ops = assignment.roomForOps(ofRow: r) }
        let row = try encodeRow(
          r, preds, assignment, &state, into: &encoder, ops: &ops, arena: arena, text: text,
          values: values)
        if keepTables { tables.append(row.table) }
        if keepOps { rowOps.append(ops ?? []) }
        encoder.finishAfterDeps(
          actors: row.table, seq: rowSeq[r], startOp: row.startOp, time: rowTime[r],
          message: self.message(ofRow: r), extra: extraBytes(r), into: &bytes)
        ends.append(bytes.count)
        opCounts.append(Int32(truncatingIfNeeded: row.count))
        // Room for the rest at the first rows' mean size, and an eighth more: growing by
        // doubling held up to twice the bytes, and a copy of them, at the end.
        if ends.count == Reconstruction.sizingRows {
          bytes.reserveCapacity(bytes.count / ends.count * range.count * 9 / 8)
        }
      }
    }
    return RowsAfterDeps(bytes: bytes, ends: ends, opCounts: opCounts, tables: tables, ops: rowOps)
  }

  /// The hashes and op counts of the change rows `range`: from the first row, with each
  /// row's deps' hashes rebuilt here, or with `expected` (see `rebuiltHashes`), in arrays
  /// with room for `capacity` rows.
  private func rebuiltHashes(
    _ range: Range<Int>, _ preds: Preds, _ assignment: Assignment,
    arena: (bytes: [UInt8], start: [Int]), expected: [ChangeHash]?, capacity: Int
  ) throws -> (hashes: [ChangeHash], opCounts: [Int32]) {
    var encoder = ChangeEncoder()
    var hashes: [ChangeHash] = []
    hashes.reserveCapacity(capacity)
    var opCounts: [Int32] = []
    opCounts.reserveCapacity(capacity)
    var state = RowActors(actors)
    var ops: [Op]? = nil
    try withRowBytes(arena) { text, values in
      for r in range {
        let row = try encodeRow(
          r, preds, assignment, &state, into: &encoder, ops: &ops, arena: arena, text: text,
          values: values)
        // Without `expected` the range starts at row 0, and every dep is an earlier row.
        let deps = self.deps(ofRow: r) { expected?[$0] ?? hashes[$0 - range.lowerBound] }
        hashes.append(
          encoder.finish(
            actors: row.table, seq: rowSeq[r], startOp: row.startOp, time: rowTime[r],
            message: self.message(ofRow: r), deps: deps, extra: extraBytes(r)))
        opCounts.append(Int32(truncatingIfNeeded: row.count))
      }
    }
    return (hashes, opCounts)
  }

  /// Runs `body` with what encoding rows reads in place: the string table's bytes
  /// (`stringArena`'s) and the values' raw bytes.
  private func withRowBytes<T>(
    _ arena: (bytes: [UInt8], start: [Int]),
    _ body: (StringTable, UnsafeBufferPointer<UInt8>) throws -> T
  ) rethrows -> T {
    try arena.bytes.withUnsafeBufferPointer { arenaBytes in
      try valRaw.withUnsafeBufferPointer { values in
        try body(StringTable(bytes: arenaBytes, start: arena.start), values)
      }
    }
  }

  /// What rebuilding rows needs of its own, one per thread: the actor tables made so far,
  /// and the change-local number of each actor the row being built names (`local`, all -1
  /// between rows; `others`, those actors but the author).
  struct RowActors {
    var tables: ActorTables
    var local: [Int32]
    var others: [Int32] = []

    init(_ actors: [ActorId]) {
      tables = ActorTables(actors: actors)
      local = [Int32](repeating: -1, count: actors.count)
    }
  }

  /// Encodes change row `r`'s ops into `encoder`, and appends their `Op` values to `ops`
  /// unless it is nil.
  ///
  /// - Returns: the row's actor table, start op and op count.
  /// - Throws: as `buildChanges`, for this row.
  @inline(__always) private func encodeRow(
    _ r: Int, _ preds: Preds, _ assignment: Assignment, _ state: inout RowActors,
    into encoder: inout ChangeEncoder, ops: inout [Op]?, arena: (bytes: [UInt8], start: [Int]),
    text: StringTable, values: UnsafeBufferPointer<UInt8>
  ) throws -> (table: [ActorId], startOp: UInt64, count: Int) {
    let n = opCount
    let author = Int(rowActor[r])
    let start = Int(assignment.perRow[r])
    let end = Int(assignment.perRow[r + 1])
    let count = end - start
    let startOp = try self.startOp(ofRow: r, count: count)
    // A misplaced row fails the first check a valid row passes, and its counters can only
    // fail by not being consecutive.
    guard !assignment.misplaced[r] else {
      throw fail("ops of change \(r) are not consecutive from \(startOp)")
    }
    let counters = assignment.opsByRow[start..<end]
    try noteOtherActors(
      counters, author: author, preds, local: &state.local, others: &state.others)
    let table = state.tables.table(author: author, others: state.others)
    state.local[author] = 0
    for (q, a) in state.others.enumerated() { state.local[Int(a)] = Int32(q + 1) }
    if count >= Reconstruction.splitRowOps && Processors.available > 1 {
      try encodeOnTwoThreads(
        counters, local: state.local, preds, into: &encoder, arena: arena, text: text)
    } else {
      for c in counters {
        let k = Int(c)
        if k < n {
          let op = try checkedOp(k, values: values)
          encodeStoredOp(op, local: state.local, preds, into: &encoder, text: text, values: values)
        } else {
          encodeDeletion(k - n, local: state.local, preds, into: &encoder, text: text)
        }
      }
    }
    if ops != nil { try appendOps(counters, local: state.local, preds, values: values, to: &ops) }
    state.local[author] = -1
    for a in state.others { state.local[Int(a)] = -1 }
    return (table, startOp, count)
  }

  /// Ops from which a change row is encoded on two threads (`encodeOnTwoThreads`): a
  /// document made in one change (godot-thread's has 9.36 M ops, moby-dick's 1.24 M),
  /// where rows cannot be spread over threads; a Minuta change has a few dozen.
  static let splitRowOps = 1 << 16

  /// Encodes the ops `counters` of a change row on two threads: their objects, keys and
  /// flags into `encoder` on this one, the rest of their columns (values, preds, expands,
  /// mark names: `ChangeEncoder.LaterColumns`) on a worker, which `encoder` then adopts.
  /// The worker checks each op whole, as the one-thread loop does, so the row fails with
  /// the error that loop gives, and what this thread wrote is kept only when it passed.
  @inline(never) private func encodeOnTwoThreads(
    _ counters: ArraySlice<Int32>, local: [Int32], _ preds: Preds,
    into encoder: inout ChangeEncoder, arena: (bytes: [UInt8], start: [Int]), text: StringTable
  ) throws {
    let n = opCount
    let rebuilder = self
    let (later, front) = alongside(
      onThread: true,
      {
        Result {
          try rebuilder.withRowBytes(arena) { text, values in
            var e = ChangeEncoder()
            for c in counters {
              let k = Int(c)
              if k < n {
                let op = try rebuilder.checkedOp(k, values: values)
                rebuilder.encodeAfterFlags(
                  op, local: local, preds, into: &e, text: text, values: values)
              } else {
                rebuilder.encodeDeletionAfterFlags(k - n, local: local, preds, into: &e)
              }
            }
            return e.takeLaterColumns()
          }
        }
      },
      {
        Result {
          for c in counters {
            let k = Int(c)
            if k < n {
              encodeObject(try objectKey(k), local, into: &encoder)
              encodeKey(try key(k), local, into: &encoder, text: text)
              // An invalid action fails the worker's check, which then discards this.
              encoder.appendFlags(
                insert: isInsert(k), action: UInt8(truncatingIfNeeded: actionValue(k)))
            } else {
              encodeObject(preds.delObject[k - n], local, into: &encoder)
              encodeKey(preds.delKey[k - n], local, into: &encoder, text: text)
              encoder.appendFlags(insert: false, action: Action.delete.rawValue)
            }
          }
        }
      })
    // The worker's error first: it checks every part of each op, objects and keys first.
    encoder.adopt(try later.get())
    try front.get()
  }

  /// Appends the `Op` values of a row's ops `counters` to `ops`, with the row's actor
  /// numbering `local`: a loop of its own, which only a decode that keeps the ops runs, so
  /// that the encoding loop every check runs stays small.
  @inline(never) private func appendOps(
    _ counters: ArraySlice<Int32>, local: [Int32], _ preds: Preds,
    values: UnsafeBufferPointer<UInt8>, to ops: inout [Op]?
  ) throws {
    let n = opCount
    for c in counters {
      let k = Int(c)
      if k < n {
        ops?.append(
          try storedOp(try checkedOp(k, values: values), local: local, preds, values: values))
      } else {
        ops?.append(deletionOp(k - n, local: local, preds))
      }
    }
  }

  /// Appends to `others` every actor other than `author` that the ops `counters` name
  /// (objects, keys, preds), once, sorted by bytes (= index order; §6.4). `local` marks the
  /// actors noted (≥ 0) and is all -1 on entry.
  private func noteOtherActors(
    _ counters: ArraySlice<Int32>, author: Int, _ preds: Preds, local: inout [Int32],
    others: inout [Int32]
  ) throws {
    let n = opCount
    if !others.isEmpty { others.removeAll(keepingCapacity: true) }
    @inline(__always) func note(_ a: Int) {
      if a != author && local[a] < 0 {
        local[a] = 0
        others.append(Int32(a))
      }
    }
    for c in counters {
      let k = Int(c)
      let objKey: UInt64
      let opKey: StoredKey
      let ps: Int
      let pe: Int
      if k < n {
        objKey = try objectKey(k)
        opKey = try key(k)
        ps = Int(preds.start[k])
        pe = Int(preds.start[k + 1])
      } else {
        objKey = preds.delObject[k - n]
        opKey = preds.delKey[k - n]
        ps = Int(preds.delStart[k - n])
        pe = Int(preds.delStart[k - n + 1])
      }
      if objKey != 0 { note(Int(UInt32(truncatingIfNeeded: objKey))) }
      if case .element(let e) = opKey { note(Int(UInt32(truncatingIfNeeded: e))) }
      if k < n {
        for p in ps..<pe { note(Int(UInt32(truncatingIfNeeded: preds.flat[p]))) }
      } else {
        for p in ps..<pe { note(Int(UInt32(truncatingIfNeeded: preds.delFlat[p]))) }
      }
    }
    others.sort()
  }

  /// The deps of change row `r`: the hashes of the rows it lists, sorted (§7.5 step 6;
  /// every one is an earlier row, checked by `decodeChangeColumns`).
  /// `hash(j)` is the hash of row `j` (a closure, not a collection: a lazy map over the
  /// changes copied each `Change` it read, its references retained and released).
  @inline(__always) private func deps(ofRow r: Int, hash: (Int) -> ChangeHash) -> ChangeDeps {
    let ds = rowDepsStart[r]
    let de = rowDepsStart[r + 1]
    switch de - ds {
    case 0: return []
    case 1: return ChangeDeps(one: hash(Int(depsIndex[ds])))
    default: return ChangeDeps(depsIndex[ds..<de].map { hash(Int($0)) }.sorted())
    }
  }

  /// The message of change row `r`; nil when null or empty.
  private func message(ofRow r: Int) -> String? {
    guard r < rowMessage.count, rowMessage[r] >= 0 else { return nil }
    let m = messages[Int(rowMessage[r])]
    return m.isEmpty ? nil : m
  }

  /// The UTF-8 bytes of every entry of `strings`, back to back, and where each starts.
  private func stringArena() -> (bytes: [UInt8], start: [Int]) {
    var bytes: [UInt8] = []
    var start: [Int] = []
    start.reserveCapacity(strings.count + 1)
    for var s in strings {
      start.append(bytes.count)
      s.withUTF8 { bytes.append(contentsOf: $0) }
    }
    start.append(bytes.count)
    return (bytes, start)
  }

  /// Checks stored op `k` (§7.3, §8.1): the one validator of a stored op, for both its
  /// re-encoding and its `Op`.
  ///
  /// - Parameters:
  ///   - k: the stored op's index.
  ///   - values: `valRaw`'s bytes.
  /// - Returns: its object, key, action and value, checked.
  /// - Throws: a column error, in this order: an invalid object id, an invalid key, an
  ///   unrecognized action, an invalid value, an increment without an integer value.
  @inline(__always) func checkedOp(_ k: Int, values: UnsafeBufferPointer<UInt8>) throws
    -> CheckedOp
  {
    let objKey = try objectKey(k)
    let opKey = try key(k)
    let a = actionValue(k)
    guard a <= 7, let action = Action(rawValue: UInt8(a)) else {
      throw ColumnDecoder.fail(
        S.action, chunk,
        "unrecognized action index \(a == ColumnDecoder.nullUInt ? "null" : String(a))")
    }
    let m = meta(k)
    let start = valueStart(k)
    try ValueDecoder.validate(meta: m, raw: values, start: start, spec: S.valRaw, chunk: chunk)
    if action == .increment {
      let code = m & 0x0f
      guard code == 3 || code == 4 else {
        throw ColumnDecoder.fail(S.valMeta, chunk, "increment without an integer value")
      }
    }
    return CheckedOp(
      index: k, object: objKey, key: opKey, action: action, meta: m, valueStart: start)
  }

  /// Appends checked stored op `op` to the change being encoded (§6.6).
  @inline(__always) private func encodeStoredOp(
    _ op: CheckedOp, local: [Int32], _ preds: Preds, into e: inout ChangeEncoder,
    text: StringTable, values: UnsafeBufferPointer<UInt8>
  ) {
    encodeObject(op.object, local, into: &e)
    encodeKey(op.key, local, into: &e, text: text)
    e.appendFlags(insert: isInsert(op.index), action: op.action.rawValue)
    encodeAfterFlags(op, local: local, preds, into: &e, text: text, values: values)
  }

  /// Appends what follows the object, key and flags of checked stored op `op` (its value,
  /// preds, expand and mark name) to the change being encoded.
  @inline(__always) private func encodeAfterFlags(
    _ op: CheckedOp, local: [Int32], _ preds: Preds, into e: inout ChangeEncoder,
    text: StringTable, values: UnsafeBufferPointer<UInt8>
  ) {
    let k = op.index
    e.appendValue(
      meta: op.meta,
      payload: UnsafeBufferPointer(
        rebasing: values[op.valueStart..<(op.valueStart + Int(op.meta >> 4))]))
    let ps = Int(preds.start[k])
    let pe = Int(preds.start[k + 1])
    e.appendPredCount(pe - ps)
    for p in ps..<pe { encodePred(preds.flat[p], local, into: &e) }
    e.appendExpand(k < expand.count ? expand[k] : false)
    if k < markName.count && markName[k] >= 0 {
      e.appendMarkName(text[Int(markName[k])])
    } else {
      e.appendMarkName(nil)
    }
  }

  /// Appends synthesized del `d` to the change being encoded (§6.6).
  @inline(__always) private func encodeDeletion(
    _ d: Int, local: [Int32], _ preds: Preds, into e: inout ChangeEncoder, text: StringTable
  ) {
    encodeObject(preds.delObject[d], local, into: &e)
    encodeKey(preds.delKey[d], local, into: &e, text: text)
    e.appendFlags(insert: false, action: Action.delete.rawValue)
    encodeDeletionAfterFlags(d, local: local, preds, into: &e)
  }

  /// Appends what follows the object, key and flags of synthesized del `d` to the change
  /// being encoded.
  @inline(__always) private func encodeDeletionAfterFlags(
    _ d: Int, local: [Int32], _ preds: Preds, into e: inout ChangeEncoder
  ) {
    let ps = Int(preds.delStart[d])
    let pe = Int(preds.delStart[d + 1])
    e.appendNullValue()
    e.appendPredCount(pe - ps)
    for p in ps..<pe { encodePred(preds.delFlat[p], local, into: &e) }
    e.appendExpand(false)
    e.appendMarkName(nil)
  }

  @inline(__always) private func encodeObject(
    _ packed: UInt64, _ local: [Int32], into e: inout ChangeEncoder
  ) {
    if packed == 0 {
      e.appendRootObject()
    } else {
      let id = localId(packed, local)
      e.appendObject(actor: id.actor, counter: id.counter)
    }
  }

  @inline(__always) private func encodeKey(
    _ key: StoredKey, _ local: [Int32], into e: inout ChangeEncoder, text: StringTable
  ) {
    switch key {
    case .map(let s): e.appendMapKey(text[s])
    case .head: e.appendHeadKey()
    case .element(let v):
      let id = localId(v, local)
      e.appendElementKey(actor: id.actor, counter: id.counter)
    }
  }

  @inline(__always) private func encodePred(
    _ packed: UInt64, _ local: [Int32], into e: inout ChangeEncoder
  ) {
    let id = localId(packed, local)
    e.appendPred(actor: id.actor, counter: id.counter)
  }

  /// The extra bytes of change row `r` (a bytes value, code 7).
  private func extraBytes(_ r: Int) -> [UInt8] {
    guard r + 1 < extraStart.count else { return [] }
    let s = extraStart[r]
    let e = extraStart[r + 1]
    return e > s ? Array(extraRaw[s..<e]) : []
  }

  @inline(__always) private func localId(_ packed: UInt64, _ local: [Int32]) -> OpId {
    let a = Int(UInt32(truncatingIfNeeded: packed))
    return OpId(counter: UInt32(truncatingIfNeeded: packed >> 32), actor: UInt32(local[a]))
  }

  /// The model's key for a stored key, with change-local actor indices.
  @inline(__always) private func modelKey(_ key: StoredKey, _ local: [Int32]) -> Key {
    switch key {
    case .map(let s): return .map(strings[s])
    case .head: return .head
    case .element(let v): return .element(localId(v, local))
    }
  }

  /// The `Op` of checked stored op `op`, with change-local actor indices.
  ///
  /// - Throws: nothing `checkedOp` has not already thrown (its value decodes).
  private func storedOp(
    _ op: CheckedOp, local: [Int32], _ preds: Preds, values: UnsafeBufferPointer<UInt8>
  ) throws -> Op {
    let k = op.index
    let value = try ValueDecoder.decode(
      meta: op.meta, raw: values, start: op.valueStart, spec: S.valRaw, chunk: chunk)
    let ps = Int(preds.start[k])
    let pe = Int(preds.start[k + 1])
    var pred: [OpId] = []
    if pe > ps {
      pred.reserveCapacity(pe - ps)
      for p in ps..<pe { pred.append(localId(preds.flat[p], local)) }
    }
    let name: String? = k < markName.count && markName[k] >= 0 ? strings[Int(markName[k])] : nil
    return Op(
      object: op.object == 0 ? .root : .object(localId(op.object, local)),
      key: modelKey(op.key, local), insert: isInsert(k), action: op.action, value: value,
      pred: pred, expand: k < expand.count ? expand[k] : false, markName: name)
  }

  /// The `Op` of synthesized del `d`, with change-local actor indices.
  private func deletionOp(_ d: Int, local: [Int32], _ preds: Preds) -> Op {
    let ps = Int(preds.delStart[d])
    let pe = Int(preds.delStart[d + 1])
    var pred: [OpId] = []
    pred.reserveCapacity(pe - ps)
    for p in ps..<pe { pred.append(localId(preds.delFlat[p], local)) }
    let object = preds.delObject[d]
    return Op(
      object: object == 0 ? .root : .object(localId(object, local)),
      key: modelKey(preds.delKey[d], local), insert: false, action: .delete, value: .null,
      pred: pred)
  }
}
