import Threads

/// Document chunks (type 0): parsing (§7.1 to §7.3) and the reconstruction of every change
/// with its hash (§7.5), checked against the stored heads.
enum DocumentChunk {
  /// The decoded content of a document chunk.
  struct Decoded {
    /// The reconstructed changes, in the chunk's (causal) row order; empty when they were
    /// not kept (`keepChanges: false`).
    var changes: [Change]
    /// The hash of each change, in row order, when the changes are not kept; else empty
    /// (each change has its own, and a copy here would be 32 bytes more per change).
    var hashes: [ChangeHash]
    /// The stored heads, sorted.
    var heads: [ChangeHash]
    /// The number of ops of each change (`changes[i].ops` may be empty, see `keepOps`).
    var opCounts: [Int32]
    /// Per change: whether another change of the chunk depends on it.
    var isDependency: [Bool]
    /// Each author's last seq (its number of changes); only when the changes are not kept.
    var lastSeq: [ActorId: UInt64]
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

  /// A chunk with this many deflated bytes or more has its columns inflated in two groups
  /// at once (each column is a stream of its own; the benchmark month has 420 KB of them).
  static let parallelInflateBytes = 1 << 16

  /// The bytes of `cols`, in their order, inflated where deflated. With
  /// `parallelInflateBytes` deflated bytes or more, the deflated columns are split into two
  /// groups of about the same size (the largest first, each to the lighter group), one
  /// inflated on a `Worker`; the error thrown is that of the first column, in order, that
  /// fails: the one a single thread meets first.
  static func columnBytes(_ buf: UnsafeBufferPointer<UInt8>, _ cols: [ColumnEntry]) throws
    -> [[UInt8]]
  {
    typealias Inflated = Result<[UInt8], Error>
    @Sendable func inflate(_ stream: UnsafeBufferPointer<UInt8>, at offset: Int) -> Inflated {
      Result { try Deflate.inflate(stream, offset: offset) }
    }
    func inflateStored(_ i: Int) -> Inflated {
      inflate(UnsafeBufferPointer(rebasing: buf[cols[i].range]), at: cols[i].range.lowerBound)
    }
    let deflated = cols.indices.filter { cols[$0].deflated }
    let total = deflated.reduce(0) { $0 + cols[$1].range.count }
    var inflated = [Inflated?](repeating: nil, count: cols.count)
    if total >= parallelInflateBytes && Processors.available > 1 {
      var here: [Int] = []
      var there: [(index: Int, stream: [UInt8], offset: Int)] = []
      var weights = (here: 0, there: 0)
      for i in deflated.sorted(by: { cols[$0].range.count > cols[$1].range.count }) {
        let range = cols[i].range
        if weights.here <= weights.there {
          here.append(i)
          weights.here += range.count
        } else {
          there.append((i, Array(UnsafeBufferPointer(rebasing: buf[range])), range.lowerBound))
          weights.there += range.count
        }
      }
      let away = there
      let inflateAway = { @Sendable in
        away.map { c in (c.index, c.stream.withUnsafeBufferPointer { inflate($0, at: c.offset) }) }
      }
      let (theirs, ours) = alongside(
        onThread: true, inflateAway, { here.map { ($0, inflateStored($0)) } })
      for (i, result) in theirs + ours { inflated[i] = result }
    }
    return try cols.indices.map { i in
      guard cols[i].deflated else {
        return Array(UnsafeBufferPointer(rebasing: buf[cols[i].range]))
      }
      return try (inflated[i] ?? inflateStored(i)).get()
    }
  }

