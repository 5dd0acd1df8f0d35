import Platform
import Storage

/// What `mn fetch` will do: the items, sorted by logical name.
public struct FetchPlan: Sendable, Equatable {
  public var root: AbsolutePath
  public var items: [FetchItem]

  public init(root: AbsolutePath, items: [FetchItem]) {
    self.root = root
    self.items = items
  }
}

/// One real file to bring down: a document or a conflict copy with its placeholders.
public struct FetchItem: Sendable, Equatable {
  /// The logical name of the real file (`records/2026/09.automerge`).
  public var logicalName: String
  /// Its absolute path.
  public var path: AbsolutePath
  /// The placeholders standing for it (normally one).
  public var placeholders: [Placeholder]
  /// Whether it is a conflict copy rather than a document.
  public var isCopy: Bool
  /// Whether the real file was present when planned (a stale placeholder).
  public var fileExists: Bool
  /// Whether the file is present but its sync provider has a newer version (mn.md §15).
  public var isStale: Bool

  public init(
    logicalName: String, path: AbsolutePath, placeholders: [Placeholder], isCopy: Bool,
    fileExists: Bool, isStale: Bool = false
  ) {
    self.logicalName = logicalName
    self.path = path
    self.placeholders = placeholders
    self.isCopy = isCopy
    self.fileExists = fileExists
    self.isStale = isStale
  }

  /// The size a placeholder declares, when one does.
  public var declaredSize: Int64? { placeholders.lazy.compactMap(\.declaredSize).first }
}

/// Where the content of placeholders comes from.
public enum FetchSource: Sendable, Equatable {
  /// No source: on macOS the system is asked to download; then the sync client is awaited.
  case sync
  /// Another copy of the data folder (absolute path).
  case directory(AbsolutePath)
  /// An archive written by `mn export` (absolute path).
  case archive(AbsolutePath)
  /// A shell command per item; `{}` is the file's absolute path and `{rel}` its logical name
  /// (both shell-quoted); with neither, the path is appended.
  case command(String)
}

/// How long `run` waits and how often it looks.
public struct FetchOptions: Sendable, Equatable {
  /// The most seconds spent waiting for files and commands (mn.md §4: `defaultTimeout`).
  public var timeout: Double
  /// Seconds between two looks at the folder while waiting.
  public var pollInterval: Double

  /// `--timeout`'s default, in seconds (mn.md §4): written here once, read by the option (so
  /// help, man pages and completions say it) and by `init`.
  public static let defaultTimeout = 300.0

  public init(timeout: Double = FetchOptions.defaultTimeout, pollInterval: Double = 0.5) {
    self.timeout = timeout
    self.pollInterval = pollInterval
  }
}
