import Threads

/// Why a set of changes cannot be written as one document chunk (§7.7).
public enum AutomergeSaveError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The input does not decode.
  case invalidInput(AutomergeDecodeError)
  /// An op targets an object that no op of the file creates, uses a key its object's kind
  /// cannot hold, names a pred outside its own object and key, or deletes nothing: a
  /// document chunk has no row for it, or would read it back as another op (§7.4, §7.5).
  case unplaceableOp(counter: UInt32, actor: ActorId, String)
  /// A pred names no op of the file, or a deletion: a document stores preds only as the
  /// succs of the ops they name (§7.7 step 4).
  case unrepresentablePred(counter: UInt32, actor: ActorId)
  /// The written document does not read back to exactly the input's changes.
  case verificationFailed(String)

  public var description: String {
    switch self {
    case .invalidInput(let e): return "not a valid automerge file: \(e)"
    case .unplaceableOp(let c, let a, let why): return "op \(c)@\(a) \(why)"
    case .unrepresentablePred(let c, let a):
      return "a pred names \(c)@\(a), which is no op a document can store"
    case .verificationFailed(let why): return "the saved document does not verify: \(why)"
    }
  }
}

/// A file written as one document chunk, as Automerge's `save()` writes it.
public struct SavedDocument: Sendable {
  /// The document chunk, followed by the orphans' change chunks (as `save()` keeps them).
  public var bytes: [UInt8]
  /// The number of changes written (orphans included).
  public var changeCount: Int
  /// The heads, sorted.
  public var heads: [ChangeHash]
}

/// Writes the changes of a file as one document chunk (§7.7), as Automerge's `save()` does.
public enum DocumentEncoder {
  /// Decodes `bytes` (fully verified), writes its changes as one document chunk with its
  /// orphans after it as their original change chunks, and reads the result back: it must
  /// hold exactly the input's changes and heads.
  ///
  /// - Throws: `AutomergeSaveError`.
  public static func save(_ bytes: [UInt8]) throws -> SavedDocument {
    var file: AutomergeFile
    do {
      file = try AutomergeFile.decode(bytes, keepOps: true, keepChunks: false)
    } catch let e as AutomergeDecodeError {
      throw AutomergeSaveError.invalidInput(e)
    }
    let encoded = try encode(file)
    var out = encoded.chunk
    let rowPositions = encoded.rows
    if !file.orphans.isEmpty {
      // Orphans are written as they came (Rust's `raw_bytes`), never re-encoded.
      let orphans = Set(file.orphans)
      let kept = try AutomergeFile.decode(
        bytes, keepOps: false, chunks: .only { orphans.contains($0) }, inspectFirstDocument: nil)
      for hash in file.orphans { out += kept.change(hash)?.chunk ?? [] }
    }
    // A change chunk that is not canonical shows as a read-back that differs: only then is
    // one looked for (re-encoding every change up front cost the month's save 11% more).
    let rows = file.changes.count - file.orphans.count
    // The ops are not needed again unless the read-back fails (`checkCanonical` re-encodes
    // the changes): they are let go before the read-back, so that it does not hold both,
    // and the input is decoded again in that case only.
    for i in file.changes.indices { file.changes[i].ops = [] }
    let rowHashes = rowPositions.map { file.changes[$0].hash }
    func refuseNonCanonical() throws {
      let again = try AutomergeFile.decode(bytes, keepOps: true, keepChunks: false)
      try DocumentEncoder.checkCanonical(again, rows: rows)
    }
    // Read back as a check reads a file (`verify`: every change rebuilt, encoded and hashed,
    // without a `Change` value each), with the hash of each of its changes. Each row of the
    // document must hash to the input's change written there: the rows are rebuilt with
    // those hashes as their deps', which lets a large document's rows be rebuilt in two
    // halves at once, and proves the rows' true hashes only when every row's is the one
    // expected (`Reconstruction.rebuiltHashes`), as checked here.
    let back: (facts: AutomergeFile.Verification, hashes: [ChangeHash])
    do {
      back = try AutomergeFile.verifyListing(out, expected: rowHashes)
    } catch {
      try refuseNonCanonical()
      throw AutomergeSaveError.verificationFailed("it does not decode: \(error)")
    }
    // The read-back's changes are distinct (its decode skips duplicates), so as many of
    // them as the input has, each one of the input's, are the input's changes; the
    // document's rows come first, each the one written there.
    guard back.hashes.count == file.changes.count,
      back.hashes.starts(with: rowHashes),
      back.hashes[rowHashes.count...].allSatisfy({ file.contains($0) })
    else {
      try refuseNonCanonical()
      throw AutomergeSaveError.verificationFailed("its changes differ from the input's")
    }
    guard back.facts.heads == file.heads, back.facts.orphans.sorted() == file.orphans.sorted()
    else {
      try refuseNonCanonical()
      throw AutomergeSaveError.verificationFailed("its heads differ from the input's")
    }
    return SavedDocument(bytes: out, changeCount: back.facts.changeCount, heads: back.facts.heads)
  }

