/// Document chunks (type 0): parsing (§7.1 to §7.3) and the reconstruction of every change
/// with its hash (§7.5), checked against the stored heads.
enum DocumentChunk {
  /// The decoded content of a document chunk.
  struct Decoded {
    /// The reconstructed changes, in the chunk's (causal) row order.
    var changes: [Change]
    /// The stored heads, sorted.
    var heads: [ChangeHash]
    /// The number of ops of each change (`changes[i].ops` may be empty, see `keepOps`).
    var opCounts: [Int32]
    /// Per change: whether another change of the chunk depends on it.
    var isDependency: [Bool]
    /// Why Automerge 0.11 and later refuse this chunk, when Automerge 0.6.1 (the app's)
    /// opens it and nothing of the content depends on the difference (§8.6); else nil.
    var refusedByNewerAutomerge: String?
  }

  /// Reads the start of a document body (§7.1): the actors (sorted and unique), the stored
  /// heads, and where the change and op columns are.
  static func header(_ r: inout ByteReader) throws -> (
    actors: [ActorId], heads: [ChangeHash], changeColumns: [ColumnEntry], opColumns: [ColumnEntry]
  ) {
    let actorCount = try r.length("actors count", limit: r.remaining)
    var actors: [ActorId] = []
    actors.reserveCapacity(actorCount)
    for _ in 0..<actorCount {
      let at = r.offset
      let a = ActorId(try r.byteString("actor id"))
      if let last = actors.last, !(last < a) {
        throw AutomergeDecodeError.invalidDocument(
          reason: "actors are not sorted and unique", offset: at)
      }
      actors.append(a)
    }
    let heads = try r.hashes(count: "heads count", each: "head hash")
    let changeMeta = try ColumnMetadata.read(&r, allowDeflate: true)
    let opMeta = try ColumnMetadata.read(&r, allowDeflate: true)
    let changeColumns = try ColumnMetadata.layout(changeMeta, &r)
    let opColumns = try ColumnMetadata.layout(opMeta, &r)
    return (actors, heads, changeColumns, opColumns)
  }

  /// Decodes a document body and regenerates its changes.
  ///
  /// - Parameters:
  ///   - buf: the whole input; `body` is the document body's range in it.
  ///   - body: the range of the document body in `buf`.
  ///   - chunkOffset: the offset of the chunk, for errors.
  ///   - verifyHeads: check the regenerated heads against the stored ones.
  ///   - keepOps: keep each change's ops (else only their count).
  ///   - keepChunks: keep each change's canonical chunk (else only its hash).
  ///   - spareCapacity: room to reserve in `Decoded.changes` for changes the caller appends.
  ///   - inspect: called with the decoded stored ops (§7.3) before the changes are
  ///     reconstructed from them (`DocumentMaterializer` reads them there).
  /// - Returns: the regenerated changes, the stored heads and each change's op count.
  /// - Throws: `AutomergeDecodeError` for malformed bytes, and `headsMismatch` when the
  ///   regenerated heads differ from the stored ones.
  static func decode(
    _ buf: UnsafeBufferPointer<UInt8>, body: Range<Int>, chunkOffset: Int, verifyHeads: Bool = true,
    keepOps: Bool = true, keepChunks: Bool = true, spareCapacity: Int = 0,
    inspect: ((Reconstruction) -> Void)? = nil
  ) throws -> Decoded {
    var r = ByteReader(buf, from: body.lowerBound, to: body.upperBound)
    let (actors, heads, changeCols, opCols) = try header(&r)
    if !r.isAtEnd {
      for _ in 0..<heads.count { _ = try r.uleb("head index") }
      guard r.isAtEnd else {
        throw AutomergeDecodeError.trailingBytes(what: "document head indexes", offset: r.offset)
      }
    }

    var total = 0
    func load(_ cols: [ColumnEntry]) throws -> [UInt32: [UInt8]] {
      var out: [UInt32: [UInt8]] = [:]
      for c in cols {
        let slice = UnsafeBufferPointer(rebasing: buf[c.range])
        let data =
          c.deflated ? try Deflate.inflate(slice, offset: c.range.lowerBound) : Array(slice)
        total += data.count
        out[c.spec] = data
      }
      return out
    }
    let changeData = try load(changeCols)
    let opData = try load(opCols)
    var builder = Reconstruction(
      actors: actors, chunkOffset: chunkOffset,
      limit: ChangeChunk.rowLimit(forBytes: total + body.count))
    try builder.decodeChangeColumns(changeData)
    try builder.decodeOpColumns(opData)
    inspect?(builder)
    let (changes, opCounts) = try builder.reconstruct(
      keepOps: keepOps, keepChunks: keepChunks, spareCapacity: spareCapacity)

    // §7.5 step 7: the regenerated heads must equal the stored heads, as sets.
    var isDep = [Bool](repeating: false, count: changes.count)
    for j in builder.depsIndex where j >= 0 { isDep[Int(j)] = true }
    var regenerated: [ChangeHash] = []
    for i in changes.indices where !isDep[i] { regenerated.append(changes[i].hash) }
    regenerated.sort()
    let stored = Array(Set(heads)).sorted()
    guard regenerated == stored || !verifyHeads else {
      throw AutomergeDecodeError.headsMismatch(offset: chunkOffset)
    }
    return Decoded(
      changes: changes, heads: stored, opCounts: opCounts, isDependency: isDep,
      refusedByNewerAutomerge: builder.refusedByNewerAutomerge)
  }
}

