import AutomergeCodec

/// What merging one document into another would do, in a few words: `diff` prints it per
/// pair and `merge-conflicts` per copy.
enum MergeEffect {
  /// `3 changes`, `1 change`.
  static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)" + (n == 1 ? "" : "s") }

  /// The summary of a merge's effect: `adds 2 changes, touching 1 path: /records/k/note`
  /// (at most five paths named).
  static func summary(adds: Int, _ patch: [JSONPatch.Operation]) -> String {
    var s = "adds " + count(adds, "change")
    if adds == 0 { return s }
    if patch.isEmpty { return s + ", content unchanged" }
    s += ", touching " + count(patch.count, "path") + ": "
    s += patch.prefix(5).map(\.path).map { $0.isEmpty ? "/" : $0 }.joined(separator: ", ")
    if patch.count > 5 { s += ", …" }
    return s
  }
}