  /// The document chunk of a decoded file's applied changes (decoded with its ops), in the
  /// file's order; the orphans are not in it. `rows` is the position in `file.changes` of
  /// each of its change rows, in row order.
  static func encode(_ file: AutomergeFile) throws -> (chunk: [UInt8], rows: [Int]) {
    let rows = file.changes.count - file.orphans.count
    let order = rowOrder(file)
    guard order.count == rows else {
      throw AutomergeSaveError.verificationFailed("its changes cannot be put in a causal order")
    }
    let rowOf = rowNumbers(order, changes: file.changes.count)
    // Two pairs of steps that share nothing run at once in a large file, each pair's errors
    // thrown in the order of the steps one after the other. The change columns come first:
    // they refuse changes a document cannot number, and the op table's lookups rely on each
    // actor's changes having op ranges that do not overlap (`collect` reads the changes
    // only). Then the succs and the ops' order, both from what `collect` made.
    let atOnce = file.opCount >= DocumentEncoder.parallelOps && Processors.available > 1
    var table = OpTable(file: file, rows: rows)
    let (changeColumns, collected) = alongside(
      onThread: atOnce,
      { Result { try DocumentEncoder.changeColumns(file, rows: order, rowOf: rowOf) } },
      { Result { try table.collect() } })
    let changeColumnsBytes = try changeColumns.get()
    try collected.get()
    let ordering = table
    let (opOrder, linked) = alongside(
      onThread: atOnce, { Result { try ordering.documentOrder() } },
      { Result { try table.linkSuccessors() } })
    try linked.get()
    let opColumns = table.columns(try opOrder.get(), atOnce: atOnce)

    var body = ByteWriter()
    body.uleb(UInt64(file.actors.count))
    for a in file.actors { body.byteString(a.bytes) }
    body.uleb(UInt64(file.heads.count))
    for h in file.heads { body.hash(h) }
    for columns in [changeColumnsBytes, opColumns] {
      body.uleb(UInt64(columns.count))
      for (spec, data) in columns {
        body.uleb(UInt64(spec))
        body.uleb(UInt64(data.count))
      }
    }
    for (_, data) in changeColumnsBytes { body.append(data) }
    for (_, data) in opColumns { body.append(data) }
    for h in file.heads { body.uleb(UInt64(rowOf[file.position(of: h) ?? 0])) }
    return (ChangeEncoder.wrap(type: 0, body: body.bytes).chunk, order)
  }

  /// Per change of a file (`changes` of them), its row in `order` (0 for those not in it).
  private static func rowNumbers(_ order: [Int], changes: Int) -> [Int32] {
    var rowOf = [Int32](repeating: 0, count: changes)
    for (r, p) in order.enumerated() { rowOf[p] = Int32(r) }
    return rowOf
  }

  /// A change chunk's hash covers its bytes as they are stored, while a load of a document
  /// rebuilds each change's canonical chunk (§7.5 step 6): a change whose stored chunk is
  /// not canonical (an empty column written out, say) comes back with another hash: such
  /// a save is refused as one of that change. A document's own changes were rebuilt so when they were decoded; the
  /// orphans are written as their own bytes.
  private static func checkCanonical(_ file: AutomergeFile, rows: Int) throws {
    var encoder = ChangeEncoder()
    for info in file.chunks where info.type != .document {
      for hash in info.changes {
        guard let p = file.position(of: hash), p < rows else { continue }
        let c = file.changes[p]
        let canonical = encoder.encode(
          actors: c.actors, seq: c.seq, startOp: c.startOp, time: c.time, message: c.message,
          deps: c.deps, ops: c.ops, extra: c.extra
        ).hash
        guard canonical == hash else {
          throw AutomergeSaveError.unplaceableOp(
            counter: UInt32(truncatingIfNeeded: c.startOp), actor: c.author,
            "starts change seq \(c.seq), whose chunk is not in the canonical form a document "
              + "rebuilds it in")
        }
      }
    }
  }

