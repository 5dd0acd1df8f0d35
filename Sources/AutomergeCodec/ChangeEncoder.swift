/// The canonical change-chunk writer (§6.6), reusable across changes.
///
/// Column encoders and buffers are kept between calls, so that regenerating hundreds of
/// thousands of changes from a document allocates little besides the chunks kept.
/// Not to be copied: a copy would share its chunk buffer.
struct ChangeEncoder: ~Copyable {
  private var objActor = RLEEncoder<UInt64>()
  private var objCtr = RLEEncoder<UInt64>()
  private var keyActor = RLEEncoder<UInt64>()
  private var keyCtr = DeltaEncoder()
  private var keyStr = StringRLEEncoder()
  private var insert = BooleanEncoder()
  private var action = RLEEncoder<UInt64>()
  private var value = ValueEncoder()
  private var predNum = RLEEncoder<UInt64>()
  private var predActor = RLEEncoder<UInt64>()
  private var predCtr = DeltaEncoder()
  private var expand = BooleanEncoder()
  private var markName = StringRLEEncoder()
  private var body = ByteWriter()
  /// The byte length of each column of `columnSpecs` (reused).
  private var lengths = [Int](repeating: 0, count: 14)
  /// The chunk being written, reused from change to change.
  private var chunk = ByteBuffer()
  /// The change's columns from the values on, written by another encoder (`adopt`), or nil.
  private var later: LaterColumns? = nil

  init() {}

  /// The op columns of a change from the values to the mark names (all those after the
  /// objects, keys, inserts and actions), closed and written out, as `takeLaterColumns`
  /// gives them: what one thread encodes of a change while another encodes the rest.
  struct LaterColumns: Sendable {
    /// The columns' data, back to back.
    var bytes: [UInt8]
    /// Each column's length, from the values' metadata on.
    var lengths: [Int]
  }

  /// The index in `columnSpecs` of the first of the later columns (the values' metadata).
  private static let firstLaterColumn = 7

  /// Closes the later columns of the ops appended so far (values, preds, expands and mark
  /// names, all this encoder is to be given) and gives them; they are empty afterwards.
  mutating func takeLaterColumns() -> LaterColumns {
    closeLaterColumns()
    let own = lengths[ChangeEncoder.firstLaterColumn...]
    var bytes: [UInt8] = []
    bytes.reserveCapacity(own.reduce(0, +))
    drainLaterColumns(into: &bytes)
    return LaterColumns(bytes: bytes, lengths: Array(own))
  }

  /// Takes `columns` as this change's later columns: this encoder is then given only the
  /// change's objects, keys and flags, and the next `finish` or `finishAfterDeps` writes
  /// `columns` after them, in place of its own later columns (left untouched).
  mutating func adopt(_ columns: LaterColumns) {
    later = columns
  }

  /// Encodes a change as its canonical type-1 chunk.
  ///
  /// The ops' actor indices refer to `actors` (index 0 = author); `actors` is written as is,
  /// so a decoded change re-encodes to its own bytes. `deps` are written in the given order.
  /// - Returns: the whole chunk (magic to end) and its hash.
  mutating func encode(
    actors: [ActorId], seq: UInt64, startOp: UInt64, time: Int64, message: String?,
    deps: ChangeDeps, ops: [Op], extra: [UInt8]
  ) -> (chunk: [UInt8], hash: ChangeHash) {
    for op in ops { append(op) }
    let hash = finish(
      actors: actors, seq: seq, startOp: startOp, time: time, message: message, deps: deps,
      extra: extra)
    return (lastChunk, hash)
  }

  /// Appends one op of the change being encoded (actor indices as in `encode`).
  mutating func append(_ op: Op) {
    switch op.object {
    case .root: appendRootObject()
    case .object(let id): appendObject(actor: id.actor, counter: id.counter)
    }
    switch op.key {
    case .map(let s):
      keyActor.appendNull()
      keyCtr.appendNull()
      keyStr.append(s)
    case .head: appendHeadKey()
    case .element(let id): appendElementKey(actor: id.actor, counter: id.counter)
    }
    insert.append(op.insert)
    action.append(UInt64(op.action.rawValue))
    value.append(op.value)
    predNum.append(UInt64(op.pred.count))
    for p in op.pred { appendPred(actor: p.actor, counter: p.counter) }
    expand.append(op.expand)
    if let name = op.markName { markName.append(name) } else { markName.appendNull() }
  }

