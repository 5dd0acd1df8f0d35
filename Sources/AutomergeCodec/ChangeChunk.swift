/// Change chunks (type 1): the body layout of §6.1, the op columns of §6.2 and the canonical
/// writer of §6.6.
enum ChangeChunk {
  /// The most op rows a change may declare: generous (DEFLATE's own worst ratio, or 1 M
  /// rows), but finite, so that a tiny hostile run length never allocates gigabytes.
  static func rowLimit(forBytes count: Int) -> Int {
    max(1 << 20, min(Int(UInt32.max), 1040 &* count))
  }

  /// Decodes a change body (§6.1).
  ///
  /// - Parameters:
  ///   - body: the body bytes (for a type-2 chunk: the inflated body).
  ///   - base: the absolute offset of `body[0]` in the file, for errors.
  ///   - chunkOffset: the offset of the chunk in the file, for column errors.
  ///   - hash: the change hash, already computed by the chunk layer.
  ///   - chunk: the canonical type-1 chunk bytes to keep in `Change.chunk`.
  /// - Returns: the change, with its ops.
  /// - Throws: `AutomergeDecodeError` for malformed bytes.
  static func decode(
    body: UnsafeBufferPointer<UInt8>, base: Int, chunkOffset: Int, hash: ChangeHash, chunk: [UInt8]
  ) throws -> Change {
    var r = ByteReader(body, base: base)
    let deps = try r.hashes(count: "deps count", each: "dependency hash")
    let author = try r.byteString("actor id")
    let seq = try r.uleb("seq")
    let startAt = r.offset
    let startOp = try r.uleb("start op")
    let time = try r.sleb("time")
    let message = try r.string("message")
    let otherCount = try r.length("other actors count", limit: r.remaining)
    var actors = [ActorId(author)]
    actors.reserveCapacity(otherCount + 1)
    for _ in 0..<otherCount { actors.append(ActorId(try r.byteString("actor id"))) }
    let metaAt = r.offset
    let entries = try ColumnMetadata.read(&r, allowDeflate: false)
    let columns = try ColumnMetadata.layout(entries, &r)
    let extraRange = try r.skip(r.remaining, "extra bytes")
    let extra = Array(UnsafeBufferPointer(rebasing: body[extraRange]))
    _ = metaAt

    guard startOp >= 1 else {
      throw AutomergeDecodeError.invalidChange(reason: "start op is 0", offset: startAt)
    }
    guard startOp <= UInt64(UInt32.max) else {
      throw AutomergeDecodeError.invalidChange(reason: "counter too large", offset: startAt)
    }
    let ops = try decodeOps(
      body, columns: columns, actorCount: actors.count, chunkOffset: chunkOffset,
      limit: rowLimit(forBytes: body.count))
    guard startOp + UInt64(ops.count) - 1 <= UInt64(UInt32.max) || ops.isEmpty else {
      throw AutomergeDecodeError.invalidChange(reason: "counter too large", offset: startAt)
    }
    return Change(
      hash: hash, actors: actors, seq: seq, startOp: startOp, time: time,
      message: message.isEmpty ? nil : message, deps: ChangeDeps(deps), ops: ops, extra: extra,
      chunk: chunk)
  }