  /// The order in which Rust's load applies a file's changes, which its `save()` keeps as
  /// the change rows (positions in `file.changes`, orphans left out): a first document
  /// chunk's changes in their row order, then the other chunks' new changes sorted as
  /// Rust 0.11 sorts a batch (`ChangeQueue::pop_topo_sorted_ready`): Kahn's algorithm, a
  /// FIFO queue started with the changes whose deps are all in that first document, in
  /// file order.
  static func rowOrder(_ file: AutomergeFile) -> [Int] {
    let applied = file.changes.count - file.orphans.count
    let firstIsDocument = file.chunks.first?.type == .document
    let prefix = firstIsDocument ? file.chunks[0].changes.count : 0
    var order = Array(0..<prefix)
    if prefix == applied { return order }
    var taken = [Bool](repeating: false, count: file.changes.count)
    for i in 0..<prefix { taken[i] = true }
    var batch: [Int] = []  // the other changes, first occurrence, in file order
    for chunk in file.chunks.dropFirst(firstIsDocument ? 1 : 0) {
      for hash in chunk.changes {
        guard let p = file.position(of: hash), !taken[p] else { continue }
        taken[p] = true
        if p < applied { batch.append(p) }
      }
    }
    var unsatisfied = [Int](repeating: 0, count: batch.count)
    var waiting: [ChangeHash: [Int]] = [:]
    var ready: [Int] = []
    for (k, p) in batch.enumerated() {
      for d in file.changes[p].deps {
        if let q = file.position(of: d), q < prefix { continue }
        unsatisfied[k] += 1
        waiting[d, default: []].append(k)
      }
      if unsatisfied[k] == 0 { ready.append(k) }
    }
    var next = 0
    while next < ready.count {
      let k = ready[next]
      next += 1
      order.append(batch[k])
      for w in waiting.removeValue(forKey: file.changes[batch[k]].hash) ?? [] {
        unsatisfied[w] -= 1
        if unsatisfied[w] == 0 { ready.append(w) }
      }
    }
    return order
  }

  /// The change metadata columns (§7.2) of the changes at `rows`, in that order, non-empty
  /// ones only, deflated where Rust does.
  ///
  /// A document numbers each actor's changes 1, 2, 3, … in row order and gives each the ops
  /// after its predecessor's up to its max op (§7.5 step 5), so changes that do not fit that
  /// (a seq 0 or a gap, ops that overlap or go back) are refused: they would read back as
  /// other changes. Automerge 0.6.1 loads such changes (0.11 refuses a seq 0 as a
  /// duplicate), but its `save()` then writes a document that does not load.
  private static func changeColumns(_ file: AutomergeFile, rows: [Int], rowOf: [Int32]) throws
    -> [(UInt32, [UInt8])]
  {
    var actor = RLEEncoder<UInt64>()
    var seq = DeltaEncoder()
    var maxOp = DeltaEncoder()
    var time = DeltaEncoder()
    var message = StringRLEEncoder()
    var depsNum = RLEEncoder<UInt64>()
    var depsIndex = DeltaEncoder()
    var extra = ValueEncoder()
    var authorIndex: [ActorId: UInt64] = [:]
    for (i, a) in file.actors.enumerated() { authorIndex[a] = UInt64(i) }
    // Consecutive changes mostly have one author: its index is reused, not hashed again.
    var lastAuthor: (actor: ActorId, index: UInt64)? = nil
    // Per author: the seq its next change must have, and the first op it may have.
    var nextSeq = [UInt64](repeating: 1, count: file.actors.count)
    var nextOp = [UInt64](repeating: 1, count: file.actors.count)
    for p in rows {
      // The change's fields are read in place: a copy of the `Change` would retain them all.
      let author = file.changes[p].author
      let (changeSeq, startOp) = (file.changes[p].seq, file.changes[p].startOp)
      if lastAuthor?.actor != author { lastAuthor = (author, authorIndex[author] ?? 0) }
      let a = Int(lastAuthor?.index ?? 0)
      guard changeSeq == nextSeq[a], startOp >= nextOp[a] else {
        throw AutomergeSaveError.unplaceableOp(
          counter: UInt32(truncatingIfNeeded: startOp), actor: author,
          "starts change seq \(changeSeq), where a document has this actor's seq "
            + "\(nextSeq[a]) with ops from \(nextOp[a]) on")
      }
      nextSeq[a] += 1
      nextOp[a] = startOp + UInt64(file.changes[p].ops.count)
      actor.append(UInt64(a))
      seq.append(Int64(changeSeq))
      maxOp.append(Int64(file.changes[p].maxOp))
      time.append(file.changes[p].time)
      if let m = file.changes[p].message, !m.isEmpty {
        message.append(m)
      } else {
        message.appendNull()
      }
      depsNum.append(UInt64(file.changes[p].deps.count))
      for d in file.changes[p].deps { depsIndex.append(Int64(rowOf[file.position(of: d) ?? 0])) }
      extra.append(.bytes(file.changes[p].extra))
    }
    let (extraMeta, extraRaw) = extra.take()
    return finished([
      (1, actor.take()), (3, seq.take()), (19, maxOp.take()), (35, time.take()),
      (53, message.take()), (64, depsNum.take()), (67, depsIndex.take()), (86, extraMeta),
      (87, extraRaw),
    ])
  }

  /// Ops from which `encode` runs two of its steps at once, on two threads (a Minuta month
  /// has about 30,000).
  static let parallelOps = 1 << 12

  /// Bytes of columns from which `finished` deflates them on as many threads as there are
  /// processors (the benchmark's month has about 1 MB of them).
  static let parallelDeflateBytes = 1 << 18

