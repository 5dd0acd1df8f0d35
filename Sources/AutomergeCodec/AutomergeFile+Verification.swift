extension AutomergeFile {
  /// What decoding a file establishes about it, without its changes: for checks, which
  /// need the verdict and the counts only.
  public struct Verification: Equatable, Sendable {
    /// The number of chunks (`AutomergeFile.chunks.count`).
    public var chunkCount: Int
    /// The number of distinct changes (`AutomergeFile.changes.count`).
    public var changeCount: Int
    /// The total number of ops of all changes (deletions included).
    public var opCount: Int
    /// The heads of the loaded (non-orphan) changes, sorted.
    public var heads: [ChangeHash]
    /// Changes whose dependencies are not all present, as in `AutomergeFile.orphans`.
    public var orphans: [ChangeHash]
    /// Dependency hashes that no change of the file has, sorted.
    public var missingDependencies: [ChangeHash]
    /// Why Automerge 0.11 and later refuse this file, as in
    /// `AutomergeFile.refusedByNewerAutomerge`.
    public var refusedByNewerAutomerge: [String]
  }

  /// Decodes and verifies a whole file as `decode` does, with the same checks and the same
  /// errors, and returns what that establishes, without the changes.
  ///
  /// A file that starts with a document chunk (as Automerge's `save()` writes it, and a
  /// merge appends change chunks to) is verified without a `Change` value per document
  /// change: each is rebuilt, encoded and hashed from the op columns, and only its hash and
  /// op count are kept. The chunks after it are decoded as `decode` decodes them, and
  /// loaded with `apply`'s rules against the document's hashes (`load`). Any other file is
  /// decoded without its ops and chunks, and summarised.
  ///
  /// - Parameter bytes: the file's bytes; empty input is an empty document.
  /// - Returns: the chunk, change and op counts, the heads, orphans and missing dependencies.
  /// - Throws: `AutomergeDecodeError`, as `decode` does.
  public static func verify(_ bytes: [UInt8]) throws -> Verification {
    try verified(bytes, listing: false).facts
  }

  /// `verify`, and the hash of every distinct change of the file (orphans included): what
  /// `DocumentEncoder.save` compares its read-back with. When the file starts with a
  /// document chunk, its changes come first, in row order.
  ///
  /// - Parameters:
  ///   - bytes: the file's bytes.
  ///   - expected: the hashes the first document chunk's rows are expected to have, in row
  ///     order. Its rows are then rebuilt with their deps' hashes taken from there, and those
  ///     of a large document in two halves at once (`Reconstruction.rebuiltHashes`): the
  ///     caller must compare the first hashes returned with `expected`, row by row; only
  ///     where all are equal do they prove that the file holds those changes.
  /// - Returns: what `verify` returns, and the hashes.
  /// - Throws: `AutomergeDecodeError`, as `verify` does.
  static func verifyListing(_ bytes: [UInt8], expected: [ChangeHash]? = nil) throws -> (
    facts: Verification, hashes: [ChangeHash]
  ) {
    try verified(bytes, listing: true, expected: expected)
  }

  /// `verify`, with the change hashes only when `listing` (else empty); `inspect` is called
  /// with the first chunk's stored ops when it is a document (`DocumentChunk.decode`), and
  /// `expected` is `verifyListing`'s.
  static func verified(
    _ bytes: [UInt8], listing: Bool,
    inspectFirstDocument inspect: ((Reconstruction) -> Void)? = nil,
    expected: [ChangeHash]? = nil
  ) throws -> (facts: Verification, hashes: [ChangeHash]) {
    guard var document = try firstDocument(bytes, inspect: inspect, expected: expected) else {
      let file = try decode(bytes, keepOps: false, keepChunks: false)
      return (Verification(file), listing ? file.changes.map(\.hash) : [])
    }
    let rest = try verified(bytes, after: document)
    guard listing else { return (rest.facts, []) }
    var hashes: [ChangeHash] = []
    swap(&hashes, &document.decoded.hashes)
    hashes.reserveCapacity(hashes.count + rest.new.count)
    for i in rest.new { hashes.append(rest.following[i].hash) }
    return (rest.facts, hashes)
  }

  /// A file's first chunk when it is a document chunk, decoded and checked as `verify`
  /// reads it: each change's hash, not its `Change` value.
  struct FirstDocument {
    var decoded: DocumentChunk.Decoded
    /// Where the chunks after it start.
    var length: Int
  }

  /// The first chunk of `bytes`, when it is a document chunk; nil when it is not one.
  /// `expected` is `verifyListing`'s.
  ///
  /// - Throws: `AutomergeDecodeError` when it is a malformed document chunk.
  static func firstDocument(
    _ bytes: [UInt8], inspect: ((Reconstruction) -> Void)? = nil, expected: [ChangeHash]? = nil
  ) throws -> FirstDocument? {
    try bytes.withUnsafeBufferPointer { buf -> FirstDocument? in
      guard let h = try? Chunk.header(buf, at: 0), h.type == .document else { return nil }
      let computed = SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed]))
      let decoded = try DocumentChunk.decode(
        buf, body: h.body, chunkOffset: 0, keepChanges: false, keepOps: false, chunks: .none,
        inspect: inspect, expected: expected)
      try AutomergeFile.check(h, computed)
      return FirstDocument(decoded: decoded, length: h.end)
    }
  }

  /// Verifies `bytes`, whose first chunk is `document` (its decode by `firstDocument`, of
  /// these bytes or of bytes that start with the same chunk): the chunks after it are
  /// decoded as `decode` decodes them (no ops, no chunks kept), and loaded with `apply`'s
  /// rules against the document's hashes.
  ///
  /// - Returns: the facts; the changes after the document, in file order, with their op
  ///   counts; and the positions in `following` of the distinct changes the document lacks.
  static func verified(_ bytes: [UInt8], after document: FirstDocument) throws -> (
    facts: Verification, following: [Change], new: [Int]
  ) {
    var rest = AutomergeFile()
    var following: [Change] = []
    var opCounts: [Int32] = []
    try rest.readChunks(bytes, from: document.length, into: &following, opCounts: &opCounts)
    var (facts, new) = try load(document.decoded, following, opCounts: opCounts)
    facts.chunkCount += rest.chunks.count
    facts.refusedByNewerAutomerge += rest.refusedByNewerAutomerge
    return (facts, following, new)
  }

  /// `apply`'s rules (§4 step 4) for a file whose first chunk is the document `document`
  /// (its changes trusted, as `apply` trusts them) followed by the changes `following`, in
  /// file order: duplicates skipped, `(actor, seq)` collisions rejected, each change applied
  /// once its deps are in, the others orphans.
  ///
  /// The document's hashes are searched only for the hashes and deps of `following`, in one
  /// pass, instead of being indexed.
  ///
  /// - Returns: the facts, and the positions in `following` of its distinct new changes.
  /// - Throws: `duplicateSeq` for a change of `following` that reuses an `(actor, seq)`.
  private static func load(
    _ document: DocumentChunk.Decoded, _ following: [Change], opCounts: [Int32]
  ) throws -> (Verification, unique: [Int]) {
    // Where each hash that `following` names sits in the document, if it does.
    var wanted = Set<ChangeHash>()
    for c in following {
      wanted.insert(c.hash)
      for d in c.deps { wanted.insert(d) }
    }
    var inDocument: [ChangeHash: Int] = [:]
    if !wanted.isEmpty {
      // A filter on the first word spares most rows a lookup in `wanted`.
      var maybe = [Bool](repeating: false, count: 4096)
      for w in wanted { maybe[Int(w.w0 & 4095)] = true }
      for (r, hash) in document.hashes.enumerated()
      where maybe[Int(hash.w0 & 4095)] && wanted.contains(hash) {
        inDocument[hash] = r
      }
    }

    // The changes of `following` that are new, in file order; the first of each hash.
    var position: [ChangeHash: Int] = [:]
    var unique: [Int] = []
    var bySeq: [ActorId: Set<UInt64>] = [:]
    for (i, c) in following.enumerated() {
      if inDocument[c.hash] != nil || position[c.hash] != nil { continue }
      position[c.hash] = i
      unique.append(i)
      let author = c.actors[0]
      if let last = document.lastSeq[author], c.seq <= last {
        throw AutomergeDecodeError.duplicateSeq(actor: author, seq: c.seq)
      }
      if !bySeq[author, default: []].insert(c.seq).inserted {
        throw AutomergeDecodeError.duplicateSeq(actor: author, seq: c.seq)
      }
    }

    // Each change once its deps are in: the document's are.
    var applied = [Bool](repeating: false, count: following.count)
    var order: [Int] = []
    var waits = DependencyWaits(count: following.count)
    for i in unique {
      for d in following[i].deps where inDocument[d] == nil {
        if let j = position[d], applied[j] { continue }
        waits.wait(Int32(i), for: d)
      }
      guard waits.isReady(Int32(i)) else { continue }
      waits.release(Int32(i), hash: { following[Int($0)].hash }) { w in
        applied[Int(w)] = true
        order.append(Int(w))
      }
    }
    let orphans = unique.filter { !applied[$0] }
    var absent = Set<ChangeHash>()
    for i in orphans {
      for d in following[i].deps where inDocument[d] == nil && position[d] == nil {
        absent.insert(d)
      }
    }

    // The heads: the document's, less those an applied change depends on, and the applied
    // changes no other applied change depends on.
    var documentDeps = Set<ChangeHash>()
    var isDep = [Bool](repeating: false, count: following.count)
    for i in order {
      for d in following[i].deps {
        if inDocument[d] != nil {
          documentDeps.insert(d)
        } else if let j = position[d] {
          isDep[j] = true
        }
      }
    }
    var heads = document.heads.filter { !documentDeps.contains($0) }
    for i in order where !isDep[i] { heads.append(following[i].hash) }
    let facts = Verification(
      chunkCount: 1, changeCount: document.hashes.count + unique.count,
      opCount: document.opCounts.reduce(0) { $0 + Int($1) }
        + unique.reduce(0) { $0 + Int(opCounts[$1]) },
      heads: heads.sorted(), orphans: orphans.map { following[$0].hash },
      missingDependencies: absent.sorted(),
      refusedByNewerAutomerge: document.refusedByNewerAutomerge.map {
        [AutomergeFile.refusal(ofDocumentAt: 0, $0)]
      } ?? [])
    return (facts, unique)
  }
}

extension AutomergeFile.Verification {
  /// The facts of a decoded file (an extension, so that the memberwise initializer stays).
  init(_ file: AutomergeFile) {
    self.init(
      chunkCount: file.chunks.count, changeCount: file.changes.count, opCount: file.opCount,
      heads: file.heads, orphans: file.orphans, missingDependencies: file.missingDependencies,
      refusedByNewerAutomerge: file.refusedByNewerAutomerge)
  }
}
