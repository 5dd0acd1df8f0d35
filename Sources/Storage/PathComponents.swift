/// Lexical path arithmetic: splitting, normalizing and prefix tests, without touching the disk.
///
/// Components are compared as Strings, so a path typed in NFC matches the same path
/// spelled in NFD (as macOS may return it).
enum PathComponents {
  /// The components of `path`, empty ones and `.` dropped.
  static func split(_ path: String) -> [Substring] {
    path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
  }

  /// `path` (absolute) with `.` and `..` resolved lexically; `..` at the top stays at the top.
  static func normalizedAbsolute(_ path: String) -> [Substring] {
    var out: [Substring] = []
    for c in split(path) {
      if c == ".." {
        if !out.isEmpty { out.removeLast() }
      } else {
        out.append(c)
      }
    }
    return out
  }

  /// `path` (relative) with `.` and `..` resolved lexically; nil when it climbs above its start.
  static func normalizedRelative(_ path: String) -> [Substring]? {
    var out: [Substring] = []
    for c in split(path) {
      if c == ".." {
        if out.isEmpty { return nil }
        out.removeLast()
      } else {
        out.append(c)
      }
    }
    return out
  }

  /// The components of `path` after `prefix`, when `path` starts with all of `prefix`.
  static func remainder(_ path: [Substring], after prefix: [Substring]) -> [Substring]? {
    guard path.count >= prefix.count else { return nil }
    for (a, b) in zip(path, prefix) where a != b { return nil }
    return Array(path[prefix.count...])
  }

  static func join(_ components: some Sequence<Substring>) -> String {
    components.joined(separator: "/")
  }
}
