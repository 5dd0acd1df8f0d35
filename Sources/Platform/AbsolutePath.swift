/// A path on the machine, from `/` (`/home/ada/Documents/Minuta/records/2026`): a data
/// folder's root, a file in it, an archive, a backup directory.
///
/// Two ways in. `init(normalizing:relativeTo:)` makes any path absolute against a base and
/// normal, lexically: empty and `.` components are dropped, `..` removes the component
/// before it (and stays at `/` at the top); symbolic links are not resolved (for that, see
/// `resolvingLinks(_:)`). `init(_:)` keeps a path exactly as the caller got it (the root
/// discovery chose, the current directory, a directory being walked), so that what mn
/// prints is what it was given; callers only ever hold absolute paths.
///
/// Everything is lexical and pure (no file system), except `resolvingLinks(_:)`. The rules
/// of the names inside a data folder are `LogicalName`'s.
public struct AbsolutePath: Hashable, Sendable, CustomStringConvertible {
  /// The path as text.
  public let string: String

  /// `/`.
  public static let root = AbsolutePath("/")

  /// The path as given, not rewritten.
  @inlinable public init(_ string: String) { self.string = string }

  /// `path` made absolute against `base` (when it is relative) and normal.
  public init(normalizing path: String, relativeTo base: AbsolutePath) {
    let full = path.utf8.first == LogicalName.slash ? path : base.appending(path).string
    self.string = Self.normalString(Self.normalComponents(full))
  }

  /// The normal components (`..` resolved lexically), first to last; none for `/`.
  public var components: [Substring] { Self.normalComponents(string) }

  /// This path made normal (`/a//b/./c/../d` is `/a/b/d`).
  public var normalized: AbsolutePath { AbsolutePath(Self.normalString(components)) }

  /// The directory holding this path: `/a/b` for `/a/b/c`, `/` for `/a` (and for `/`).
  public var parent: AbsolutePath {
    guard let slash = string.utf8.lastIndex(of: LogicalName.slash) else { return AbsolutePath(".") }
    let directory = String(string[..<slash])
    return AbsolutePath(directory.isEmpty ? "/" : directory)
  }

  /// The last component: `c` for `/a/b/c` (`""` when the path ends in `/`).
  public var lastComponent: String {
    guard let slash = string.utf8.lastIndex(of: LogicalName.slash) else { return string }
    return String(string[string.utf8.index(after: slash)...])
  }

  /// The path of `name` inside this directory; the root name is this path itself.
  @inlinable public func appending(_ name: LogicalName) -> AbsolutePath {
    appending(name.string)
  }

  /// This path with a relative path added (`Documents/Minuta`, one component, or a logical
  /// name's text), one `/` between them, in one allocation. An absolute `relativePath`
  /// replaces this path; an empty one adds nothing.
  @inlinable public func appending(_ relativePath: String) -> AbsolutePath {
    // On the bytes in place: the scan builds a path this way for every file it keeps.
    var base = string
    var tail = relativePath
    return base.withUTF8 { first in
      tail.withUTF8 { second in
        if second.first == 0x2F || first.isEmpty { return AbsolutePath(relativePath) }
        if second.isEmpty { return self }
        return AbsolutePath(
          LogicalName.concatenate(first, slash: first.last != 0x2F, second))
      }
    }
  }

  /// The name of this path inside `root` when it lies there (`""`, the root name, when they
  /// are the same path), compared lexically component by component; nil otherwise.
  public func logicalName(in root: AbsolutePath) -> LogicalName? {
    Self.remainder(components, after: root.components)
  }

  /// The components of `path` that follow `prefix`, as a logical name, when `path` starts
  /// with every component of `prefix` (both normal components); nil otherwise.
  public static func remainder(_ path: [Substring], after prefix: [Substring]) -> LogicalName? {
    guard path.count >= prefix.count else { return nil }
    for (a, b) in zip(path, prefix) where a != b { return nil }
    return LogicalName(unchecked: LogicalName.joining(path[prefix.count...]))
  }

  /// Whether this path is `other` or lies inside it, compared lexically.
  public func isInside(_ other: AbsolutePath) -> Bool { logicalName(in: other) != nil }

  public var description: String { string }

  /// The components of `path` with empty and `.` ones dropped and `..` resolved; `..` at
  /// the top stays at the top.
  static func normalComponents(_ path: String) -> [Substring] {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
      } else {
        parts.append(part)
      }
    }
    return parts
  }

  /// `/` and the components.
  static func normalString(_ parts: some Sequence<Substring>) -> String {
    var out = ""
    for part in parts {
      out.append("/")
      out.append(contentsOf: part)
    }
    return out.isEmpty ? "/" : out
  }
}

extension AbsolutePath {
  /// This path with its symbolic links resolved as far as it exists (the rest, not yet
  /// created, appended as it is), normal.
  public func resolvingLinks(_ fileSystem: any FileSystem) -> AbsolutePath {
    var existing = normalized
    var rest: [String] = []
    while existing != .root {
      if let real = try? fileSystem.realPath(existing) {
        return real.appending(rest.reversed().joined(separator: "/")).normalized
      }
      rest.append(existing.lastComponent)
      existing = existing.parent
    }
    return AbsolutePath.root.appending(rest.reversed().joined(separator: "/")).normalized
  }
}

extension FileSystem {
  /// `mkdir -p`: creates the missing directories of `path` (normal, every one on the way)
  /// with `permissions`. A directory created meanwhile by someone else is fine.
  ///
  /// - Throws: the file system's error; `.notDirectory` when something on the way is not one.
  public func makeDirectories(_ path: AbsolutePath, permissions: FilePermissions) throws {
    var current = AbsolutePath.root
    for part in path.components {
      current = current.appending(String(part))
      if let info = try infoFollowingLinks(current) {
        guard info.kind == .directory else {
          throw FileSystemError("create directory", current, .notDirectory)
        }
        continue
      }
      do {
        try makeDirectory(current, permissions: permissions)
      } catch let error as FileSystemError where error.errno == .fileExists {
        // Created meanwhile by someone else: fine.
      }
    }
  }
}

/// A literal path (`"/backups/b.tar.gz"`), as swift-system's `FilePath` takes one: kept as
/// written, like `init(_:)`.
extension AbsolutePath: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self.init(value) }
}
