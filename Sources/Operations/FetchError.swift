/// Why `mn fetch` cannot start.
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `--from` names nothing.
  case sourceNotFound(String)
  /// `--from` names something that is neither a directory nor a file, or cannot be examined.
  case sourceNotUsable(String, String)
  /// `--from` names the data folder itself.
  case sourceIsDataFolder(String)

  public var description: String {
    switch self {
    case .sourceNotFound(let p): return "no such source '\(p)'"
    case .sourceNotUsable(let p, let why): return "cannot use source '\(p)': \(why)"
    case .sourceIsDataFolder(let p): return "source '\(p)' is the data folder itself"
    }
  }
}
