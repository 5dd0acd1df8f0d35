/// A name inside a data folder: the path of a file or directory relative to the folder's
/// root, `/`-separated (`records/2026/03.automerge`); the empty name is the root itself.
///
/// The rules of a logical name are decided here and nowhere else. A *normal* name does not
/// start or end with `/`, has no empty component (`a//b`), no `.` or `..` component and no
/// NUL byte. The two ways in from a string:
///
/// - `init?(_:)` takes a name that is already normal and refuses anything else (what
///   archives and exports accept as an entry's path);
/// - `init?(normalizing:)` makes a relative path normal lexically: empty and `.` components
///   are dropped and `..` removes the component before it; it refuses a path that climbs
///   above its start, an absolute path, and NUL (what a command accepts as a name).
///
/// `appending(_:)` adds one component, which the caller vouches for (`isComponent`): a
/// directory entry's name, or one taken from a stub or a temporary's name, which are checked
/// where they are parsed. The scan builds names this way, one allocation each.
///
/// Names are Strings, as the directory returned them (the file system wrappers repair
/// invalid UTF-8 when they make the String, so a name never holds raw non-UTF-8 bytes).
/// Equality is the String's: canonically equivalent spellings (NFC, NFD) are equal.
public struct LogicalName: Hashable, Sendable, CustomStringConvertible {
  /// The name as text: `""` for the root.
  public let string: String

  /// The root of the data folder (the empty name).
  public static let root = LogicalName(unchecked: "")

  @usableFromInline init(unchecked string: String) { self.string = string }

  /// A name that is already normal; nil otherwise (`""` is the root).
  public init?(_ string: String) {
    guard Self.isNormal(string) else { return nil }
    self.string = string
  }

  /// `path` (relative) made normal lexically; nil when it is absolute, holds NUL, or climbs
  /// above its start with `..`.
  public init?(normalizing path: String) {
    let utf8 = path.utf8
    guard utf8.first != Self.slash, !utf8.contains(0) else { return nil }
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
      if part == ".." {
        if parts.isEmpty { return nil }
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    self.string = Self.joining(parts)
  }

  /// Whether this is the root.
  @inlinable public var isRoot: Bool { string.isEmpty }

  /// The components, first to last (none for the root).
  public var components: [Substring] {
    string.split(separator: "/", omittingEmptySubsequences: true)
  }

  /// The last component (`03.automerge`); `""` for the root.
  public var lastComponent: String {
    guard let slash = string.utf8.lastIndex(of: Self.slash) else { return string }
    return String(string[string.utf8.index(after: slash)...])
  }

  /// The directory holding this name (`records/2026`, or the root); nil for the root.
  public var parent: LogicalName? {
    if isRoot { return nil }
    guard let slash = string.utf8.lastIndex(of: Self.slash) else { return .root }
    return LogicalName(unchecked: String(string[..<slash]))
  }

  /// This name with one component added (`records` + `2026`), in one allocation.
  /// `component` must be one component (`isComponent`); it is not checked here.
  @inlinable public func appending(_ component: String) -> LogicalName {
    if isRoot { return LogicalName(unchecked: component) }
    return LogicalName(unchecked: Self.concatenate(string, component))
  }

  /// Whether this name is `other` or lies inside it, compared component by component
  /// (`records/2026` lies inside `records`, `records2` does not); every name lies inside the
  /// root.
  public func isInside(_ other: LogicalName) -> Bool {
    if other.isRoot { return true }
    let (mine, theirs) = (components, other.components)
    guard mine.count >= theirs.count else { return false }
    for (a, b) in zip(mine, theirs) where a != b { return false }
    return true
  }

  /// Where `relativePath` (a link's target, say) leads from this directory, made normal;
  /// nil when it climbs out of the data folder or is absolute.
  public func resolving(_ relativePath: String) -> LogicalName? {
    LogicalName(normalizing: isRoot ? relativePath : string + "/" + relativePath)
  }

  public var description: String { string }

  /// Whether `name` is one component: not empty, not `.` or `..`, no `/` and no NUL.
  public static func isComponent(_ name: String) -> Bool {
    var name = name
    return name.withUTF8 { bytes in
      guard !bytes.isEmpty else { return false }
      if bytes[0] == Self.dot && (bytes.count == 1 || (bytes.count == 2 && bytes[1] == Self.dot)) {
        return false
      }
      return !bytes.contains { $0 == Self.slash || $0 == 0 }
    }
  }

  /// Whether `string` is a normal name (`""`, the root, is).
  static func isNormal(_ string: String) -> Bool {
    if string.isEmpty { return true }
    var string = string
    return string.withUTF8 { bytes in
      var start = 0
      for end in 0...bytes.count where end == bytes.count || bytes[end] == Self.slash {
        let count = end - start
        if count == 0 { return false }
        if bytes[start] == Self.dot && (count == 1 || (count == 2 && bytes[start + 1] == Self.dot))
        {
          return false
        }
        start = end + 1
      }
      return !bytes.contains(0)
    }
  }

  static let slash: UInt8 = 0x2F
  static let dot: UInt8 = 0x2E

  /// `parts` joined by `/`. Not `joined(separator:)`: its generic path looks witnesses up by
  /// name at the first use, about 100,000 instructions at a start of mn.
  static func joining(_ parts: some Sequence<Substring>) -> String {
    var out = ""
    for part in parts {
      if !out.isEmpty { out.append("/") }
      out.append(contentsOf: part)
    }
    return out
  }

  /// `a/b` in one allocation (`+` costs several times as much; the scan makes two names
  /// per file it keeps).
  @inlinable static func concatenate(_ a: String, _ b: String) -> String {
    var a = a
    var b = b
    return a.withUTF8 { first in b.withUTF8 { concatenate(first, slash: true, $0) } }
  }

  /// The bytes of `first`, a `/` when `slash`, and the bytes of `second`, as one String.
  @inlinable static func concatenate(
    _ first: UnsafeBufferPointer<UInt8>, slash: Bool, _ second: UnsafeBufferPointer<UInt8>
  ) -> String {
    String(unsafeUninitializedCapacity: first.count + (slash ? 1 : 0) + second.count) { out in
      var at = out.initialize(fromContentsOf: first)
      if slash {
        out[at] = 0x2F  // `/`
        at += 1
      }
      let rest = UnsafeMutableBufferPointer(rebasing: out[at...])
      return at + rest.initialize(fromContentsOf: second)
    }
  }
}