  // The column-by-column form of `encode`, for writers that hold ops as flat columns
  // rather than `Op` values: per op, in order, an object, a key, `appendFlags`, a value,
  // `appendPredCount` and that many `appendPred`, `appendExpand` and a mark name; then
  // `finish`.

  @inline(__always) mutating func appendRootObject() {
    objActor.appendNull()
    objCtr.appendNull()
  }

  @inline(__always) mutating func appendObject(actor: UInt32, counter: UInt32) {
    objActor.append(UInt64(actor))
    objCtr.append(UInt64(counter))
  }

  @inline(__always) mutating func appendMapKey(_ utf8: UnsafeBufferPointer<UInt8>) {
    keyActor.appendNull()
    keyCtr.appendNull()
    keyStr.append(utf8)
  }

  @inline(__always) mutating func appendHeadKey() {
    keyActor.appendNull()
    keyCtr.append(0)
    keyStr.appendNull()
  }

  @inline(__always) mutating func appendElementKey(actor: UInt32, counter: UInt32) {
    keyActor.append(UInt64(actor))
    keyCtr.append(Int64(counter))
    keyStr.appendNull()
  }

  @inline(__always) mutating func appendFlags(insert isInsert: Bool, action code: UInt8) {
    insert.append(isInsert)
    action.append(UInt64(code))
  }

  /// A value in its encoded form (§5.9): metadata word and payload.
  @inline(__always) mutating func appendValue(meta: UInt64, payload: UnsafeBufferPointer<UInt8>) {
    value.appendEncoded(meta: meta, payload: payload)
  }

  @inline(__always) mutating func appendNullValue() { value.appendNull() }

  @inline(__always) mutating func appendPredCount(_ n: Int) { predNum.append(UInt64(n)) }

  @inline(__always) mutating func appendPred(actor: UInt32, counter: UInt32) {
    predActor.append(UInt64(actor))
    predCtr.append(Int64(counter))
  }

  @inline(__always) mutating func appendExpand(_ b: Bool) { expand.append(b) }

  @inline(__always) mutating func appendMarkName(_ utf8: UnsafeBufferPointer<UInt8>?) {
    if let u = utf8 { markName.append(u) } else { markName.appendNull() }
  }

  /// Writes the chunk of the ops appended so far, into a buffer reused from call to call,
  /// and returns its hash (`lastChunk` copies the chunk out); the column encoders are empty
  /// afterwards. Never inlined: in the document reconstruction's loop its size made the
  /// optimizer leave the array accesses around it as calls.
  @inline(never)
  mutating func finish(
    actors: [ActorId], seq: UInt64, startOp: UInt64, time: Int64, message: String?,
    deps: ChangeDeps, extra: [UInt8]
  ) -> ChangeHash {
    // Every column is closed first (its length goes in the body's column list), then
    // written once, straight into the chunk: no copy of the column data in between, and
    // no allocation per change once the buffers have grown.
    let dataLength = closeColumns()
    body.removeAll()
    body.uleb(UInt64(deps.count))
    for d in deps { body.hash(d) }
    writeFieldsAfterDeps(
      actors: actors, seq: seq, startOp: startOp, time: time, message: message)
    // The chunk is written in place: header, body fields, column data, extra bytes.
    let bodyLength = body.count + dataLength + extra.count
    chunk.removeAll()
    chunk.reserve(bodyLength + 19)
    ChangeEncoder.putHeader(type: 1, bodyLength: bodyLength, into: chunk)
    body.drain(into: &chunk)
    var sink = chunk  // a class: the column data goes into the same buffer
    drainColumns(into: &sink)
    chunk.put(extra)
    return ChangeEncoder.seal(chunk)
  }