  /// Drops the empty columns and deflates those of 256 bytes or more (§7.8), as Rust does.
  /// Each column is deflated on its own: those of a large document on up to one thread per
  /// processor (or `width`), in the columns' order all the same.
  static func finished(_ columns: [(UInt32, [UInt8])], width: Int? = nil)
    -> [(UInt32, [UInt8])]
  {
    let present = columns.filter { !$0.1.isEmpty }
    let total = present.reduce(0) { $0 + $1.1.count }
    var out: [(UInt32, [UInt8])] = []
    out.reserveCapacity(present.count)
    OrderedWork.run(
      count: present.count,
      width: width ?? (total >= parallelDeflateBytes ? Processors.available : 1),
      produce: { present[$0] }, transform: { finished($0) }, consume: { out.append($1) })
    return out
  }

  /// A column as it is written: deflated when it has 256 bytes or more and deflating works.
  private static func finished(_ column: (UInt32, [UInt8])) -> (UInt32, [UInt8]) {
    let (spec, data) = column
    if data.count >= 256 {
      let deflated = Deflate.deflate(data)
      if !deflated.isEmpty { return (spec | 8, deflated) }
    }
    return column
  }
}

/// Where each op of `OpTable` is, by id. A change's ops are its author's consecutive
/// counters from its start op, at consecutive positions, so a list of each author's changes
/// (their first counter and first position) finds any op, with no entry per op. The changes
/// of one author must not share a counter: `changeColumns` refuses those first.
struct OpPositions {
  /// One change with ops: its author (a document actor index), its counters
  /// `firstCounter..<firstCounter + count`, and where its first op is.
  struct Run {
    var actor: UInt32
    var firstCounter: UInt64
    var count: Int32
    var firstPosition: Int32
  }

  /// Actor `a`'s runs are `runs[start[a]..<start[a + 1]]`, by first counter.
  private var start: [Int] = [0]
  private var runs: [Run] = []

  init() {}

  /// The table of `runs` (in any order), for `actors` actors.
  init(_ unordered: [Run], actors: Int) {
    // Grouped by actor (a counting sort, stable), then each actor's by counter, which the
    // changes nearly always are already.
    start = [Int](repeating: 0, count: actors + 1)
    for r in unordered { start[Int(r.actor) + 1] += 1 }
    for a in 0..<actors { start[a + 1] += start[a] }
    var next = start
    runs = [Run](
      repeating: Run(actor: 0, firstCounter: 0, count: 0, firstPosition: 0),
      count: unordered.count)
    for r in unordered {
      runs[next[Int(r.actor)]] = r
      next[Int(r.actor)] += 1
    }
    for a in 0..<actors {
      let own = start[a]..<start[a + 1]
      let sorted = zip(runs[own], runs[own].dropFirst()).allSatisfy {
        $0.firstCounter < $1.firstCounter
      }
      if !sorted { runs[own].sort { $0.firstCounter < $1.firstCounter } }
    }
  }

  /// The position of the op with the packed id `id` (`OpTable.pack`), or nil.
  subscript(id: UInt64) -> Int32? {
    let actor = Int(UInt32(truncatingIfNeeded: id))
    let counter = id >> 32
    guard actor + 1 < start.count else { return nil }
    // The last run of the actor that starts at or before the counter.
    var low = start[actor]
    var high = start[actor + 1]
    while low < high {
      let mid = (low + high) / 2
      if runs[mid].firstCounter <= counter { low = mid + 1 } else { high = mid }
    }
    guard low > start[actor] else { return nil }
    let run = runs[low - 1]
    let offset = counter - run.firstCounter
    return offset < UInt64(run.count) ? run.firstPosition + Int32(offset) : nil
  }
}

/// Every op of a file's applied changes with document-wide actor indices: the rows of a
/// document's op columns before they are ordered (§7.7 steps 2 to 5).
///
/// An op id, object id or element id is one `UInt64`, `counter << 32 | actor`, the actor
/// an index into the file's sorted actors: comparing two of them is Lamport order (§7.4),
/// and 0 (counter 0) is the root object or HEAD.
private struct OpTable {
  let file: AutomergeFile
  let rows: Int
  /// Per op, in change order: its id, object, key element (0 for HEAD or a map key), the
  /// change holding it and its index there.
  var id: [UInt64] = []
  var object: [UInt64] = []
  var element: [UInt64] = []
  var change: [Int32] = []
  var index: [Int32] = []
  /// Per op, its action, whether it inserts and whether its key is a map key: read from
  /// its `Op` once, here, so that the passes below read one byte instead of copying the
  /// `Op` (its key, value and preds) or reaching into it.
  var action: [Action] = []
  var insert: [Bool] = []
  var mapKey: [Bool] = []
  /// Per change, its actor table as document actor indices.
  var actorMaps: [[UInt32]] = []
  /// The succs of op i are `succs[succStart[i]..<succStart[i + 1]]`, in Lamport order.
  var succStart: [Int32] = []
  var succs: [UInt64] = []
  /// Op id -> position.
  var position = OpPositions()

