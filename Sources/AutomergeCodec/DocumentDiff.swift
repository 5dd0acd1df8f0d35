/// What two copies of one document hold that the other does not, and what merging the
/// second into the first would change in the first's content (`mn diff`, mn.md §9).
///
/// The changes are compared by hash (§9: a merge is the union of the changes by hash). The
/// content difference is the JSON Patch (RFC 6902) from the first file's materialized JSON
/// (mn.md §10) to that of the merge of both, so applying it to the first's JSON gives the
/// merge's: it shows what the merge would do, which is not "the second file's content".
public struct DocumentDiff: Sendable {
  /// One change as a listing shows it: its metadata and its number of ops.
  public struct Entry: Sendable {
    public var change: Change
    public var ops: Int
  }

  /// The changes only the first file has, in its causal order.
  public var onlyInFirst: [Entry]
  /// The changes only the second file has, in its causal order.
  public var onlyInSecond: [Entry]
  /// What merging the second file into the first changes in the first's content; empty
  /// when the second adds no change, or only changes that leave the content as it is.
  public var patch: [JSONPatch.Operation]

  /// Whether both files hold the same changes.
  public var same: Bool { onlyInFirst.isEmpty && onlyInSecond.isEmpty }

  /// Compares two files of one document.
  ///
  /// - Parameters:
  ///   - first: the document's bytes (an empty document when empty).
  ///   - second: the other copy's bytes.
  /// - Returns: the changes each has that the other lacks, and the content patch.
  /// - Throws: `AutomergeDecodeError` when either does not decode, `AutomergeMergeError`
  ///   when they cannot be merged (two changes share an actor and seq), `MaterializeError`
  ///   when a content cannot be computed.
  public static func compare(_ first: [UInt8], _ second: [UInt8]) throws -> DocumentDiff {
    try compare(
      first, decoded: decodeFirst(first), second, decoded: decodeSecond(second))
  }

  /// The first side's decode as `compare` needs it (with its ops, to materialize it).
  public static func decodeFirst(_ bytes: [UInt8]) throws -> AutomergeFile {
    try AutomergeFile.decode(bytes, keepOps: true, keepChunks: false)
  }

  /// The second side's decode as `compare` needs it (metadata only).
  public static func decodeSecond(_ bytes: [UInt8]) throws -> AutomergeFile {
    try AutomergeFile.decode(bytes, keepOps: false, keepChunks: false)
  }

  /// `compare` with both sides already decoded by `decodeFirst` and `decodeSecond` (a
  /// caller that reports which side does not decode).
  public static func compare(
    _ first: [UInt8], decoded a: AutomergeFile, _ second: [UInt8], decoded b: AutomergeFile
  ) throws -> DocumentDiff {
    let onlyInFirst = entries(of: a) { !b.contains($0.hash) }
    let onlyInSecond = entries(of: b) { !a.contains($0.hash) }
    var patch: [JSONPatch.Operation] = []
    if !onlyInSecond.isEmpty {
      let merged = try AutomergeMerge.merge([first, second]).bytes
      let before = try Materializer.materialize(a, typed: false)
      let after = try Materializer.materialize(
        AutomergeFile.decode(merged, keepOps: true, keepChunks: false), typed: false)
      patch = JSONPatch.diff(before, after)
    }
    return DocumentDiff(onlyInFirst: onlyInFirst, onlyInSecond: onlyInSecond, patch: patch)
  }

  /// The changes of `file` that pass `keep`, without their ops, each with its op count.
  public static func entries(of file: AutomergeFile, where keep: (Change) -> Bool) -> [Entry] {
    var out: [Entry] = []
    for (i, c) in file.changes.enumerated() where keep(c) {
      var meta = c
      meta.ops = []
      out.append(Entry(change: meta, ops: Int(file.changeOpCounts[i])))
    }
    return out
  }
}