  /// `finish` up to the deps: appends to `rest` what follows the deps in the change's body
  /// (the author and the other fields, the columns, the extra bytes), and empties the
  /// column encoders. `finish(deps:rest:)` gives the change's chunk and hash once its deps'
  /// are known.
  @inline(never)
  mutating func finishAfterDeps(
    actors: [ActorId], seq: UInt64, startOp: UInt64, time: Int64, message: String?,
    extra: [UInt8], into rest: inout [UInt8]
  ) {
    _ = closeColumns()
    body.removeAll()
    writeFieldsAfterDeps(
      actors: actors, seq: seq, startOp: startOp, time: time, message: message)
    body.drain(into: &rest)
    drainColumns(into: &rest)
    rest.append(contentsOf: extra)
  }

  /// The chunk of the change whose body is `deps` followed by `rest` (what
  /// `finishAfterDeps` wrote for it), as `finish` writes it: left in `lastChunk`, its hash
  /// returned. Not between a change's ops and its `finish`.
  mutating func finish(deps: ChangeDeps, rest: UnsafeBufferPointer<UInt8>) -> ChangeHash {
    let depsLength = ByteWriter.ulebLength(UInt64(deps.count)) + 32 * deps.count
    let bodyLength = depsLength + rest.count
    body.removeAll()
    body.uleb(UInt64(deps.count))
    for d in deps { body.hash(d) }
    chunk.removeAll()
    chunk.reserve(bodyLength + 19)
    ChangeEncoder.putHeader(type: 1, bodyLength: bodyLength, into: chunk)
    body.drain(into: &chunk)
    chunk.put(rest)
    return ChangeEncoder.seal(chunk)
  }

  /// Closes every column (or takes the adopted later columns' lengths), noting each one's
  /// length; returns their total.
  private mutating func closeColumns() -> Int {
    lengths[0] = objActor.close()
    lengths[1] = objCtr.close()
    lengths[2] = keyActor.close()
    lengths[3] = keyCtr.close()
    lengths[4] = keyStr.close()
    lengths[5] = insert.close()
    lengths[6] = action.close()
    if let columns = later {
      lengths.replaceSubrange(ChangeEncoder.firstLaterColumn..., with: columns.lengths)
    } else {
      closeLaterColumns()
    }
    var total = 0
    for n in lengths { total += n }
    return total
  }

  /// Closes the columns from the values on, noting each one's length.
  private mutating func closeLaterColumns() {
    let hasExpand = expand.anyTrue
    lengths[7] = value.closeMeta()
    lengths[8] = value.rawCount
    lengths[9] = predNum.close()
    lengths[10] = predActor.close()
    lengths[11] = predCtr.close()
    lengths[12] = expand.close(keep: hasExpand)
    lengths[13] = markName.close()
  }

  /// Writes the body's fields after the deps into `body` (§6.2): the author, seq, start op,
  /// time, message, the other actors, and the list of the closed columns.
  private mutating func writeFieldsAfterDeps(
    actors: [ActorId], seq: UInt64, startOp: UInt64, time: Int64, message: String?
  ) {
    body.byteString(actors.first?.bytes ?? [])
    body.uleb(seq)
    body.uleb(startOp)
    body.sleb(time)
    if let m = message { body.string(m) } else { body.uleb(0) }
    body.uleb(UInt64(max(0, actors.count - 1)))
    for a in actors.dropFirst() { body.byteString(a.bytes) }
    var present = 0
    for n in lengths where n > 0 { present += 1 }
    body.uleb(UInt64(present))
    for (c, n) in lengths.enumerated() where n > 0 {
      body.uleb(UInt64(ChangeEncoder.columnSpecs[c]))
      body.uleb(UInt64(n))
    }
  }

