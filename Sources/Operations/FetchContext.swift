import Platform

/// The side effects `FetchOperation.run` may use, passed in (style.md (d)): the system's,
/// forwarded (`context.fileSystem`), and the two that are fetch's own.
@dynamicMemberLookup
public struct FetchContext {
  /// The disk, the clock, the process runner and the environment of `--exec` commands
  /// (`processVariables`), and the sync provider, which says whether a file is current
  /// (mn.md §15).
  public var system: SystemContext
  /// Asks the system to download a file (macOS: `SyncDownload.request`); nil to skip.
  public var requestDownload: ((AbsolutePath) throws -> Void)?
  /// Called after each item is settled (fetched, refused or given up), with the counts.
  public var progress: (_ done: Int, _ total: Int, _ item: String) -> Void

  public init(
    system: SystemContext, requestDownload: ((AbsolutePath) throws -> Void)? = nil,
    progress: @escaping (Int, Int, String) -> Void = { _, _, _ in }
  ) {
    self.system = system
    self.requestDownload = requestDownload
    self.progress = progress
  }

  public subscript<Value>(dynamicMember keyPath: KeyPath<SystemContext, Value>) -> Value {
    system[keyPath: keyPath]
  }
}
