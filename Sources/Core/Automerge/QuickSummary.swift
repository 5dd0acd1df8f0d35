/// A file's change count and heads without regenerating its changes, for the archive
/// manifest: a document chunk stores its heads, and a change chunk's hash is the hash of its
/// bytes.
///
/// Only files whose shape leaves no doubt are summarised this way: at most one document
/// chunk, first, then change chunks, each of which depends only on the document's heads or
/// on change chunks before it (and, after a non-empty document, on something). Such a
/// change chunk cannot repeat a change of the document: a repeat's dependencies would be
/// document changes that have successors, which are not heads. Anything else (several
/// documents, a repeated or out-of-order change, a missing dependency) returns nil, and the
/// caller decodes the whole file.
///
/// Every checksum is verified; the ops and the document's stored heads are not (the full
/// decode does that).
public enum QuickSummary {
  /// The change count and sorted heads of `bytes`, or nil when the full decode must decide.
  ///
  /// - Throws: `AutomergeDecodeError` for malformed chunk headers or a checksum mismatch.
  public static func summarize(_ bytes: [UInt8]) throws -> (changes: Int, heads: [ChangeHash])? {
    try bytes.withUnsafeBufferPointer { buf -> (changes: Int, heads: [ChangeHash])? in
      var count = 0
      var known = Set<ChangeHash>()
      var depended = Set<ChangeHash>()
      var documentIsEmpty = true
      var offset = 0
      while offset < buf.count {
        let h = try Chunk.header(buf, at: offset)
        switch h.type {
        case .document:
          guard offset == 0 else { return nil }
          try verify(h, SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed])))
          let (rows, heads) = try documentFacts(buf, h)
          count = rows
          documentIsEmpty = rows == 0
          known.formUnion(heads)
          guard known.count == heads.count, (rows == 0) == heads.isEmpty else { return nil }
        case .change:
          let hash = SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed]))
          try verify(h, hash)
          let deps = try dependencies(UnsafeBufferPointer(rebasing: buf[h.body]), base: h.body.lowerBound)
          guard admit(hash, deps, documentIsEmpty, &known, &depended) else { return nil }
          count += 1
        case .compressedChange:
          let body = try Deflate.inflate(UnsafeBufferPointer(rebasing: buf[h.body]), offset: h.body.lowerBound)
          let hash = ChangeEncoder.wrap(type: 1, body: body).hash
          try verify(h, hash)
          let deps = try body.withUnsafeBufferPointer { try dependencies($0, base: h.body.lowerBound) }
          guard admit(hash, deps, documentIsEmpty, &known, &depended) else { return nil }
          count += 1
        }
        offset = h.end
      }
      return (count, known.subtracting(depended).sorted())
    }
  }

  /// Records a change chunk when its dependencies are all known and it is new.
  private static func admit(
    _ hash: ChangeHash, _ deps: [ChangeHash], _ documentIsEmpty: Bool,
    _ known: inout Set<ChangeHash>, _ depended: inout Set<ChangeHash>
  ) -> Bool {
    guard documentIsEmpty || !deps.isEmpty, deps.allSatisfy(known.contains) else { return false }
    guard known.insert(hash).inserted else { return false }
    depended.formUnion(deps)
    return true
  }

  private static func verify(_ h: ChunkHeader, _ hash: ChangeHash) throws {
    let computed = Chunk.checksum(of: hash)
    guard computed == h.checksum else {
      throw AutomergeDecodeError.checksumMismatch(offset: h.offset, stored: h.checksum, computed: computed)
    }
  }

  /// The dependency hashes at the start of a change body (§6.1).
  private static func dependencies(_ body: UnsafeBufferPointer<UInt8>, base: Int) throws -> [ChangeHash] {
    var r = ByteReader(body, base: base)
    let n = try r.length("deps count", limit: r.remaining / 32)
    var deps: [ChangeHash] = []
    deps.reserveCapacity(n)
    for _ in 0..<n { deps.append(try r.hash("dependency hash")) }
    return deps
  }

  /// A document chunk's row count (from its change-actor column) and stored heads (§7.1).
  private static func documentFacts(
    _ buf: UnsafeBufferPointer<UInt8>, _ h: ChunkHeader
  ) throws -> (rows: Int, heads: [ChangeHash]) {
    var r = ByteReader(buf, from: h.body.lowerBound, to: h.body.upperBound)
    let actorCount = try r.length("actors count", limit: r.remaining)
    for _ in 0..<actorCount { _ = try r.byteString("actor id") }
    let headCount = try r.length("heads count", limit: r.remaining / 32)
    var heads: [ChangeHash] = []
    heads.reserveCapacity(headCount)
    for _ in 0..<headCount { heads.append(try r.hash("head hash")) }
    let changeMeta = try ColumnMetadata.read(&r, allowDeflate: true)
    let opMeta = try ColumnMetadata.read(&r, allowDeflate: true)
    let changeColumns = try ColumnMetadata.layout(changeMeta, &r)
    _ = try ColumnMetadata.layout(opMeta, &r)
    guard let actor = changeColumns.first(where: { $0.spec == ColumnSpecs.changeActor }) else {
      return (0, heads)
    }
    let slice = UnsafeBufferPointer(rebasing: buf[actor.range])
    let data = actor.deflated ? try Deflate.inflate(slice, offset: actor.range.lowerBound) : Array(slice)
    let limit = ChangeChunk.rowLimit(forBytes: h.body.count)
    let rows = try data.withUnsafeBufferPointer {
      try ColumnDecoder.uint($0, limit: limit, spec: ColumnSpecs.changeActor, chunk: h.offset)
    }
    return (rows.count, heads)
  }
}
