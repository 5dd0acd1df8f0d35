import Threads

/// The state of §7.5: flat columns of change rows and ops, then the regenerated changes.
///
/// The steps, in order: `decodeChangeColumns` and `decodeOpColumns` (here: the input of
/// §7.5, the change rows and the stored ops with their succs), then `reconstruct`
/// (`Reconstruction+Changes.swift`: preds from succs, ops assigned to changes, each change
/// rebuilt, re-encoded and hashed), then the heads check (`DocumentChunk.decode`).
struct Reconstruction {
  typealias S = ColumnSpecs
  let actors: [ActorId]
  let chunk: Int
  let limit: Int

  // Change rows (§7.2).
  var rowActor: [UInt32] = []
  var rowSeq: [UInt64] = []
  var rowMaxOp: [UInt32] = []
  var rowTime: [Int64] = []
  var rowMessage: [Int32] = []
  var rowDepsStart: [Int] = []
  var depsIndex: [Int64] = []
  var rowExtraMeta: [UInt64] = []
  var extraStart: [Int] = []
  var extraRaw: [UInt8] = []
  var messages: [String] = []

  // Stored ops (§7.3).
  var opCount = 0
  /// Per op, its id's actor (2 bytes an op in all but documents of 65,535 actors or more).
  var idActor = PackedUInts()
  var idCtr: [UInt32] = []
  /// Per op, the object as its number in `objectTable` (2 bytes an op in all but documents
  /// with 65,535 objects or more).
  var objects = PackedUInts()
  /// The distinct packed objects of `objects` (root = 0, `badObject` when invalid; a run of
  /// equal ones shares an entry).
  var objectTable: [UInt64] = []
  /// Per op, the key: an element id packed, or a tag in the actor half (`Tag`).
  var keys: [UInt64] = []
  var strings: [String] = []
  var insert: [Bool] = []
  /// Action codes; `actionNull` for a null, `actionOther` for a value above 7, whose
  /// value is in `otherActions`.
  var action: [UInt8] = []
  var otherActions: [Int: UInt64] = [:]
  /// Value metadata words.
  var valMeta = PackedUInts()
  /// Where the value payload of every `valueBlock`th op starts in `valRaw` (checked to fit
  /// 32 bits); `valueStart` adds the lengths of the ops in between.
  var valBlock: [UInt32] = []
  /// One byte per op: the reconstruction reads values in change order, not stored order, and
  /// the sum in `valueStart` was its costliest line with 16.
  static let valueBlock = 4
  var valRaw: [UInt8] = []
  var succNum = PackedUInts()
  var succKeys: [UInt64] = []
  var expand: [Bool] = []
  var markName: [Int32] = []
  /// Set by `checkMarkOrder`: a mark order that only Automerge 0.11 and later refuse.
  var refusedByNewerAutomerge: String?

  init(actors: [ActorId], chunkOffset: Int, limit: Int) {
    self.actors = actors
    self.chunk = chunkOffset
    self.limit = limit
  }

  /// A packed op id whose integer order is Lamport order: actors are sorted, so the index
  /// order is the byte order.
  @inline(__always) static func pack(_ ctr: UInt32, _ actor: UInt32) -> UInt64 {
    UInt64(ctr) << 32 | UInt64(actor)
  }

  func fail(_ reason: String) -> AutomergeDecodeError {
    .invalidDocument(reason: reason, offset: chunk)
  }

