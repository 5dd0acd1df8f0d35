import Platform
import Storage

/// The side effects `FetchOperation.run` may use, passed in (style.md (d)).
public struct FetchContext {
  public var fileSystem: any FileSystem
  /// Seconds on a monotonic or wall clock; only differences are used.
  public var now: () -> Double
  /// Sleeps for the given number of seconds.
  public var sleep: (Double) -> Void
  /// Starts `--exec` commands.
  public var processRunner: any ProcessRunner
  /// The environment of `--exec` commands.
  public var variables: [String: String]
  /// Asks the system to download a file (macOS: `SyncDownload.request`); nil to skip.
  public var requestDownload: ((String) throws -> Void)?
  /// Called after each item is settled (fetched, refused or given up), with the counts.
  public var progress: (_ done: Int, _ total: Int, _ item: String) -> Void
  /// The random part of temporary names.
  public var random: () -> String
  /// Says whether a file is current (mn.md §15); `NoSyncProvider` where there is none.
  public var syncProvider: any SyncProvider

  public init(
    fileSystem: any FileSystem, now: @escaping () -> Double, sleep: @escaping (Double) -> Void,
    processRunner: any ProcessRunner = LiveProcessRunner(), variables: [String: String] = [:],
    requestDownload: ((String) throws -> Void)? = nil,
    progress: @escaping (Int, Int, String) -> Void = { _, _, _ in },
    random: @escaping () -> String = AtomicFile.randomSuffix,
    syncProvider: any SyncProvider = NoSyncProvider()
  ) {
    self.syncProvider = syncProvider
    self.fileSystem = fileSystem
    self.now = now
    self.sleep = sleep
    self.processRunner = processRunner
    self.variables = variables
    self.requestDownload = requestDownload
    self.progress = progress
    self.random = random
  }
}
