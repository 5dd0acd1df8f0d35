/// A file's change count and heads without regenerating its changes, for the archive
/// manifest: a document chunk stores its heads, and a change chunk's hash is the hash of its
/// bytes.
///
/// Only files whose shape leaves no doubt are summarised this way: at most one document
/// chunk, first, then change chunks, in any order, each depending only on the document's
/// heads or on other change chunks of the file (and, after a non-empty document, on
/// something), none sharing its author and sequence number with another change. Such a
/// change chunk cannot repeat a change of the document: the earliest repeat's dependencies
/// would be document changes that have successors, which are not heads. Anything else
/// (several documents, a repeated change, a missing dependency, a sequence collision)
/// returns nil, and the caller decodes the whole file.
///
/// Every checksum is verified; the ops and the document's stored heads are not (the full
/// decode does that).
public enum QuickSummary {
  /// The change count and sorted heads of `bytes`, or nil when the full decode must decide.
  ///
  /// - Throws: `AutomergeDecodeError` for malformed chunk headers or a checksum mismatch.
  public static func summarize(_ bytes: [UInt8]) throws -> (changes: Int, heads: [ChangeHash])? {
    try bytes.withUnsafeBufferPointer { buf -> (changes: Int, heads: [ChangeHash])? in
      var document: DocumentFacts?
      var changes: [ChangeFacts] = []
      var offset = 0
      while offset < buf.count {
        let h = try Chunk.header(buf, at: offset)
        switch h.type {
        case .document:
          guard offset == 0 else { return nil }
          try verify(h, SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed])))
          document = try documentFacts(buf, h)
        case .change:
          let hash = SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed]))
          try verify(h, hash)
          changes.append(
            try changeFacts(UnsafeBufferPointer(rebasing: buf[h.body]), h.body.lowerBound, hash))
        case .compressedChange:
          let body = try Deflate.inflate(
            UnsafeBufferPointer(rebasing: buf[h.body]), offset: h.body.lowerBound)
          let hash = ChangeEncoder.wrap(type: 1, body: body).hash
          try verify(h, hash)
          changes.append(
            try body.withUnsafeBufferPointer { try changeFacts($0, h.body.lowerBound, hash) })
        }
        offset = h.end
      }
      return try combine(document, changes)
    }
  }

  /// What a document chunk says of itself (borrowing the input: valid inside `summarize`).
  private struct DocumentFacts {
    var heads: [ChangeHash]
    var actors: [[UInt8]]
    var rowActor: [UInt64]
    var buf: UnsafeBufferPointer<UInt8>
    var columns: [ColumnEntry]
    var chunk: Int
    var limit: Int

    /// The change-seq column (§7.2), decoded only when change chunks need it.
    func sequenceNumbers() throws -> [Int64] {
      let (chunk, limit) = (self.chunk, self.limit)
      return try QuickSummary.column(buf, columns, ColumnSpecs.changeSeq) {
        try ColumnDecoder.delta($0, limit: limit, spec: ColumnSpecs.changeSeq, chunk: chunk)
      } ?? []
    }
  }

  /// What a change chunk says of itself.
  private struct ChangeFacts {
    var hash: ChangeHash
    var deps: [ChangeHash]
    var author: [UInt8]
    var seq: UInt64
  }

  private struct AuthorSeq: Hashable {
    var author: [UInt8]
    var seq: UInt64
  }

  private static func combine(
    _ document: DocumentFacts?, _ changes: [ChangeFacts]
  ) throws -> (changes: Int, heads: [ChangeHash])? {
    let heads = document?.heads ?? []
    let rows = document?.rowActor.count ?? 0
    guard (rows == 0) == heads.isEmpty, Set(heads).count == heads.count else { return nil }
    if changes.isEmpty { return (rows, heads.sorted()) }
    var known = Set(heads)
    for c in changes {
      guard known.insert(c.hash).inserted else { return nil }
    }
    var depended = Set<ChangeHash>()
    var seen = Set<AuthorSeq>()
    for c in changes {
      guard rows == 0 || !c.deps.isEmpty, c.deps.allSatisfy(known.contains) else { return nil }
      guard seen.insert(AuthorSeq(author: c.author, seq: c.seq)).inserted else { return nil }
      depended.formUnion(c.deps)
    }
    if let document, rows > 0 {
      let seq = try document.sequenceNumbers()
      guard seq.count == rows else { return nil }
      for (i, a) in document.rowActor.enumerated() {
        guard a < UInt64(document.actors.count) else { return nil }
        let key = AuthorSeq(author: document.actors[Int(a)], seq: UInt64(bitPattern: seq[i]))
        if seen.contains(key) { return nil }
      }
    }
    return (rows + changes.count, known.subtracting(depended).sorted())
  }

  private static func verify(_ h: ChunkHeader, _ hash: ChangeHash) throws {
    let computed = Chunk.checksum(of: hash)
    guard computed == h.checksum else {
      throw AutomergeDecodeError.checksumMismatch(
        offset: h.offset, stored: h.checksum, computed: computed)
    }
  }

  /// The dependencies, author and sequence number at the start of a change body (§6.1).
  private static func changeFacts(
    _ body: UnsafeBufferPointer<UInt8>, _ base: Int, _ hash: ChangeHash
  ) throws -> ChangeFacts {
    var r = ByteReader(body, base: base)
    let deps = try r.hashes(count: "deps count", each: "dependency hash")
    let author = try r.byteString("actor id")
    let seq = try r.uleb("seq")
    return ChangeFacts(hash: hash, deps: deps, author: author, seq: seq)
  }

  /// A document chunk's actors, stored heads and change-actor column (§7.1, §7.2).
  private static func documentFacts(
    _ buf: UnsafeBufferPointer<UInt8>, _ h: ChunkHeader
  ) throws -> DocumentFacts {
    var r = ByteReader(buf, from: h.body.lowerBound, to: h.body.upperBound)
    let (actorIds, heads, columns, _) = try DocumentChunk.header(&r)
    let actors = actorIds.map(\.bytes)
    let limit = ChangeChunk.rowLimit(forBytes: h.body.count)
    let rowActor = try column(buf, columns, ColumnSpecs.changeActor) {
      try ColumnDecoder.uint($0, limit: limit, spec: ColumnSpecs.changeActor, chunk: h.offset)
    }
    return DocumentFacts(
      heads: heads, actors: actors, rowActor: rowActor ?? [], buf: buf, columns: columns,
      chunk: h.offset, limit: limit)
  }

  /// Decodes the column `spec` (inflated first when stored deflated); nil when absent.
  fileprivate static func column<T>(
    _ buf: UnsafeBufferPointer<UInt8>, _ columns: [ColumnEntry], _ spec: UInt32,
    _ decode: (UnsafeBufferPointer<UInt8>) throws -> [T]
  ) throws -> [T]? {
    guard let entry = columns.first(where: { $0.spec == spec }) else { return nil }
    let slice = UnsafeBufferPointer(rebasing: buf[entry.range])
    if !entry.deflated { return try decode(slice) }
    return try Deflate.inflate(slice, offset: entry.range.lowerBound).withUnsafeBufferPointer(
      decode)
  }
}
