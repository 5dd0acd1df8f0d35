/// Small, pure helpers for slash-separated paths (no Foundation).
public enum Paths {
  /// Splits a path into its directory and last component: `/a/b/c` → (`/a/b`, `c`).
  public static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
  }

  /// Joins two paths; an absolute `component` replaces `base`.
  public static func join(_ base: String, _ component: String) -> String {
    if component.hasPrefix("/") || base.isEmpty { return component }
    if component.isEmpty { return base }
    return base.hasSuffix("/") ? base + component : base + "/" + component
  }

  /// Makes `path` absolute against `base` and removes `.`, `..` and repeated slashes
  /// lexically (symbolic links are not resolved).
  public static func normalize(_ path: String, relativeTo base: String) -> String {
    let full = path.hasPrefix("/") ? path : join(base, path)
    var parts: [Substring] = []
    for part in full.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(part)
    }
    // Not `joined(separator:)`, nor `+=` of a Substring: those generic paths look up
    // witnesses by name at their first use, about 100,000 instructions at every start of mn.
    var out = ""
    for part in parts {
      out.append("/")
      out.append(contentsOf: part)
    }
    return out.isEmpty ? "/" : out
  }

  /// The path of `path` relative to `root` when it is inside it (or equal: ""), else nil.
  /// Both must be normalized absolute paths.
  public static func relative(_ path: String, to root: String) -> String? {
    if path == root { return "" }
    let prefix = root == "/" ? "/" : root + "/"
    guard path.hasPrefix(prefix) else { return nil }
    return String(path.dropFirst(prefix.count))
  }
}