  /// Decodes the op columns of §6.2 into ops with change-local actor indices (§6.3).
  static func decodeOps(
    _ buf: UnsafeBufferPointer<UInt8>, columns: [ColumnEntry], actorCount: Int, chunkOffset: Int,
    limit: Int
  ) throws -> [Op] {
    func data(_ spec: UInt32) -> UnsafeBufferPointer<UInt8>? {
      for c in columns where c.spec == spec { return UnsafeBufferPointer(rebasing: buf[c.range]) }
      return nil
    }
    typealias S = ColumnSpecs
    let ck = chunkOffset
    guard let actionData = data(S.action) else {
      // No action column: no ops. Any other op column must then be empty too.
      for c in columns where c.spec < 160 && !c.range.isEmpty && isKnownOpColumn(c.spec) {
        throw ColumnDecoder.fail(c.spec, ck, "more values than rows")
      }
      return []
    }
    let actions = try ColumnDecoder.uint(actionData, limit: limit, spec: S.action, chunk: ck)
    let n = actions.count
    // Every other column has a row per op (the preds' a row per pred): each is made at that
    // size, not grown by doubling from empty (a Minuta month's 1,953 changes grew their
    // columns 35,710 times).
    func uint(_ s: UInt32, _ lim: Int) throws -> [UInt64] {
      guard let d = data(s) else { return [] }
      return try ColumnDecoder.uint(d, limit: lim, spec: s, chunk: ck, expected: lim)
    }
    func delta(_ s: UInt32, _ lim: Int) throws -> [Int64] {
      guard let d = data(s) else { return [] }
      return try ColumnDecoder.delta(d, limit: lim, spec: s, chunk: ck, expected: lim)
    }
    func bools(_ s: UInt32) throws -> [Bool] {
      guard let d = data(s) else { return [] }
      return try ColumnDecoder.boolean(d, limit: n, spec: s, chunk: ck, expected: n)
    }
    var strings: [String] = []
    func strs(_ s: UInt32) throws -> [Int32] {
      guard let d = data(s) else { return [] }
      return try ColumnDecoder.string(d, limit: n, spec: s, chunk: ck, table: &strings, expected: n)
    }
    let objActor = try uint(S.objActor, n)
    let objCtr = try uint(S.objCtr, n)
    let keyActor = try uint(S.keyActor, n)
    let keyCtr = try delta(S.keyCtr, n)
    let keyStr = try strs(S.keyStr)
    let insert = try bools(S.insert)
    let valMeta = try uint(S.valMeta, n)
    let raw = data(S.valRaw) ?? UnsafeBufferPointer(start: nil, count: 0)
    let predNum = try uint(S.predNum, n)
    let predSum = try groupTotal(predNum, spec: S.predNum, limit: limit, chunk: ck)
    let predActor = try uint(S.predActor, predSum)
    let predCtr = try delta(S.predCtr, predSum)
    let expand = try bools(S.expand)
    let markName = try strs(S.markName)

    guard insert.count == n else {
      throw ColumnDecoder.fail(
        S.insert, ck, "insert column has \(insert.count) values for \(n) ops")
    }
    let columnsRef = OpColumnsRef(
      actorCount: actorCount, chunk: ck, objActor: objActor, objCtr: objCtr, keyActor: keyActor,
      keyCtr: keyCtr, keyStr: keyStr, strings: strings)
    var ops: [Op] = []
    ops.reserveCapacity(n)
    var rawOffset = 0
    var predIndex = 0
    for i in 0..<n {
      let action = actions[i]
      guard action <= 7, let act = Action(rawValue: UInt8(action)) else {
        throw ColumnDecoder.fail(
          S.action, ck,
          "unrecognized action index \(action == ColumnDecoder.nullUInt ? "null" : String(action))")
      }
      let object = try columnsRef.object(i)
      let key = try columnsRef.key(i)
      let meta =
        i < valMeta.count ? valMeta[i] : (data(S.valMeta) == nil ? 0 : ColumnDecoder.nullUInt)
      guard meta != ColumnDecoder.nullUInt else {
        throw ColumnDecoder.fail(S.valMeta, ck, "null value metadata")
      }
      let length = meta >> 4
      guard length <= UInt64(raw.count - rawOffset) else {
        throw ColumnDecoder.fail(S.valRaw, ck, "value payload past the end of the column")
      }
      let value = try ValueDecoder.decode(
        meta: meta, raw: raw, start: rawOffset, spec: S.valRaw, chunk: ck)
      rawOffset += Int(length)
      if act == .increment {
        switch value {
        case .int, .uint: break
        default: throw ColumnDecoder.fail(S.valMeta, ck, "increment without an integer value")
        }
      }
      let count = i < predNum.count ? predNum[i] : 0
      var pred: [OpId] = []
      if count > 0 {
        pred.reserveCapacity(Int(count))
        for _ in 0..<Int(count) {
          guard predIndex < predActor.count, predIndex < predCtr.count else {
            throw ColumnDecoder.fail(S.predActor, ck, "missing pred")
          }
          let a = predActor[predIndex]
          let c = predCtr[predIndex]
          guard a < UInt64(actorCount) else {
            throw ColumnDecoder.fail(S.predActor, ck, "missing actor \(a)")
          }
          guard c >= 0 && c <= Int64(UInt32.max) else {
            throw ColumnDecoder.fail(S.predCtr, ck, "counter too large")
          }
          pred.append(OpId(counter: UInt32(c), actor: UInt32(a)))
          predIndex += 1
        }
      }
      let name: String?
      if i < markName.count, markName[i] >= 0 {
        name = strings[Int(markName[i])]
      } else {
        name = nil
      }
      ops.append(
        Op(
          object: object, key: key, insert: insert[i], action: act, value: value, pred: pred,
          expand: i < expand.count ? expand[i] : false, markName: name))
    }
    guard rawOffset == raw.count else {
      throw ColumnDecoder.fail(S.valRaw, ck, "extra bytes in value column")
    }
    guard predIndex == predActor.count, predIndex == predCtr.count else {
      throw ColumnDecoder.fail(S.predActor, ck, "pred columns longer than their group")
    }
    return ops
  }