  /// Decodes the change metadata columns (§7.2; §7.5's `changeRows`), checking each row's
  /// actor, seq, max op, time, extra bytes, and that every dep is an earlier row.
  ///
  /// - Parameter data: the change columns' (inflated) bytes by spec.
  /// - Throws: a column error naming the column and the chunk's offset.
  mutating func decodeChangeColumns(_ data: [UInt32: [UInt8]]) throws {
    let ck = chunk
    func with<T>(_ s: UInt32, _ empty: T, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows
      -> T
    {
      try Reconstruction.with(data, s, empty, body)
    }
    let lim = limit
    let actorCol = try with(S.changeActor, []) {
      try ColumnDecoder.uint($0, limit: lim, spec: S.changeActor, chunk: ck)
    }
    let n = actorCol.count
    let seq = try with(S.changeSeq, []) {
      try ColumnDecoder.delta($0, limit: n, spec: S.changeSeq, chunk: ck)
    }
    let maxOp = try with(S.changeMaxOp, []) {
      try ColumnDecoder.delta($0, limit: n, spec: S.changeMaxOp, chunk: ck)
    }
    let time = try with(S.changeTime, []) {
      try ColumnDecoder.delta($0, limit: n, spec: S.changeTime, chunk: ck)
    }
    rowMessage = try with(S.changeMessage, []) {
      try ColumnDecoder.string($0, limit: n, spec: S.changeMessage, chunk: ck, table: &messages)
    }
    let depsNum = try with(S.depsNum, []) {
      try ColumnDecoder.uint($0, limit: n, spec: S.depsNum, chunk: ck)
    }
    let depsTotal = try ChangeChunk.groupTotal(depsNum, spec: S.depsNum, limit: lim, chunk: ck)
    depsIndex = try with(S.depsIndex, []) {
      try ColumnDecoder.delta($0, limit: depsTotal, spec: S.depsIndex, chunk: ck)
    }
    guard depsIndex.count == depsTotal else {
      throw ColumnDecoder.fail(
        S.depsIndex, ck, "\(depsIndex.count) dependency indexes for \(depsTotal) dependencies")
    }
    rowExtraMeta = try with(S.extraMeta, []) {
      try ColumnDecoder.uint($0, limit: n, spec: S.extraMeta, chunk: ck)
    }
    extraRaw = data[S.extraRaw] ?? []

    rowActor.reserveCapacity(n)
    rowSeq.reserveCapacity(n)
    rowMaxOp.reserveCapacity(n)
    rowTime.reserveCapacity(n)
    rowDepsStart.reserveCapacity(n + 1)
    var depPos = 0
    for i in 0..<n {
      let a = actorCol[i]
      guard a < UInt64(actors.count) else {
        throw ColumnDecoder.fail(S.changeActor, ck, "missing actor \(a)")
      }
      rowActor.append(UInt32(a))
      guard i < seq.count, seq[i] >= 1 else {
        throw ColumnDecoder.fail(S.changeSeq, ck, "missing or invalid seq")
      }
      rowSeq.append(UInt64(seq[i]))
      guard i < maxOp.count, maxOp[i] >= 0, maxOp[i] <= Int64(UInt32.max) else {
        throw ColumnDecoder.fail(S.changeMaxOp, ck, "missing or invalid max op")
      }
      rowMaxOp.append(UInt32(maxOp[i]))
      guard i < time.count, time[i] != ColumnDecoder.nullInt else {
        throw ColumnDecoder.fail(S.changeTime, ck, "missing time")
      }
      rowTime.append(time[i])
      rowDepsStart.append(depPos)
      depPos += i < depsNum.count ? Int(depsNum[i]) : 0
    }
    rowDepsStart.append(depPos)
    if !rowExtraMeta.isEmpty {
      var pos = 0
      extraStart.reserveCapacity(n + 1)
      for i in 0..<n {
        extraStart.append(pos)
        let m = i < rowExtraMeta.count ? rowExtraMeta[i] : 7
        guard m != ColumnDecoder.nullUInt, m & 0x0f == 7 else {
          throw ColumnDecoder.fail(S.extraMeta, ck, "extra data is not bytes")
        }
        let len = m >> 4
        guard len <= UInt64(extraRaw.count - pos) else {
          throw ColumnDecoder.fail(S.extraRaw, ck, "extra data past the end of the column")
        }
        pos += Int(len)
      }
      extraStart.append(pos)
      guard pos == extraRaw.count else {
        throw ColumnDecoder.fail(S.extraRaw, ck, "extra bytes in extra column")
      }
    } else if !extraRaw.isEmpty {
      throw ColumnDecoder.fail(S.extraRaw, ck, "extra data without metadata")
    }
    // Every row's deps, in entry order: the first bad entry is the one reported.
    for row in 0..<n {
      for j in depsIndex[rowDepsStart[row]..<rowDepsStart[row + 1]] {
        guard j >= 0, j < Int64(row) else {
          throw ColumnDecoder.fail(
            S.depsIndex, ck,
            "dependency of change \(row) is not an earlier change (missing change)")
        }
      }
    }
  }

  /// Bytes of change columns from which `DocumentChunk.decode` decodes the change rows on a
  /// thread of their own while the ops are decoded (a Minuta month's are about 20 KB).
  static let parallelRowBytes = 1 << 16

  /// Takes the change rows (§7.2) that `other`, a copy of this reconstruction before
  /// either decoded anything, decoded with `decodeChangeColumns`.
  mutating func takeChangeRows(from other: Reconstruction) {
    rowActor = other.rowActor
    rowSeq = other.rowSeq
    rowMaxOp = other.rowMaxOp
    rowTime = other.rowTime
    rowMessage = other.rowMessage
    rowDepsStart = other.rowDepsStart
    depsIndex = other.depsIndex
    rowExtraMeta = other.rowExtraMeta
    extraStart = other.extraStart
    extraRaw = other.extraRaw
    messages = other.messages
  }

  /// Ops from which `decodeOpColumns` decodes its two halves at once, on two threads (below
  /// it, a thread's start costs more than it saves).
  static let parallelOps = 1 << 16

  /// Decodes the op columns (§7.3; §7.5's `ops[]`, each with its id and succs), checking the
  /// ids, the succ ids and the value lengths; objects and keys are checked when used.
  ///
  /// After the op ids, the columns are read in two halves that share nothing: the ids'
  /// actors and the objects (`decodeIdsAndObjects`), and the keys, flags, values and succs
  /// (`decodeKeysAndSuccs`); a chunk of `parallelOps` ops or more has the first decoded on
  /// a thread of its own meanwhile. The error thrown is the one a single thread would meet
  /// first (the first half's, then the second's).
  ///
  /// - Parameter data: the op columns' (inflated) bytes by spec.
  /// - Throws: a column error naming the column and the chunk's offset.
  mutating func decodeOpColumns(_ data: [UInt32: [UInt8]]) throws {
    let ck = chunk
    let lim = limit
    func column<T>(_ s: UInt32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
      try Reconstruction.column(data, s, body)
    }
    // The integer columns are read a row at a time (`UIntColumnCursor`, `DeltaColumnCursor`)
    // straight into the form kept: no temporary array of 8-byte values per column. The
    // closures fill locals, not `self`'s arrays (through `self` they would copy it per row).
    var idCtr: [UInt32] = []
    try column(S.idCtr) { bytes in
      // Counted first: grown by doubling as they were read, moby-dick's 4.7 MB of counters
      // touched 12.9 MB of pages, which stayed in the process's resident size. A column that
      // does not read is refused below, with the error of its first bad row, as before.
      let rows = try? DeltaColumnCursor.rows(bytes, limit: lim, spec: S.idCtr, chunk: ck)
      idCtr.reserveCapacity(rows ?? 0)
      var counters = DeltaColumnCursor(bytes, limit: lim, spec: S.idCtr, chunk: ck)
      while try counters.hasNext() {
        let c = try counters.next()
        guard c >= 1, c <= Int64(UInt32.max) else {
          throw ColumnDecoder.fail(S.idCtr, ck, "op counter out of range")
        }
        idCtr.append(UInt32(c))
      }
    }
    let n = idCtr.count
    guard n < Int(UInt32.max) else { throw fail("too many ops") }
    opCount = n
    self.idCtr = idCtr
    guard actors.count < Int(Tag.first) else { throw fail("too many actors") }
    // The first half on the worker: the second holds the succs, which are let go before the
    // changes are built, and memory freed on this thread is reused by this thread's
    // allocations (on the worker's, the allocator keeps it apart: 3 MB more on moby-dick).
    let decoded = self
    let (first, second) = alongside(
      onThread: n >= Reconstruction.parallelOps && Processors.available > 1,
      { Result { try decoded.decodeIdsAndObjects(data, n: n) } },
      { Result { try decodeKeysAndSuccs(data, n: n) } })
    let ids = try first.get()
    let flags = try second.get()
    idActor = ids.idActor
    objects = ids.objects
    objectTable = ids.objectTable
    keys = flags.keys
    strings = flags.strings
    insert = flags.insert
    action = flags.action
    otherActions = flags.otherActions
    valMeta = flags.valMeta
    succNum = flags.succNum
    succKeys = flags.succKeys
    expand = flags.expand
    valRaw = data[S.valRaw] ?? []
    markName = try Reconstruction.with(data, S.markName, []) {
      try ColumnDecoder.string(
        $0, limit: n, spec: S.markName, chunk: ck, table: &strings, expected: n)
    }

    // Value payload offsets; the payloads must fill the raw column exactly.
    guard valRaw.count <= Int(UInt32.max) else {
      throw ColumnDecoder.fail(S.valRaw, ck, "value column longer than 4 GiB")
    }
    valBlock.reserveCapacity(n / Reconstruction.valueBlock + 1)
    var pos = 0
    for i in 0..<n {
      if i % Reconstruction.valueBlock == 0 { valBlock.append(UInt32(truncatingIfNeeded: pos)) }
      let m = i < valMeta.count ? valMeta[i] : (data[S.valMeta] == nil ? 0 : ColumnDecoder.nullUInt)
      guard m != ColumnDecoder.nullUInt else {
        throw ColumnDecoder.fail(S.valMeta, ck, "null value metadata")
      }
      let len = m >> 4
      guard len <= UInt64(valRaw.count - pos) else {
        throw ColumnDecoder.fail(S.valRaw, ck, "value payload past the end of the column")
      }
      pos += Int(len)
    }
    guard pos == valRaw.count else {
      throw ColumnDecoder.fail(S.valRaw, ck, "extra bytes in value column")
    }
    refusedByNewerAutomerge = checkMarkOrder()
    guard insert.count == n || data[S.insert] == nil else {
      throw ColumnDecoder.fail(
        S.insert, ck, "invalid load length len=\(insert.count), expected=\(n)")
    }
  }

  /// The first half of the op columns after the ids' counters (`decodeOpColumns`).
  struct IdsAndObjects: Sendable {
    var idActor = PackedUInts()
    var objects = PackedUInts()
    var objectTable: [UInt64] = []
  }

  /// Decodes the ids' actors and the objects of `n` ops.
  func decodeIdsAndObjects(_ data: [UInt32: [UInt8]], n: Int) throws -> IdsAndObjects {
    let ck = chunk
    let actorCount = actors.count
    func column<T>(_ s: UInt32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
      try Reconstruction.column(data, s, body)
    }
    var out = IdsAndObjects()
    var idActor = PackedUInts()
    try column(S.idActor) { bytes in
      var ids = UIntColumnCursor(bytes, limit: n, spec: S.idActor, chunk: ck)
      idActor.rows.reserveCapacity(n)
      for i in 0..<n {
        guard try ids.hasNext() else {
          throw ColumnDecoder.fail(S.idActor, ck, "invalid load length len=\(i), expected=\(n)")
        }
        let a = try ids.next()
        guard a < UInt64(actorCount) else {
          throw ColumnDecoder.fail(S.idActor, ck, "missing actor")
        }
        idActor.append(a)
      }
      try ids.finish()
    }
    out.idActor = idActor
    var objects = PackedUInts()
    var objectTable: [UInt64] = []
    try column(S.objActor) { actorBytes in
      try column(S.objCtr) { counterBytes in
        var objActor = UIntColumnCursor(actorBytes, limit: n, spec: S.objActor, chunk: ck)
        var objCtr = UIntColumnCursor(counterBytes, limit: n, spec: S.objCtr, chunk: ck)
        objects.rows.reserveCapacity(n)
        for _ in 0..<n {
          let packed = Reconstruction.packObject(
            try objActor.next(), try objCtr.next(), actors: actorCount)
          if objectTable.last != packed { objectTable.append(packed) }
          objects.append(UInt64(objectTable.count - 1))
        }
        try objActor.finish()
        try objCtr.finish()
      }
    }
    out.objects = objects
    out.objectTable = objectTable
    return out
  }

  /// The second half of the op columns (`decodeOpColumns`).
  struct KeysAndSuccs: Sendable {
    var keys: [UInt64] = []
    /// The map keys' strings (the mark names' are added after them).
    var strings: [String] = []
    var insert: [Bool] = []
    var action: [UInt8] = []
    var otherActions: [Int: UInt64] = [:]
    var valMeta = PackedUInts()
    var succNum = PackedUInts()
    var succKeys: [UInt64] = []
    var expand: [Bool] = []
  }

  /// Decodes the keys, insert flags, actions, value metadata, succs and expand flags of `n`
  /// ops.
  func decodeKeysAndSuccs(_ data: [UInt32: [UInt8]], n: Int) throws -> KeysAndSuccs {
    let ck = chunk
    let lim = limit
    let actorCount = actors.count
    func with<T>(_ s: UInt32, _ empty: T, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows
      -> T
    {
      try Reconstruction.with(data, s, empty, body)
    }
    func column<T>(_ s: UInt32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
      try Reconstruction.column(data, s, body)
    }
    var out = KeysAndSuccs()
    do {
      let keyStr = try with(S.keyStr, []) {
        try ColumnDecoder.string(
          $0, limit: n, spec: S.keyStr, chunk: ck, table: &out.strings, expected: n)
      }
      var keys: [UInt64] = []
      try column(S.keyActor) { actorBytes in
        try column(S.keyCtr) { counterBytes in
          var keyActor = UIntColumnCursor(actorBytes, limit: n, spec: S.keyActor, chunk: ck)
          var keyCtr = DeltaColumnCursor(counterBytes, limit: n, spec: S.keyCtr, chunk: ck)
          keys.reserveCapacity(n)
          for i in 0..<n {
            let s = i < keyStr.count ? keyStr[i] : -1
            keys.append(
              Reconstruction.packKey(
                s, try keyActor.next(), try keyCtr.next(), actors: actorCount))
          }
          try keyActor.finish()
          try keyCtr.finish()
        }
      }
      out.keys = keys
    }
    out.insert = try with(S.insert, []) {
      try ColumnDecoder.boolean($0, limit: n, spec: S.insert, chunk: ck, expected: n)
    }
    var action: [UInt8] = []
    var otherActions: [Int: UInt64] = [:]
    try column(S.action) { bytes in
      var codes = UIntColumnCursor(bytes, limit: n, spec: S.action, chunk: ck)
      action.reserveCapacity(n)
      // A short column stays short: `actionValue` reads the rows past it as null.
      while try codes.hasNext() {
        let a = try codes.next()
        if a <= 7 {
          action.append(UInt8(a))
        } else if a == ColumnDecoder.nullUInt {
          action.append(Reconstruction.actionNull)
        } else {
          otherActions[action.count] = a
          action.append(Reconstruction.actionOther)
        }
      }
    }
    out.action = action
    out.otherActions = otherActions
    out.valMeta = try with(S.valMeta, PackedUInts()) {
      try ColumnDecoder.packedUInt($0, limit: n, spec: S.valMeta, chunk: ck, expected: n)
    }
    out.succNum = try with(S.succNum, PackedUInts()) {
      try ColumnDecoder.packedUInt($0, limit: n, spec: S.succNum, chunk: ck, expected: n)
    }
    let succTotal = try ChangeChunk.groupTotal(out.succNum, spec: S.succNum, limit: lim, chunk: ck)
    var succKeys: [UInt64] = []
    try column(S.succActor) { actorBytes in
      try column(S.succCtr) { counterBytes in
        var succActor = UIntColumnCursor(
          actorBytes, limit: succTotal, spec: S.succActor, chunk: ck)
        var succCtr = DeltaColumnCursor(counterBytes, limit: succTotal, spec: S.succCtr, chunk: ck)
        succKeys.reserveCapacity(succTotal)
        for _ in 0..<succTotal {
          guard try succActor.hasNext(), try succCtr.hasNext() else {
            throw ColumnDecoder.fail(
              S.succActor, ck, "successor columns do not match their counts")
          }
          let a = try succActor.next()
          let c = try succCtr.next()
          guard a < UInt64(actorCount) else {
            throw ColumnDecoder.fail(S.succActor, ck, "missing actor")
          }
          guard c >= 1, c <= Int64(UInt32.max) else {
            throw ColumnDecoder.fail(S.succCtr, ck, "counter out of range")
          }
          succKeys.append(Reconstruction.pack(UInt32(c), UInt32(a)))
        }
        try succActor.finish()
        try succCtr.finish()
      }
    }
    out.succKeys = succKeys
    out.expand = try with(S.expand, []) {
      try ColumnDecoder.boolean($0, limit: n, spec: S.expand, chunk: ck, expected: n)
    }
    return out
  }

  /// Calls `body` with the bytes of column `s` of `data`; `empty` when the column is absent.
  static func with<T>(
    _ data: [UInt32: [UInt8]], _ s: UInt32, _ empty: T,
    _ body: (UnsafeBufferPointer<UInt8>) throws -> T
  ) rethrows -> T {
    guard let d = data[s] else { return empty }
    return try d.withUnsafeBufferPointer(body)
  }

  /// Calls `body` with the bytes of column `s` of `data` (none when it is absent: every row
  /// null).
  static func column<T>(
    _ data: [UInt32: [UInt8]], _ s: UInt32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T
  ) rethrows -> T {
    guard let d = data[s] else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
    return try d.withUnsafeBufferPointer(body)
  }

  /// Automerge 0.11 (Rust 3.x) refuses a document in which a mark's end op comes before its
  /// begin op (§8.6): the end of the mark begun by op `c@a` is op `(c+1)@a`, and the document
  /// stores a sequence's ops in sequence order. Automerge 0.6.1, which the Minuta app ships,
  /// opens such a document, and a mark changes no JSON, so nothing is lost by opening it:
  /// the reason is returned for `doc check` to report, not thrown.
  func checkMarkOrder() -> String? {
    var begins: [UInt64: Int] = [:]
    var ends: [(id: UInt64, index: Int)] = []
    for i in 0..<action.count where action[i] == 7 {
      let id = opId(i)
      if i < markName.count && markName[i] >= 0 { begins[id] = i } else { ends.append((id, i)) }
    }
    for e in ends where e.id >> 32 > 1 {
      if let b = begins[e.id - (1 << 32)], b > e.index {
        return
          "mark end \(e.id >> 32)@\(actors[Int(e.id & 0xffff_ffff)]) occurs before its mark begin"
      }
    }
    return nil
  }

  @inline(__always) func meta(_ i: Int) -> UInt64 {
    i < valMeta.count ? valMeta[i] : 0
  }
  /// Where stored op `k`'s value payload starts in `valRaw`.
  @inline(__always) func valueStart(_ k: Int) -> Int {
    let block = k / Reconstruction.valueBlock
    var pos = Int(valBlock[block])
    var j = block * Reconstruction.valueBlock
    while j < k {
      pos += Int(truncatingIfNeeded: meta(j) >> 4)
      j += 1
    }
    return pos
  }

  @inline(__always) func isInsert(_ i: Int) -> Bool { i < insert.count ? insert[i] : false }

  static let actionNull: UInt8 = 0xff
  static let actionOther: UInt8 = 0xfe

  /// The action column's value for stored op `k` as decoded (`nullUInt` for null).
  @inline(__always) func actionValue(_ k: Int) -> UInt64 {
    guard k < action.count else { return ColumnDecoder.nullUInt }
    let a = action[k]
    if a <= 7 { return UInt64(a) }
    if a == Reconstruction.actionNull { return ColumnDecoder.nullUInt }
    return otherActions[k] ?? ColumnDecoder.nullUInt
  }

  /// The tags of `keys` and `objects`, in the actor half of a packed id (real actor indexes
  /// are below `Tag.first`).
  enum Tag {
    static let first: UInt32 = 0xffff_fff0
    /// A map key; the string index is in the counter half.
    static let map: UInt32 = 0xffff_ffff
    static let head: UInt32 = 0xffff_fffe
    static let stringAndElement: UInt32 = 0xffff_fffd
    static let badKey: UInt32 = 0xffff_fffc
    static let badElement: UInt32 = 0xffff_fffb
    static let badObject: UInt32 = 0xffff_fffa
  }

  /// Packs an object column pair (root = 0); an invalid id is tagged, and fails when used.
  private static func packObject(_ a: UInt64, _ c: UInt64, actors: Int) -> UInt64 {
    if a == ColumnDecoder.nullUInt && c == ColumnDecoder.nullUInt { return 0 }
    guard a < UInt64(actors), c >= 1, c <= UInt64(UInt32.max) else {
      return UInt64(Tag.badObject)
    }
    return Reconstruction.pack(UInt32(c), UInt32(a))
  }

  /// Packs a key column triple; an invalid key is tagged with its error, thrown when used.
  private static func packKey(_ s: Int32, _ a: UInt64, _ c: Int64, actors: Int) -> UInt64 {
    if s >= 0 {
      guard a == ColumnDecoder.nullUInt, c == ColumnDecoder.nullInt else {
        return UInt64(Tag.stringAndElement)
      }
      return UInt64(UInt32(s)) << 32 | UInt64(Tag.map)
    }
    if a == ColumnDecoder.nullUInt {
      guard c == 0 else { return UInt64(Tag.badKey) }
      return UInt64(Tag.head)
    }
    guard a < UInt64(actors), c >= 0, c <= Int64(UInt32.max) else {
      return UInt64(Tag.badElement)
    }
    return Reconstruction.pack(UInt32(c), UInt32(a))
  }

  /// The id of stored op `i`, packed.
  @inline(__always) func opId(_ i: Int) -> UInt64 {
    Reconstruction.pack(idCtr[i], UInt32(truncatingIfNeeded: idActor[i]))
  }

  /// The object of stored op `i` as a packed key (root = 0; real ids have counter ≥ 1).
  @inline(__always) func objectKey(_ i: Int) throws -> UInt64 {
    let v = objectTable[Int(objects[i])]
    guard v != UInt64(Tag.badObject) else {
      throw ColumnDecoder.fail(S.objActor, chunk, "invalid object id")
    }
    return v
  }

  /// The key of stored op `i`.
  @inline(__always) func key(_ i: Int) throws -> StoredKey {
    let v = keys[i]
    let tag = UInt32(truncatingIfNeeded: v)
    if tag < Tag.first { return .element(v) }
    switch tag {
    case Tag.map: return .map(Int(truncatingIfNeeded: v >> 32))
    case Tag.head: return .head
    case Tag.stringAndElement:
      throw ColumnDecoder.fail(S.keyStr, chunk, "key with both a string and an element id")
    case Tag.badKey: throw ColumnDecoder.fail(S.keyCtr, chunk, "invalid key")
    default: throw ColumnDecoder.fail(S.keyActor, chunk, "invalid element id")
    }
  }

  /// Whether two keys are equal; map keys compare by UTF-8 bytes (each string run has its
  /// own table entry, so equal keys may have different indices).
  @inline(__always) func sameKey(_ a: StoredKey, _ b: StoredKey) -> Bool {
    switch (a, b) {
    case (.map(let x), .map(let y)):
      return x == y || strings[x].utf8.elementsEqual(strings[y].utf8)
    case (.head, .head): return true
    case (.element(let x), .element(let y)): return x == y
    default: return false
    }
  }
}