  /// Decodes a document body and regenerates its changes.
  ///
  /// - Parameters:
  ///   - buf: the whole input; `body` is the document body's range in it.
  ///   - body: the range of the document body in `buf`.
  ///   - chunkOffset: the offset of the chunk, for errors.
  ///   - verifyHeads: check the regenerated heads against the stored ones.
  ///   - keepChanges: keep the `Change` values (else only each one's hash and op count:
  ///     every change is still rebuilt, encoded and hashed).
  ///   - keepOps: keep each change's ops (else only their count).
  ///   - chunks: the changes whose canonical chunk is kept (of the others, only the hash).
  ///   - spareCapacity: room to reserve in `Decoded.changes` for changes the caller appends.
  ///   - inspect: called with the decoded stored ops (§7.3) before the changes are
  ///     reconstructed from them (`DocumentMaterializer` reads them there).
  ///   - expected: without `keepChanges`, the hashes the changes are expected to have, in
  ///     row order: each change is then rebuilt with its deps' hashes taken from there
  ///     (`Reconstruction.rebuiltHashes`), and the caller must compare `Decoded.hashes`
  ///     with them.
  /// - Returns: the regenerated changes or their hashes, the stored heads and each change's op
  ///   count.
  /// - Throws: `AutomergeDecodeError` for malformed bytes, and `headsMismatch` when the
  ///   regenerated heads differ from the stored ones.
  static func decode(
    _ buf: UnsafeBufferPointer<UInt8>, body: Range<Int>, chunkOffset: Int, verifyHeads: Bool = true,
    keepChanges: Bool = true, keepOps: Bool = true, chunks: KeptChunks = .all,
    spareCapacity: Int = 0,
    inspect: ((Reconstruction) -> Void)? = nil, expected: [ChangeHash]? = nil
  ) throws -> Decoded {
    var r = ByteReader(buf, from: body.lowerBound, to: body.upperBound)
    let (actors, heads, changeCols, opCols) = try header(&r)
    if !r.isAtEnd {
      for _ in 0..<heads.count { _ = try r.uleb("head index") }
      guard r.isAtEnd else {
        throw AutomergeDecodeError.trailingBytes(what: "document head indexes", offset: r.offset)
      }
    }

    // The columns' bytes (inflated where deflated) live only while they are decoded: the
    // reconstruction below needs the decoded form only.
    func decodedColumns() throws -> Reconstruction {
      var total = 0
      var bytes = try columnBytes(buf, changeCols + opCols).makeIterator()
      func load(_ cols: [ColumnEntry]) -> [UInt32: [UInt8]] {
        var out: [UInt32: [UInt8]] = [:]
        for c in cols {
          let data = bytes.next() ?? []
          total += data.count
          out[c.spec] = data
        }
        return out
      }
      let changeData = load(changeCols)
      let opData = load(opCols)
      var builder = Reconstruction(
        actors: actors, chunkOffset: chunkOffset,
        limit: ChangeChunk.rowLimit(forBytes: total + body.count))
      // The change rows and the ops are read from different columns into different arrays:
      // the rows of a large chunk are decoded on a thread of their own meanwhile, and their
      // error (the first a single thread would meet) is thrown first.
      let rowBytes = changeData.values.reduce(0) { $0 + $1.count }
      let rowsDecoder = builder
      let (rows, ops) = alongside(
        onThread: rowBytes >= Reconstruction.parallelRowBytes && Processors.available > 1,
        {
          Result {
            var rows = rowsDecoder
            try rows.decodeChangeColumns(changeData)
            return rows
          }
        },
        { Result { try builder.decodeOpColumns(opData) } })
      builder.takeChangeRows(from: try rows.get())
      try ops.get()
      return builder
    }
    var builder = try decodedColumns()
    inspect?(builder)
    // §7.5 steps 1 to 6 (`Reconstruction+Changes.swift`), then step 7 here.
    let rebuilt = try builder.reconstruct(
      keepChanges: keepChanges, keepOps: keepOps, chunks: chunks, spareCapacity: spareCapacity,
      expected: expected)

    let (isDep, regenerated) =
      keepChanges
      ? regeneratedHeads(rebuilt.changes.count, depsIndex: builder.depsIndex) {
        rebuilt.changes[$0].hash
      }
      : regeneratedHeads(rebuilt.hashes.count, depsIndex: builder.depsIndex) {
        rebuilt.hashes[$0]
      }
    let stored = Array(Set(heads)).sorted()
    guard regenerated == stored || !verifyHeads else {
      throw AutomergeDecodeError.headsMismatch(offset: chunkOffset)
    }
    var lastSeq: [ActorId: UInt64] = [:]
    if !keepChanges {
      // Each author's rows are numbered 1...n in row order (`rowsByActor` checks it).
      var last = [UInt64](repeating: 0, count: actors.count)
      for r in builder.rowActor.indices { last[Int(builder.rowActor[r])] = builder.rowSeq[r] }
      for (a, seq) in zip(actors, last) where seq > 0 { lastSeq[a] = seq }
    }
    return Decoded(
      changes: rebuilt.changes, hashes: rebuilt.hashes, heads: stored, opCounts: rebuilt.opCounts,
      isDependency: isDep, lastSeq: lastSeq,
      refusedByNewerAutomerge: builder.refusedByNewerAutomerge)
  }

  /// §7.5 step 7: the changes no change depends on, and their hashes sorted (the heads the
  /// changes regenerate, to compare with the stored heads as sets).
  ///
  /// - Parameters:
  ///   - count: the number of regenerated changes.
  ///   - depsIndex: every row's dependency rows (`Reconstruction.depsIndex`).
  ///   - hash: the hash of row `i`, from the changes or from the hashes kept without them
  ///     (a closure, as `Reconstruction.deps(ofRow:hash:)` takes).
  /// - Returns: per change, whether another depends on it; the regenerated heads, sorted.
  static func regeneratedHeads(
    _ count: Int, depsIndex: [Int64], hash: (Int) -> ChangeHash
  ) -> (isDependency: [Bool], heads: [ChangeHash]) {
    var isDep = [Bool](repeating: false, count: count)
    for j in depsIndex where j >= 0 { isDep[Int(j)] = true }
    var heads: [ChangeHash] = []
    for i in 0..<count where !isDep[i] { heads.append(hash(i)) }
    heads.sort()
    return (isDep, heads)
  }
}