  init(file: AutomergeFile, rows: Int) {
    self.file = file
    self.rows = rows
  }

  static func pack(_ counter: UInt32, _ actor: UInt32) -> UInt64 {
    UInt64(counter) << 32 | UInt64(actor)
  }

  func describe(_ x: UInt64) -> (UInt32, ActorId) {
    (UInt32(truncatingIfNeeded: x >> 32), file.actors[Int(UInt32(truncatingIfNeeded: x))])
  }

  mutating func collect() throws {
    var globalIndex: [ActorId: UInt32] = [:]
    for (i, a) in file.actors.enumerated() { globalIndex[a] = UInt32(i) }
    var total = 0
    for ci in 0..<rows { total += file.changes[ci].ops.count }
    id.reserveCapacity(total)
    object.reserveCapacity(total)
    element.reserveCapacity(total)
    change.reserveCapacity(total)
    index.reserveCapacity(total)
    action.reserveCapacity(total)
    insert.reserveCapacity(total)
    mapKey.reserveCapacity(total)
    var runs: [OpPositions.Run] = []
    runs.reserveCapacity(rows)
    actorMaps.reserveCapacity(rows)
    // Consecutive changes mostly share one actor table (the same array): its map is reused
    // instead of hashing every actor's bytes again.
    var lastActors: [ActorId] = []
    var map: [UInt32] = []
    for ci in 0..<rows {
      // The change's and each op's fields are read in place: a copy of the `Change` or the
      // `Op` would retain all of their references.
      let startOp = file.changes[ci].startOp
      if ci == 0 || file.changes[ci].actors != lastActors {
        lastActors = file.changes[ci].actors
        map = []
        for a in lastActors {
          // An actor that authors no change cannot be indexed in a document.
          guard let g = globalIndex[a] else {
            throw AutomergeSaveError.unplaceableOp(
              counter: UInt32(truncatingIfNeeded: startOp), actor: file.changes[ci].author,
              "names actor \(a), which authors no change of the file")
          }
          map.append(g)
        }
      }
      let count = file.changes[ci].ops.count
      file.changes[ci].ops.withUnsafeBufferPointer { ops in
        for i in 0..<count {
          let opId = OpTable.pack(UInt32(truncatingIfNeeded: startOp + UInt64(i)), map[0])
          id.append(opId)
          switch ops[i].object {
          case .root: object.append(0)
          case .object(let o): object.append(OpTable.pack(o.counter, map[Int(o.actor)]))
          }
          switch ops[i].key {
          case .element(let e):
            element.append(OpTable.pack(e.counter, map[Int(e.actor)]))
            mapKey.append(false)
          case .head:
            element.append(0)
            mapKey.append(false)
          case .map:
            element.append(0)
            mapKey.append(true)
          }
          change.append(Int32(ci))
          index.append(Int32(i))
          action.append(ops[i].action)
          insert.append(ops[i].insert)
        }
      }
      actorMaps.append(map)
      if count > 0 {
        runs.append(
          OpPositions.Run(
            actor: map[0], firstCounter: startOp, count: Int32(count),
            firstPosition: Int32(id.count - count)))
      }
    }
    position = OpPositions(runs, actors: file.actors.count)
  }

  /// Op `i`'s key (without a copy of the rest of its `Op`).
  func key(_ i: Int) -> Key { file.changes[Int(change[i])].ops[Int(index[i])].key }

  /// Op `i`'s preds, as stored in its change (actor indices of the change's table).
  func preds(_ i: Int) -> [OpId] { file.changes[Int(change[i])].ops[Int(index[i])].pred }