/// The UTF-8 bytes of a string table, by entry (borrowed: valid inside the closure that
/// made it).
struct StringTable {
  let bytes: UnsafeBufferPointer<UInt8>
  let start: [Int]

  @inline(__always) subscript(_ i: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: bytes[start[i]..<start[i + 1]])
  }
}

/// The state of §7.5: flat columns of change rows and ops, then the regenerated changes.
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
  var idActor: [UInt32] = []
  var idCtr: [UInt32] = []
  /// Per op, the object as a packed id (root = 0, `badObject` when invalid).
  var objects: [UInt32] = []
  /// The distinct packed objects of `objects` (a run of equal ones shares an entry).
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
  /// Where the value payload of every 16th op starts in `valRaw` (checked to fit 32 bits);
  /// `valueStart` adds the lengths of the ops in between.
  var valBlock: [UInt32] = []
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

  mutating func decodeChangeColumns(_ data: [UInt32: [UInt8]]) throws {
    let ck = chunk
    func with<T>(_ s: UInt32, _ empty: T, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows
      -> T
    {
      guard let d = data[s] else { return empty }
      return try d.withUnsafeBufferPointer(body)
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
    for (k, j) in depsIndex.enumerated() {
      let row = rowOfDep(k)
      guard j >= 0, j < Int64(row) else {
        throw ColumnDecoder.fail(
          S.depsIndex, ck, "dependency of change \(row) is not an earlier change (missing change)")
      }
    }
  }

  /// The row that owns dependency entry `k` (only used for error checks, rows are few).
  private func rowOfDep(_ k: Int) -> Int {
    var lo = 0
    var hi = rowDepsStart.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if rowDepsStart[mid] <= k { lo = mid } else { hi = mid - 1 }
    }
    return lo
  }

  mutating func decodeOpColumns(_ data: [UInt32: [UInt8]]) throws {
    let ck = chunk
    let lim = limit
    func with<T>(_ s: UInt32, _ empty: T, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows
      -> T
    {
      guard let d = data[s] else { return empty }
      return try d.withUnsafeBufferPointer(body)
    }
    let ctr = try with(S.idCtr, []) {
      try ColumnDecoder.delta($0, limit: lim, spec: S.idCtr, chunk: ck)
    }
    let n = ctr.count
    guard n < Int(UInt32.max) else { throw fail("too many ops") }
    opCount = n
    let act = try with(S.idActor, []) {
      try ColumnDecoder.uint($0, limit: n, spec: S.idActor, chunk: ck, expected: n)
    }
    guard act.count == n else {
      throw ColumnDecoder.fail(S.idActor, ck, "invalid load length len=\(act.count), expected=\(n)")
    }
    idActor.reserveCapacity(n)
    idCtr.reserveCapacity(n)
    for i in 0..<n {
      guard act[i] < UInt64(actors.count) else {
        throw ColumnDecoder.fail(S.idActor, ck, "missing actor")
      }
      guard ctr[i] >= 1, ctr[i] <= Int64(UInt32.max) else {
        throw ColumnDecoder.fail(S.idCtr, ck, "op counter out of range")
      }
      idActor.append(UInt32(act[i]))
      idCtr.append(UInt32(ctr[i]))
    }
    guard actors.count < Int(Tag.first) else { throw fail("too many actors") }
    do {
      let objActor = try with(S.objActor, PackedUInts()) {
        try ColumnDecoder.packedUInt($0, limit: n, spec: S.objActor, chunk: ck, expected: n)
      }
      let objCtr = try with(S.objCtr, PackedUInts()) {
        try ColumnDecoder.packedUInt($0, limit: n, spec: S.objCtr, chunk: ck, expected: n)
      }
      objects.reserveCapacity(n)
      for i in 0..<n {
        let a = i < objActor.count ? objActor[i] : ColumnDecoder.nullUInt
        let c = i < objCtr.count ? objCtr[i] : ColumnDecoder.nullUInt
        let packed = packObject(a, c)
        if objectTable.last != packed { objectTable.append(packed) }
        objects.append(UInt32(truncatingIfNeeded: objectTable.count - 1))
      }
    }
    do {
      let keyActor = try with(S.keyActor, []) {
        try ColumnDecoder.uint($0, limit: n, spec: S.keyActor, chunk: ck, expected: n)
      }
      let keyCtr = try with(S.keyCtr, []) {
        try ColumnDecoder.delta($0, limit: n, spec: S.keyCtr, chunk: ck, expected: n)
      }
      let keyStr = try with(S.keyStr, []) {
        try ColumnDecoder.string(
          $0, limit: n, spec: S.keyStr, chunk: ck, table: &strings, expected: n)
      }
      keys.reserveCapacity(n)
      for i in 0..<n {
        let s = i < keyStr.count ? keyStr[i] : -1
        let a = i < keyActor.count ? keyActor[i] : ColumnDecoder.nullUInt
        let c = i < keyCtr.count ? keyCtr[i] : ColumnDecoder.nullInt
        keys.append(packKey(s, a, c))
      }
    }
    insert = try with(S.insert, []) {
      try ColumnDecoder.boolean($0, limit: n, spec: S.insert, chunk: ck, expected: n)
    }
    do {
      let wide = try with(S.action, []) {
        try ColumnDecoder.uint($0, limit: n, spec: S.action, chunk: ck, expected: n)
      }
      action.reserveCapacity(wide.count)
      for (i, a) in wide.enumerated() {
        if a <= 7 {
          action.append(UInt8(a))
        } else if a == ColumnDecoder.nullUInt {
          action.append(Reconstruction.actionNull)
        } else {
          action.append(Reconstruction.actionOther)
          otherActions[i] = a
        }
      }
    }
    valMeta = try with(S.valMeta, PackedUInts()) {
      try ColumnDecoder.packedUInt($0, limit: n, spec: S.valMeta, chunk: ck, expected: n)
    }
    valRaw = data[S.valRaw] ?? []
    succNum = try with(S.succNum, PackedUInts()) {
      try ColumnDecoder.packedUInt($0, limit: n, spec: S.succNum, chunk: ck, expected: n)
    }
    let succTotal = try ChangeChunk.groupTotal(succNum, spec: S.succNum, limit: lim, chunk: ck)
    let sa = try with(S.succActor, []) {
      try ColumnDecoder.uint($0, limit: succTotal, spec: S.succActor, chunk: ck)
    }
    let sc = try with(S.succCtr, []) {
      try ColumnDecoder.delta($0, limit: succTotal, spec: S.succCtr, chunk: ck)
    }
    guard sa.count == succTotal, sc.count == succTotal else {
      throw ColumnDecoder.fail(S.succActor, ck, "successor columns do not match their counts")
    }
    expand = try with(S.expand, []) {
      try ColumnDecoder.boolean($0, limit: n, spec: S.expand, chunk: ck, expected: n)
    }
    markName = try with(S.markName, []) {
      try ColumnDecoder.string(
        $0, limit: n, spec: S.markName, chunk: ck, table: &strings, expected: n)
    }

    succKeys.reserveCapacity(succTotal)
    for k in 0..<succTotal {
      guard sa[k] < UInt64(actors.count) else {
        throw ColumnDecoder.fail(S.succActor, ck, "missing actor")
      }
      guard sc[k] >= 1, sc[k] <= Int64(UInt32.max) else {
        throw ColumnDecoder.fail(S.succCtr, ck, "counter out of range")
      }
      succKeys.append(Reconstruction.pack(UInt32(sc[k]), UInt32(sa[k])))
    }
    // Value payload offsets; the payloads must fill the raw column exactly.
    guard valRaw.count <= Int(UInt32.max) else {
      throw ColumnDecoder.fail(S.valRaw, ck, "value column longer than 4 GiB")
    }
    valBlock.reserveCapacity(n / 16 + 1)
    var pos = 0
    for i in 0..<n {
      if i & 15 == 0 { valBlock.append(UInt32(truncatingIfNeeded: pos)) }
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

  /// Automerge 0.11 (Rust 3.x) refuses a document in which a mark's end op comes before its
  /// begin op (§8.6): the end of the mark begun by op `c@a` is op `(c+1)@a`, and the document
  /// stores a sequence's ops in sequence order. Automerge 0.6.1, which the Minuta app ships,
  /// opens such a document, and a mark changes no JSON, so nothing is lost by opening it:
  /// the reason is returned for `doc check` to report, not thrown.
  func checkMarkOrder() -> String? {
    var begins: [UInt64: Int] = [:]
    var ends: [(id: UInt64, index: Int)] = []
    for i in 0..<action.count where action[i] == 7 {
      let id = Reconstruction.pack(idCtr[i], idActor[i])
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
    let block = k >> 4
    var pos = Int(valBlock[block])
    var j = block << 4
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
  private func packObject(_ a: UInt64, _ c: UInt64) -> UInt64 {
    if a == ColumnDecoder.nullUInt && c == ColumnDecoder.nullUInt { return 0 }
    guard a < UInt64(actors.count), c >= 1, c <= UInt64(UInt32.max) else {
      return UInt64(Tag.badObject)
    }
    return Reconstruction.pack(UInt32(c), UInt32(a))
  }

  /// Packs a key column triple; an invalid key is tagged with its error, thrown when used.
  private func packKey(_ s: Int32, _ a: UInt64, _ c: Int64) -> UInt64 {
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
    guard a < UInt64(actors.count), c >= 0, c <= Int64(UInt32.max) else {
      return UInt64(Tag.badElement)
    }
    return Reconstruction.pack(UInt32(c), UInt32(a))
  }

  /// The object of stored op `i` as a packed key (root = 0; real ids have counter ≥ 1).
  @inline(__always) func objectKey(_ i: Int) throws -> UInt64 {
    let v = objectTable[Int(objects[i])]
    guard v != UInt64(Tag.badObject) else {
      throw ColumnDecoder.fail(S.objActor, chunk, "invalid object id")
    }
    return v
  }

  /// The key of stored op `i`: (kind, packed) with kind 0 = map string index, 1 = head,
  /// 2 = element id.
  @inline(__always) func keyOf(_ i: Int) throws -> (kind: UInt8, value: UInt64) {
    let v = keys[i]
    let tag = UInt32(truncatingIfNeeded: v)
    if tag < Tag.first { return (2, v) }
    switch tag {
    case Tag.map: return (0, v >> 32)
    case Tag.head: return (1, 0)
    case Tag.stringAndElement:
      throw ColumnDecoder.fail(S.keyStr, chunk, "key with both a string and an element id")
    case Tag.badKey: throw ColumnDecoder.fail(S.keyCtr, chunk, "invalid key")
    default: throw ColumnDecoder.fail(S.keyActor, chunk, "invalid element id")
    }
  }

  /// Whether two keys are equal; map keys compare by UTF-8 bytes (each string run has its
  /// own table entry, so equal keys may have different indices).
  @inline(__always) func sameKey(_ a: (kind: UInt8, value: UInt64), _ b: (UInt8, UInt64)) -> Bool {
    guard a.kind == b.0 else { return false }
    if a.value == b.1 { return true }
    guard a.kind == 0 else { return false }
    return strings[Int(a.value)].utf8.elementsEqual(strings[Int(b.1)].utf8)
  }

  /// Runs §7.5 steps 1 to 6 and returns the regenerated changes in row order.
  /// `spareCapacity`: room to reserve in the returned array beyond its changes.
  mutating func reconstruct(keepOps: Bool, keepChunks: Bool = true, spareCapacity: Int = 0)
    throws -> (changes: [Change], opCounts: [Int32])
  {
    let n = opCount
    let rows = rowActor.count

    // Steps 1-3: preds from succ lists, group by group; leftovers become del ops.
    var predStart = [Int32](repeating: 0, count: n + 1)
    var predFlat: [UInt64] = []
    predFlat.reserveCapacity(succKeys.count)
    var delId: [UInt64] = []
    var delObj: [UInt64] = []
    var delKeyKind: [UInt8] = []
    var delKey: [UInt64] = []
    var delPredStart: [Int32] = []
    var delPredFlat: [UInt64] = []
    var pairs: [(succ: UInt64, pred: UInt64)] = []
    var matched: [Bool] = []

    var succPos = 0
    var i = 0
    var previousObject: UInt64 = 0
    while i < n {
      let obj = try objectKey(i)
      guard obj >= previousObject else { throw fail("ops out of order") }
      previousObject = obj
      let k0 = try keyOf(i)
      let group: (UInt8, UInt64) = isInsert(i) ? (2, Reconstruction.pack(idCtr[i], idActor[i])) : k0
      var j = i
      pairs.removeAll(keepingCapacity: true)
      while j < n {
        if j > i {
          guard try objectKey(j) == obj else { break }
          let kj = try keyOf(j)
          if isInsert(j) || !sameKey(kj, group) { break }
        }
        let count = j < succNum.count ? Int(succNum[j]) : 0
        let id = Reconstruction.pack(idCtr[j], idActor[j])
        var previous: UInt64 = 0
        for s in succKeys[succPos..<(succPos + count)] {
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
        for o in i..<j { predStart[o + 1] = Int32(predFlat.count) }
      } else {
        pairs.sort { $0.succ != $1.succ ? $0.succ < $1.succ : $0.pred < $1.pred }
        matched.removeAll(keepingCapacity: true)
        matched.append(contentsOf: repeatElement(false, count: pairs.count))
        for o in i..<j {
          let id = Reconstruction.pack(idCtr[o], idActor[o])
          var lo = 0
          var hi = pairs.count
          while lo < hi {
            let mid = (lo + hi) / 2
            if pairs[mid].succ < id { lo = mid + 1 } else { hi = mid }
          }
          while lo < pairs.count && pairs[lo].succ == id {
            predFlat.append(pairs[lo].pred)
            matched[lo] = true
            lo += 1
          }
          predStart[o + 1] = Int32(predFlat.count)
        }
        var p = 0
        while p < pairs.count {
          if matched[p] {
            p += 1
            continue
          }
          let s = pairs[p].succ
          delId.append(s)
          delObj.append(obj)
          delKeyKind.append(group.0)
          delKey.append(group.1)
          delPredStart.append(Int32(delPredFlat.count))
          while p < pairs.count && pairs[p].succ == s {
            delPredFlat.append(pairs[p].pred)
            p += 1
          }
        }
      }
      i = j
    }
    delPredStart.append(Int32(delPredFlat.count))
    let delCount = delId.count
    // The successor columns are consumed: free them before the changes are built.
    succNum = PackedUInts()
    succKeys = []

    // Step 5: each op belongs to the first change row of its actor whose maxOp ≥ counter.
    var rowsByActor = [[Int32]](repeating: [], count: actors.count)
    var nextSeq = [UInt64](repeating: 1, count: actors.count)
    for r in 0..<rows {
      let a = Int(rowActor[r])
      guard rowSeq[r] == nextSeq[a] else {
        throw ColumnDecoder.fail(
          S.changeSeq, chunk, "seq \(rowSeq[r]) of actor \(actors[a]) should be \(nextSeq[a])")
      }
      nextSeq[a] += 1
      if let last = rowsByActor[a].last, rowMaxOp[Int(last)] > rowMaxOp[r] {
        throw ColumnDecoder.fail(S.changeMaxOp, chunk, "max op decreases for actor \(actors[a])")
      }
      rowsByActor[a].append(Int32(r))
    }
    let total = n + delCount
    // The helpers read local copies, not `self`: a closure over `self` in this mutating
    // method makes the calls below copy the whole struct.
    let opCtr = idCtr
    let opActor = idActor
    let maxOps = rowMaxOp
    let actorIds = actors
    let ck = chunk
    @inline(__always) func counter(_ k: Int) -> UInt32 {
      k < n ? opCtr[k] : UInt32(truncatingIfNeeded: delId[k - n] >> 32)
    }
    /// The change row of op `k` (its actor's first row whose max op is ≥ its counter).
    func rowOf(_ k: Int) throws -> Int32 {
      let ctr = counter(k)
      let actor = k < n ? Int(opActor[k]) : Int(UInt32(truncatingIfNeeded: delId[k - n]))
      let list = rowsByActor[actor]
      var lo = 0
      var hi = list.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if maxOps[Int(list[mid])] < ctr { lo = mid + 1 } else { hi = mid }
      }
      guard lo < list.count else {
        throw AutomergeDecodeError.invalidDocument(
          reason: "op \(ctr)@\(actorIds[actor]) belongs to no change (missing change)", offset: ck)
      }
      return list[lo]
    }
    var rowOfOp = [Int32](repeating: 0, count: total)
    var perRow = [Int32](repeating: 0, count: rows + 1)
    for k in 0..<total {
      let row = try rowOf(k)
      rowOfOp[k] = row
      perRow[Int(row) + 1] += 1
    }
    for r in 0..<rows { perRow[r + 1] += perRow[r] }
    // Each op goes straight to its place in counter order: a valid change's ops are
    // numbered `startOp...maxOp` with `startOp = maxOp + 1 - count`. A row whose ops do
    // not fit (a counter below startOp, or two on one slot) is marked `misplaced`: it is
    // invalid, and step 6 rebuilds its op list to throw the error in row order.
    var opsByRow = [Int32](repeating: -1, count: total)
    var misplaced = [Bool](repeating: false, count: rows)
    for k in 0..<total {
      let r = Int(rowOfOp[k])
      let start = Int(perRow[r])
      let slot = Int64(counter(k)) + Int64(Int(perRow[r + 1]) - start) - 1 - Int64(rowMaxOp[r])
      if slot >= 0, opsByRow[start + Int(slot)] < 0 {
        opsByRow[start + Int(slot)] = Int32(k)
      } else {
        misplaced[r] = true
      }
    }
    rowOfOp = []

    // Step 6: build each change and hash it.
    var encoder = ChangeEncoder()
    var changes: [Change] = []
    changes.reserveCapacity(rows + spareCapacity)
    var opCounts: [Int32] = []
    opCounts.reserveCapacity(rows)
    var local = [Int32](repeating: -1, count: actors.count)
    var others: [Int32] = []
    var soloActors: [[ActorId]?] = Array(repeating: nil, count: actors.count)
    var actorTables: [[Int32]: [ActorId]] = [:]
    var lastAuthor = -1
    var lastOthers: [Int32] = []
    var lastTable: [ActorId] = []
    var ops: [Op] = []
    let arena = stringArena()
    try arena.bytes.withUnsafeBufferPointer { arenaBytes in
      try valRaw.withUnsafeBufferPointer { values in
        let text = StringTable(bytes: arenaBytes, start: arena.start)
        for r in 0..<rows {
          let author = Int(rowActor[r])
          let start = Int(perRow[r])
          let end = Int(perRow[r + 1])
          let count = end - start
          let maxOp = UInt64(rowMaxOp[r])
          if misplaced[r] {
            // The checks of a valid row, on the row's ops in counter order; one fails.
            var counters: [(ctr: UInt32, k: Int32)] = []
            for k in 0..<total where try rowOf(k) == Int32(r) {
              counters.append((counter(k), Int32(k)))
            }
            counters.sort { $0.ctr < $1.ctr }
            guard UInt64(count) <= maxOp || (count == 0) else {
              throw fail("change \(r) has more ops than its max op")
            }
            let startOp = maxOp + 1 - UInt64(count)
            guard startOp >= 1 else { throw fail("change \(r) has start op 0") }
            for (q, c) in counters.enumerated() where UInt64(c.ctr) != startOp + UInt64(q) {
              throw fail("ops of change \(r) are not consecutive from \(startOp)")
            }
            throw fail("ops of change \(r) are not consecutive from \(startOp)")
          }
          guard UInt64(count) <= maxOp || (count == 0) else {
            throw fail("change \(r) has more ops than its max op")
          }
          let startOp = maxOp + 1 - UInt64(count)
          guard startOp >= 1 else { throw fail("change \(r) has start op 0") }
          let counters = opsByRow[start..<end]

          // Actors other than the author, sorted by bytes (= index order).
          others.removeAll(keepingCapacity: true)
          @inline(__always) func note(_ a: Int) {
            if a != author && local[a] < 0 {
              local[a] = 0
              others.append(Int32(a))
            }
          }
          for c in counters {
            let k = Int(c)
            let objKey: UInt64
            let kind: UInt8
            let keyValue: UInt64
            let ps: Int
            let pe: Int
            if k < n {
              objKey = try objectKey(k)
              (kind, keyValue) = try keyOf(k)
              ps = Int(predStart[k])
              pe = Int(predStart[k + 1])
            } else {
              objKey = delObj[k - n]
              kind = delKeyKind[k - n]
              keyValue = delKey[k - n]
              ps = Int(delPredStart[k - n])
              pe = Int(delPredStart[k - n + 1])
            }
            if objKey != 0 { note(Int(UInt32(truncatingIfNeeded: objKey))) }
            if kind == 2 { note(Int(UInt32(truncatingIfNeeded: keyValue))) }
            if k < n {
              for p in ps..<pe { note(Int(UInt32(truncatingIfNeeded: predFlat[p]))) }
            } else {
              for p in ps..<pe { note(Int(UInt32(truncatingIfNeeded: delPredFlat[p]))) }
            }
          }
          others.sort()
          local[author] = 0
          for (q, a) in others.enumerated() { local[Int(a)] = Int32(q + 1) }
          let table: [ActorId]
          if others.isEmpty {
            if let t = soloActors[author] {
              table = t
            } else {
              table = [actors[author]]
              soloActors[author] = table
            }
          } else if author == lastAuthor && others == lastOthers {
            // Consecutive changes often share their actor table: no key to build.
            table = lastTable
          } else {
            let key = [Int32(author)] + others
            if let t = actorTables[key] {
              table = t
            } else {
              var t = [actors[author]]
              for a in others { t.append(actors[Int(a)]) }
              actorTables[key] = t
              table = t
            }
            lastAuthor = author
            lastOthers = others
            lastTable = table
          }

          // The chunk is encoded straight from the columns; `Op` values are built only when
          // they are kept.
          if keepOps {
            ops = []
            ops.reserveCapacity(count)
          }
          for c in counters {
            let k = Int(c)
            if k < n {
              try encodeStoredOp(
                k, local: local, predFlat: predFlat, predStart: predStart, into: &encoder,
                text: text, values: values)
              if keepOps {
                ops.append(try storedOp(k, local: local, predFlat: predFlat, predStart: predStart))
              }
            } else {
              let d = k - n
              let ps = Int(delPredStart[d])
              let pe = Int(delPredStart[d + 1])
              encodeObject(delObj[d], local, into: &encoder)
              encodeKey(delKeyKind[d], delKey[d], local, into: &encoder, text: text)
              encoder.appendFlags(insert: false, action: Action.delete.rawValue)
              encoder.appendNullValue()
              encoder.appendPredCount(pe - ps)
              for p in ps..<pe { encodePred(delPredFlat[p], local, into: &encoder) }
              encoder.appendExpand(false)
              encoder.appendMarkName(nil)
              if keepOps {
                var pred: [OpId] = []
                pred.reserveCapacity(pe - ps)
                for p in ps..<pe { pred.append(localId(delPredFlat[p], local)) }
                ops.append(
                  Op(
                    object: delObj[d] == 0 ? .root : .object(localId(delObj[d], local)),
                    key: keyValue(delKeyKind[d], delKey[d], local), insert: false, action: .delete,
                    value: .null, pred: pred))
              }
            }
          }
          local[author] = -1
          for a in others { local[Int(a)] = -1 }

          var deps: [ChangeHash] = []
          let ds = rowDepsStart[r]
          let de = rowDepsStart[r + 1]
          if de > ds {
            deps.reserveCapacity(de - ds)
            for q in ds..<de { deps.append(changes[Int(depsIndex[q])].hash) }
            deps.sort()
          }
          let message: String?
          if r < rowMessage.count, rowMessage[r] >= 0 {
            let m = messages[Int(rowMessage[r])]
            message = m.isEmpty ? nil : m
          } else {
            message = nil
          }
          let extra = extraBytes(r)
          let (chunkBytes, hash) = encoder.finish(
            actors: table, seq: rowSeq[r], startOp: startOp, time: rowTime[r], message: message,
            deps: deps,
            extra: extra, keepChunk: keepChunks)
          changes.append(
            Change(
              hash: hash, actors: table, seq: rowSeq[r], startOp: startOp, time: rowTime[r],
              message: message,
              deps: deps, ops: keepOps ? ops : [], extra: extra, chunk: chunkBytes))
          opCounts.append(Int32(truncatingIfNeeded: count))
        }
      }
    }
    return (changes, opCounts)
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

  /// Validates stored op `k` as `storedOp` does (same checks, same order, same errors) and
  /// appends it to the change being encoded.
  @inline(__always) private func encodeStoredOp(
    _ k: Int, local: [Int32], predFlat: [UInt64], predStart: [Int32], into e: inout ChangeEncoder,
    text: StringTable, values: UnsafeBufferPointer<UInt8>
  ) throws {
    let objKey = try objectKey(k)
    let (kind, kv) = try keyOf(k)
    let a = actionValue(k)
    guard a <= 7 else {
      throw ColumnDecoder.fail(
        S.action, chunk,
        "unrecognized action index \(a == ColumnDecoder.nullUInt ? "null" : String(a))")
    }
    let m = meta(k)
    let start = valueStart(k)
    try ValueDecoder.validate(meta: m, raw: values, start: start, spec: S.valRaw, chunk: chunk)
    if a == UInt64(Action.increment.rawValue) {
      let code = m & 0x0f
      guard code == 3 || code == 4 else {
        throw ColumnDecoder.fail(S.valMeta, chunk, "increment without an integer value")
      }
    }
    encodeObject(objKey, local, into: &e)
    encodeKey(kind, kv, local, into: &e, text: text)
    e.appendFlags(insert: isInsert(k), action: UInt8(truncatingIfNeeded: a))
    e.appendValue(
      meta: m, payload: UnsafeBufferPointer(rebasing: values[start..<(start + Int(m >> 4))]))
    let ps = Int(predStart[k])
    let pe = Int(predStart[k + 1])
    e.appendPredCount(pe - ps)
    for p in ps..<pe { encodePred(predFlat[p], local, into: &e) }
    e.appendExpand(k < expand.count ? expand[k] : false)
    if k < markName.count && markName[k] >= 0 {
      e.appendMarkName(text[Int(markName[k])])
    } else {
      e.appendMarkName(nil)
    }
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
    _ kind: UInt8, _ v: UInt64, _ local: [Int32], into e: inout ChangeEncoder, text: StringTable
  ) {
    switch kind {
    case 0: e.appendMapKey(text[Int(v)])
    case 1: e.appendHeadKey()
    default:
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

  @inline(__always) private func keyValue(_ kind: UInt8, _ v: UInt64, _ local: [Int32]) -> Key {
    switch kind {
    case 0: return .map(strings[Int(v)])
    case 1: return .head
    default: return .element(localId(v, local))
    }
  }

  private func storedOp(_ k: Int, local: [Int32], predFlat: [UInt64], predStart: [Int32]) throws
    -> Op
  {
    let objKey = try objectKey(k)
    let (kind, kv) = try keyOf(k)
    let a = actionValue(k)
    guard a <= 7, let act = Action(rawValue: UInt8(a)) else {
      throw ColumnDecoder.fail(
        S.action, chunk,
        "unrecognized action index \(a == ColumnDecoder.nullUInt ? "null" : String(a))")
    }
    let value = try valRaw.withUnsafeBufferPointer {
      try ValueDecoder.decode(
        meta: meta(k), raw: $0, start: valueStart(k), spec: S.valRaw, chunk: chunk)
    }
    if act == .increment {
      switch value {
      case .int, .uint: break
      default: throw ColumnDecoder.fail(S.valMeta, chunk, "increment without an integer value")
      }
    }
    let ps = Int(predStart[k])
    let pe = Int(predStart[k + 1])
    var pred: [OpId] = []
    if pe > ps {
      pred.reserveCapacity(pe - ps)
      for p in ps..<pe { pred.append(localId(predFlat[p], local)) }
    }
    let name: String? = k < markName.count && markName[k] >= 0 ? strings[Int(markName[k])] : nil
    return Op(
      object: objKey == 0 ? .root : .object(localId(objKey, local)), key: keyValue(kind, kv, local),
      insert: isInsert(k), action: act, value: value, pred: pred,
      expand: k < expand.count ? expand[k] : false, markName: name)
  }
}