  static func isKnownOpColumn(_ spec: UInt32) -> Bool {
    switch spec {
    case 1, 2, 17, 19, 21, 52, 66, 86, 87, 112, 113, 115, 148, 165: return true
    default: return false
    }
  }

  /// The sum of a group column's counts, as `groupTotal(_:spec:limit:chunk:)`.
  static func groupTotal(_ counts: PackedUInts, spec: UInt32, limit: Int, chunk: Int) throws -> Int
  {
    try groupTotal(counts.count, { counts[$0] }, spec: spec, limit: limit, chunk: chunk)
  }

  /// The sum of a group column's counts, which must stay within `limit`.
  static func groupTotal(_ counts: [UInt64], spec: UInt32, limit: Int, chunk: Int) throws -> Int {
    try groupTotal(counts.count, { counts[$0] }, spec: spec, limit: limit, chunk: chunk)
  }

  /// The sum of `count` group counts, read by `value`, which must stay within `limit`.
  private static func groupTotal(
    _ count: Int, _ value: (Int) -> UInt64, spec: UInt32, limit: Int, chunk: Int
  ) throws -> Int {
    var total: UInt64 = 0
    for i in 0..<count {
      let c = value(i)
      guard c != ColumnDecoder.nullUInt else {
        throw ColumnDecoder.fail(spec, chunk, "null group count")
      }
      // Checked before adding: a count near 2^64 must not overflow the sum.
      guard c <= UInt64(max(limit, 0)) - total else {
        throw ColumnDecoder.fail(spec, chunk, "group counts too large")
      }
      total += c
    }
    return Int(total)
  }
}

/// The object and key columns of one chunk, shared by the change and document decoders.
struct OpColumnsRef {
  let actorCount: Int
  let chunk: Int
  let objActor: [UInt64]
  let objCtr: [UInt64]
  let keyActor: [UInt64]
  let keyCtr: [Int64]
  let keyStr: [Int32]
  let strings: [String]

  @inline(__always) func object(_ i: Int) throws -> ObjectRef {
    let a = i < objActor.count ? objActor[i] : ColumnDecoder.nullUInt
    let c = i < objCtr.count ? objCtr[i] : ColumnDecoder.nullUInt
    if a == ColumnDecoder.nullUInt && c == ColumnDecoder.nullUInt { return .root }
    guard a != ColumnDecoder.nullUInt, c != ColumnDecoder.nullUInt else {
      throw ColumnDecoder.fail(
        ColumnSpecs.objActor, chunk, "object id with only one of actor and counter")
    }
    guard a < UInt64(actorCount) else {
      throw ColumnDecoder.fail(ColumnSpecs.objActor, chunk, "missing actor \(a)")
    }
    guard c <= UInt64(UInt32.max) else {
      throw ColumnDecoder.fail(ColumnSpecs.objCtr, chunk, "counter too large")
    }
    return .object(OpId(counter: UInt32(c), actor: UInt32(a)))
  }

  @inline(__always) func key(_ i: Int) throws -> Key {
    let s = i < keyStr.count ? keyStr[i] : -1
    let a = i < keyActor.count ? keyActor[i] : ColumnDecoder.nullUInt
    let c = i < keyCtr.count ? keyCtr[i] : ColumnDecoder.nullInt
    if s >= 0 {
      guard a == ColumnDecoder.nullUInt, c == ColumnDecoder.nullInt else {
        throw ColumnDecoder.fail(
          ColumnSpecs.keyStr, chunk, "key with both a string and an element id")
      }
      return .map(strings[Int(s)])
    }
    if a == ColumnDecoder.nullUInt {
      guard c == 0 else { throw ColumnDecoder.fail(ColumnSpecs.keyCtr, chunk, "invalid key") }
      return .head
    }
    guard a < UInt64(actorCount) else {
      throw ColumnDecoder.fail(ColumnSpecs.keyActor, chunk, "missing actor \(a)")
    }
    guard c >= 0 && c <= Int64(UInt32.max) else {
      throw ColumnDecoder.fail(
        ColumnSpecs.keyCtr, chunk, c == ColumnDecoder.nullInt ? "invalid key" : "counter too large")
    }
    return .element(OpId(counter: UInt32(c), actor: UInt32(a)))
  }
}