  /// Turns every pred into a succ of the op it names (§7.7 step 4).
  ///
  /// A document keeps an op's preds only as the succs of ops in its own group (its object
  /// and key, or for an insert the element it makes), before it in the group's order: that
  /// is where a load looks for them (§7.5 step 2). A pred anywhere else would read back as
  /// a deletion of its own, and a deletion with no pred would not read back at all, so
  /// both are refused here. Automerge accepts such changes, but its own `save()` then
  /// writes a document that does not load (mismatching heads).
  mutating func linkSuccessors() throws {
    var pairs: [(target: Int32, succ: UInt64)] = []
    for i in id.indices {
      let map = actorMaps[Int(change[i])]
      let pred = preds(i)
      if action[i] == .delete && pred.isEmpty {
        let (c, a) = describe(id[i])
        throw AutomergeSaveError.unplaceableOp(
          counter: c, actor: a, "deletes nothing (it has no pred), which a document cannot store")
      }
      if action[i] == .delete && !isBare(i) {
        let (c, a) = describe(id[i])
        throw AutomergeSaveError.unplaceableOp(
          counter: c, actor: a, "is a deletion with a value or flags, which a document cannot store"
        )
      }
      var previous: UInt64? = nil
      for p in pred {
        let pid = OpTable.pack(p.counter, map[Int(p.actor)])
        // A load sorts the preds it rebuilds (§7.5 step 3): others would hash differently.
        if let q = previous, q >= pid {
          let (c, a) = describe(id[i])
          throw AutomergeSaveError.unplaceableOp(
            counter: c, actor: a, "has preds out of Lamport order, which a document cannot keep")
        }
        previous = pid
        guard let t = position[pid] else {
          let (c, a) = describe(pid)
          throw AutomergeSaveError.unrepresentablePred(counter: c, actor: a)
        }
        guard action[Int(t)] != .delete else {
          let (c, a) = describe(pid)
          throw AutomergeSaveError.unrepresentablePred(counter: c, actor: a)
        }
        guard precedesInGroup(Int(t), i) else {
          let (c, a) = describe(id[i])
          throw AutomergeSaveError.unplaceableOp(
            counter: c, actor: a,
            "has a pred outside its own object and key, which a document cannot store")
        }
        pairs.append((t, id[i]))
      }
    }
    pairs.sort { $0.target != $1.target ? $0.target < $1.target : $0.succ < $1.succ }
    succStart = [Int32](repeating: 0, count: id.count + 1)
    for p in pairs { succStart[Int(p.target) + 1] += 1 }
    for i in id.indices { succStart[i + 1] += succStart[i] }
    succs = pairs.map(\.succ)
  }

  /// Whether deletion `i` holds nothing but what it deletes: a document keeps a deletion
  /// only as its target's succ (§7.3), and a load rebuilds it with no value, no insert flag
  /// and no mark fields, so that one with any of them would come back as another change.
  private func isBare(_ i: Int) -> Bool {
    let (c, k) = (Int(change[i]), Int(index[i]))
    guard !insert[i], !file.changes[c].ops[k].expand, file.changes[c].ops[k].markName == nil
    else { return false }
    if case .null = file.changes[c].ops[k].value { return true }
    return false
  }

  /// Whether op `t` comes before op `i` in one group of a document (§7.4): the same object
  /// and the same map key (its bytes) or element (an insert's group is the element it
  /// makes), and `t` is the group's insert or an earlier id (a group's other ops are in
  /// Lamport order). An insert is first in its group, so nothing precedes it; a deletion
  /// goes at the end.
  private func precedesInGroup(_ t: Int, _ i: Int) -> Bool {
    guard !insert[i], object[t] == object[i] else { return false }
    switch key(i) {
    case .map(let k):
      guard !insert[t], case .map(let predKey) = key(t), predKey.utf8.elementsEqual(k.utf8)
      else { return false }
    case .element:
      let predElement: UInt64
      if insert[t] {
        predElement = id[t]
      } else if case .element = key(t) {
        predElement = element[t]
      } else {
        return false
      }
      guard predElement == element[i] else { return false }
    case .head:
      return false
    }
    return action[i] == .delete || insert[t] || id[t] < id[i]
  }

  /// The stored ops (every op but the deletions) in the order of §7.4: by object (root,
  /// then Lamport order), a map's by key bytes then id, a sequence's element by element in
  /// RGA order, each element's insert op followed by the ops on it.
  func documentOrder() throws -> [Int32] {
    // Objects: the root is a map; every other is made by an op. Each is numbered (the root
    // 0) for its list of members, and found by id through an `OpIdTable`.
    var objectId: [UInt64] = [0]
    var isSequence: [Bool] = [false]
    for i in id.indices {
      switch action[i] {
      case .makeMap, .makeTable: isSequence.append(false)
      case .makeList, .makeText: isSequence.append(true)
      default: continue
      }
      objectId.append(id[i])
    }
    var number = OpIdTable(capacity: objectId.count)
    for (k, o) in objectId.enumerated() { number.set(o, Int32(k)) }
    // Each object's members, in op order, side by side in one array: counted, then placed
    // (an array per object grew tens of thousands of times on a month of small texts).
    // Consecutive ops mostly target one object (a text typed into): it is looked up once
    // per run of them (no object has the id UInt64.max: see `OpIdTable.empty`).
    var memberStart = [Int](repeating: 0, count: objectId.count + 1)
    var last = (object: UInt64.max, number: 0)
    for i in id.indices where action[i] != .delete {
      if object[i] != last.object {
        guard let k = number[object[i]] else {
          let (c, a) = describe(id[i])
          throw AutomergeSaveError.unplaceableOp(
            counter: c, actor: a, "targets an object that no op creates")
        }
        last = (object[i], Int(k))
      }
      memberStart[last.number + 1] += 1
    }
    for k in objectId.indices { memberStart[k + 1] += memberStart[k] }
    var members = [Int32](repeating: 0, count: memberStart[objectId.count])
    var next = memberStart
    last = (UInt64.max, 0)
    for i in id.indices where action[i] != .delete {
      if object[i] != last.object { last = (object[i], Int(number[object[i]] ?? 0)) }
      members[next[last.number]] = Int32(i)
      next[last.number] += 1
    }
    var order: [Int32] = []
    order.reserveCapacity(id.count)
    var scratch = OrderScratch()
    for k in objectId.indices.sorted(by: { objectId[$0] < objectId[$1] }) {
      let ops = members[memberStart[k]..<memberStart[k + 1]]
      if ops.isEmpty { continue }
      if isSequence[k] {
        try appendSequence(ops, to: &order, scratch: &scratch)
      } else {
        try appendMap(ops, to: &order, scratch: &scratch)
      }
    }
    return order
  }