  /// Writes the closed columns' data, in the order of `columnSpecs`, and empties them.
  private mutating func drainColumns<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    objActor.drain(into: &sink)
    objCtr.drain(into: &sink)
    keyActor.drain(into: &sink)
    keyCtr.drain(into: &sink)
    keyStr.drain(into: &sink)
    insert.drain(into: &sink)
    action.drain(into: &sink)
    if let columns = later {
      columns.bytes.withUnsafeBufferPointer { sink.put($0) }
      later = nil
    } else {
      drainLaterColumns(into: &sink)
    }
  }

  /// Writes the closed columns' data from the values on, and empties them.
  private mutating func drainLaterColumns<Sink: ByteSink & ~Copyable>(into sink: inout Sink) {
    value.drainMeta(into: &sink)
    value.drainRaw(into: &sink)
    predNum.drain(into: &sink)
    predActor.drain(into: &sink)
    predCtr.drain(into: &sink)
    expand.drain(into: &sink)
    markName.drain(into: &sink)
  }

  /// The chunk the last `finish` wrote, copied.
  var lastChunk: [UInt8] { chunk.bytes }

  /// The op columns of a change chunk, in the order they are written (§6.5).
  private static let columnSpecs: [UInt32] = [
    1, 2, 17, 19, 21, 52, 66, 86, 87, 112, 113, 115, 148, 165,
  ]

  /// A chunk header (§3) with its checksum left zero: magic, checksum, type, length.
  private static func putHeader(type: UInt8, bodyLength: Int, into chunk: ByteBuffer) {
    var sink = chunk  // a class; `putULEB`, a protocol extension, is mutating
    sink.put(Chunk.magic)
    sink.put(0, count: 4)
    sink.put(type)
    sink.putULEB(UInt64(bodyLength))
  }

  /// Fills in the checksum of a chunk whose header and body are written (§3), in place,
  /// and returns the chunk's hash.
  private static func seal(_ chunk: ByteBuffer) -> ChangeHash {
    let hash = chunk.withBytes { SHA256.hash(UnsafeBufferPointer(rebasing: $0[8...])) }
    let w0 = hash.w0
    for k in 0..<4 { chunk.set(4 + k, UInt8(truncatingIfNeeded: w0 >> (56 - 8 * UInt64(k)))) }
    return hash
  }

  /// Wraps a body in a chunk header (§3): magic, checksum, type, length.
  static func wrap(type: UInt8, body: [UInt8]) -> (chunk: [UInt8], hash: ChangeHash) {
    let chunk = ByteBuffer(capacity: body.count + 19)
    putHeader(type: type, bodyLength: body.count, into: chunk)
    chunk.put(body)
    let hash = seal(chunk)
    return (chunk.bytes, hash)
  }
}

extension Change {
  /// Encodes this change as its canonical type-1 chunk (§6.6), from its fields.
  ///
  /// For a decoded change this reproduces `chunk` byte for byte when the original was
  /// canonical; the returned hash is that of the produced bytes.
  public func encoded() -> (chunk: [UInt8], hash: ChangeHash) {
    var e = ChangeEncoder()
    return e.encode(
      actors: actors, seq: seq, startOp: startOp, time: time, message: message, deps: deps,
      ops: ops, extra: extra)
  }

  /// Builds a change from its fields, computing its canonical chunk and hash (§6.6).
  ///
  /// Deps are sorted by bytes; ops are taken as given (counter order, preds in Lamport order).
  public init(
    actors: [ActorId], seq: UInt64, startOp: UInt64, time: Int64, message: String?,
    deps: [ChangeHash], ops: [Op], extra: [UInt8] = []
  ) {
    let sortedDeps = ChangeDeps(deps.sorted())
    var e = ChangeEncoder()
    let (chunk, hash) = e.encode(
      actors: actors, seq: seq, startOp: startOp, time: time, message: message, deps: sortedDeps,
      ops: ops, extra: extra)
    self.init(
      hash: hash, actors: actors, seq: seq, startOp: startOp, time: time,
      message: (message?.isEmpty ?? true) ? nil : message, deps: sortedDeps, ops: ops, extra: extra,
      chunk: chunk)
  }
}
