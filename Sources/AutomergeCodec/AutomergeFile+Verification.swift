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

    /// The facts of a decoded file.
    init(_ file: AutomergeFile) {
      chunkCount = file.chunks.count
      changeCount = file.changes.count
      opCount = file.opCount
      heads = file.heads
      orphans = file.orphans
      missingDependencies = file.missingDependencies
      refusedByNewerAutomerge = file.refusedByNewerAutomerge
    }

    /// The facts of a file that is the one document chunk `decoded`.
    init(document decoded: DocumentChunk.Decoded) {
      chunkCount = 1
      changeCount = decoded.hashes.count
      opCount = decoded.opCounts.reduce(0) { $0 + Int($1) }
      heads = decoded.heads
      orphans = []
      missingDependencies = []
      refusedByNewerAutomerge = []
      if let reason = decoded.refusedByNewerAutomerge {
        refusedByNewerAutomerge.append(AutomergeFile.refusal(ofDocumentAt: 0, reason))
      }
    }
  }

  /// Decodes and verifies a whole file as `decode` does, with the same checks and the same
  /// errors, and returns what that establishes, without the changes.
  ///
  /// A file that is one document chunk (as Automerge's `save()` writes it) is verified
  /// without a `Change` value per change: each change is rebuilt, encoded and hashed from the
  /// op columns, and only its hash and op count are kept for the heads check. Its changes
  /// are its rows, each after its deps, numbered 1...n per actor (the reconstruction checks
  /// that), so none is an orphan and its heads are the stored ones. Any other file is
  /// decoded without its ops and chunks, and summarised.
  ///
  /// - Parameter bytes: the file's bytes; empty input is an empty document.
  /// - Returns: the chunk, change and op counts, the heads, orphans and missing dependencies.
  /// - Throws: `AutomergeDecodeError`, as `decode` does.
  public static func verify(_ bytes: [UInt8]) throws -> Verification {
    let single = try bytes.withUnsafeBufferPointer { buf -> Verification? in
      guard !buf.isEmpty, let h = try? Chunk.header(buf, at: 0), h.type == .document,
        h.end == buf.count
      else { return nil }
      let computed = SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed]))
      let decoded = try DocumentChunk.decode(
        buf, body: h.body, chunkOffset: 0, keepChanges: false, keepOps: false, chunks: .none)
      try AutomergeFile.check(h, computed)
      return Verification(document: decoded)
    }
    if let single { return single }
    return Verification(try decode(bytes, keepOps: false, keepChunks: false))
  }
}