  /// A map's ops by key bytes (not `String` order, which compares Unicode canonical
  /// forms), then by id. The keys' bytes are copied once into one buffer.
  private func appendMap(
    _ ops: ArraySlice<Int32>, to order: inout [Int32], scratch: inout OrderScratch
  ) throws {
    scratch.keyBytes.removeAll(keepingCapacity: true)
    scratch.keyed.removeAll(keepingCapacity: true)
    for i in ops {
      guard case .map(var k) = key(Int(i)), !insert[Int(i)] else {
        let (c, a) = describe(id[Int(i)])
        throw AutomergeSaveError.unplaceableOp(counter: c, actor: a, "has no key a map can hold")
      }
      let start = scratch.keyBytes.count
      k.withUTF8 { scratch.keyBytes.append(contentsOf: $0) }
      scratch.keyed.append((start, scratch.keyBytes.count - start, id[Int(i)], i))
    }
    scratch.keyBytes.withUnsafeBufferPointer { b in
      scratch.keyed.sort { x, y in
        for k in 0..<min(x.count, y.count) where b[x.start + k] != b[y.start + k] {
          return b[x.start + k] < b[y.start + k]
        }
        return x.count != y.count ? x.count < y.count : x.id < y.id
      }
    }
    for x in scratch.keyed { order.append(x.i) }
  }

  /// A sequence's ops in RGA order (§7.4 item 3): each insert op's parent is its key
  /// (HEAD or an element), siblings come by id descending, the walk is pre-order.
  private func appendSequence(
    _ ops: ArraySlice<Int32>, to order: inout [Int32], scratch: inout OrderScratch
  ) throws {
    scratch.inserts.removeAll(keepingCapacity: true)
    scratch.updates.removeAll(keepingCapacity: true)
    for i in ops {
      guard !mapKey[Int(i)] && (insert[Int(i)] || element[Int(i)] != 0) else {
        let (c, a) = describe(id[Int(i)])
        throw AutomergeSaveError.unplaceableOp(
          counter: c, actor: a, "has no key a sequence can hold")
      }
      if insert[Int(i)] {
        scratch.inserts.append((element[Int(i)], id[Int(i)], i))
      } else {
        scratch.updates.append((element[Int(i)], id[Int(i)], i))
      }
    }
    scratch.inserts.sort { $0.parent != $1.parent ? $0.parent < $1.parent : $0.id > $1.id }
    scratch.updates.sort { $0.element != $1.element ? $0.element < $1.element : $0.id < $1.id }
    let inserts = scratch.inserts
    let updates = scratch.updates
    // parent -> first child in `inserts`; element -> first op in `updates`
    scratch.children.reset(capacity: inserts.count)
    for (k, x) in inserts.enumerated().reversed() { scratch.children.set(x.parent, Int32(k)) }
    scratch.onElement.reset(capacity: updates.count)
    for (k, x) in updates.enumerated().reversed() { scratch.onElement.set(x.element, Int32(k)) }
    let children = scratch.children
    let onElement = scratch.onElement

    let start = order.count
    // Pre-order walk with an explicit stack (a text can nest 100,000s deep): each entry
    // is the next sibling to visit under one parent.
    scratch.stack.removeAll(keepingCapacity: true)
    if let first = children[0] { scratch.stack.append(Int(first)) }
    while let k = scratch.stack.popLast() {
      let x = inserts[k]
      if k + 1 < inserts.count && inserts[k + 1].parent == x.parent { scratch.stack.append(k + 1) }
      order.append(x.i)
      if let first = onElement[x.id] {
        var u = Int(first)
        while u < updates.count && updates[u].element == x.id {
          order.append(updates[u].i)
          u += 1
        }
      }
      if let c = children[x.id] { scratch.stack.append(Int(c)) }
    }
    guard order.count - start == ops.count else {
      // An insert whose parent is no element of the object, or an op on no element.
      let placed = Set(order[start...])
      let stray = ops.first { !placed.contains($0) } ?? ops[ops.startIndex]
      let (c, a) = describe(id[Int(stray)])
      throw AutomergeSaveError.unplaceableOp(
        counter: c, actor: a, "refers to an element its sequence does not have")
    }
  }

  /// What `appendMap` and `appendSequence` need, kept from one object to the next: a month
  /// holds thousands of small maps and texts, and each one's arrays and tables were
  /// allocated anew.
  struct OrderScratch {
    var keyBytes: [UInt8] = []
    var keyed: [(start: Int, count: Int, id: UInt64, i: Int32)] = []
    var inserts: [(parent: UInt64, id: UInt64, i: Int32)] = []
    var updates: [(element: UInt64, id: UInt64, i: Int32)] = []
    var children = OpIdTable(capacity: 0)
    var onElement = OpIdTable(capacity: 0)
    var stack: [Int] = []
  }

  /// The op columns (§7.3) of the ops in `order`, non-empty ones only, deflated where Rust
  /// does. With `atOnce`, in two groups on two threads, each group deflated where it is
  /// encoded: the objects, keys and ids, and the rest (each about half of a month's work).
  func columns(_ order: [Int32], atOnce: Bool) -> [(UInt32, [UInt8])] {
    guard atOnce else {
      return DocumentEncoder.finished(keyAndIdColumns(order) + actionAndValueColumns(order))
    }
    let table = self
    let (rest, keys) = alongside(
      onThread: true, { DocumentEncoder.finished(table.actionAndValueColumns(order), width: 1) },
      { DocumentEncoder.finished(keyAndIdColumns(order), width: 1) })
    return keys + rest
  }

  /// The op columns of the objects, the keys and the ids (specs 1 to 35), in spec order.
  private func keyAndIdColumns(_ order: [Int32]) -> [(UInt32, [UInt8])] {
    var objActor = RLEEncoder<UInt64>()
    var objCtr = RLEEncoder<UInt64>()
    var keyActor = RLEEncoder<UInt64>()
    var keyCtr = DeltaEncoder()
    var keyStr = StringRLEEncoder()
    var idActor = RLEEncoder<UInt64>()
    var idCtr = DeltaEncoder()
    for i32 in order {
      let i = Int(i32)
      idActor.append(id[i] & 0xffff_ffff)
      idCtr.append(Int64(id[i] >> 32))
      if object[i] == 0 {
        objActor.appendNull()
        objCtr.appendNull()
      } else {
        objActor.append(object[i] & 0xffff_ffff)
        objCtr.append(object[i] >> 32)
      }
      // The op's key is read in place (a copy of the `Op` would retain all its fields).
      switch file.changes[Int(change[i])].ops[Int(index[i])].key {
      case .map(let s):
        keyActor.appendNull()
        keyCtr.appendNull()
        keyStr.append(s)
      case .head:
        keyActor.appendNull()
        keyCtr.append(0)
        keyStr.appendNull()
      case .element:
        keyActor.append(element[i] & 0xffff_ffff)
        keyCtr.append(Int64(element[i] >> 32))
        keyStr.appendNull()
      }
    }
    return [
      (1, objActor.take()), (2, objCtr.take()), (17, keyActor.take()), (19, keyCtr.take()),
      (21, keyStr.take()), (33, idActor.take()), (35, idCtr.take()),
    ]
  }

  /// The op columns from the insert flags to the mark names (specs 52 to 165), in spec
  /// order.
  private func actionAndValueColumns(_ order: [Int32]) -> [(UInt32, [UInt8])] {
    var inserts = BooleanEncoder()
    var actions = RLEEncoder<UInt64>()
    var value = ValueEncoder()
    var succNum = RLEEncoder<UInt64>()
    var succActor = RLEEncoder<UInt64>()
    var succCtr = DeltaEncoder()
    var expand = BooleanEncoder()
    var markName = StringRLEEncoder()
    for i32 in order {
      let i = Int(i32)
      inserts.append(self.insert[i])
      actions.append(UInt64(self.action[i].rawValue))
      // The op's fields are read in place (a copy of the `Op` would retain all of them).
      let (c, k) = (Int(change[i]), Int(index[i]))
      value.append(file.changes[c].ops[k].value)
      let s = Int(succStart[i])..<Int(succStart[i + 1])
      succNum.append(UInt64(s.count))
      for x in succs[s] {
        succActor.append(x & 0xffff_ffff)
        succCtr.append(Int64(x >> 32))
      }
      expand.append(file.changes[c].ops[k].expand)
      if let m = file.changes[c].ops[k].markName {
        markName.append(m)
      } else {
        markName.appendNull()
      }
    }
    let hasExpand = expand.anyTrue
    let (valMeta, valRaw) = value.take()
    return [
      (52, inserts.take()), (66, actions.take()),
      (86, valMeta), (87, valRaw), (128, succNum.take()), (129, succActor.take()),
      (131, succCtr.take()), (148, hasExpand ? expand.take() : []), (165, markName.take()),
    ]
  }
}
