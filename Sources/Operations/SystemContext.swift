import Platform
import Storage

/// The side effects every workflow may use, passed in (style.md (d)): the disk, the clock,
/// sleeping, the random part of temporary names, the sync provider, child processes and the
/// environment variables.
///
/// The live environment builds it once (`Environment.live()` in Commands). `Environment`,
/// `FetchContext`, `WatchContext` and `MigrateOperation.Context` each hold one and add only
/// what is their own; they forward its members (`context.fileSystem` is `context.system.fileSystem`), so code reads
/// the same whichever it was handed.
public struct SystemContext: Sendable {
  /// The environment variables mn reads (mn.md §2, §8, §11).
  public var variables: [String: String]
  /// The disk; on macOS it coordinates through `syncProvider`.
  public var fileSystem: any FileSystem
  /// The wall clock: seconds since the epoch, with the fraction. Waits and timeouts use
  /// only differences of it; manifests and backup names use `nowSeconds`.
  public var now: @Sendable () -> Double
  /// Sleeps for the given number of seconds (lock waits, fetch polling).
  public var sleep: @Sendable (Double) -> Void
  /// Starts the commands mn runs (`fetch --exec`, `watch --fetch-exec`).
  public var processRunner: any ProcessRunner
  /// The whole environment of the process, for the commands mn runs, which get it as a
  /// shell would give it (mn.md §4); read only when one is run. `variables` by default.
  public var processVariables: @Sendable () -> [String: String]
  /// Says which files are current, lists and resolves conflict versions (mn.md §15):
  /// `DarwinSyncProvider` on macOS, where `fileSystem` then coordinates through it;
  /// `NoSyncProvider` elsewhere and in tests.
  public var syncProvider: any SyncProvider
  /// The random part of temporary names.
  public var random: @Sendable () -> String
  /// How many threads may work at once: the processors online for a live run, 1 in tests
  /// unless one asks for more. Asked only by the work that spreads over threads.
  public var processors: @Sendable () -> Int

  public init(
    variables: [String: String] = [:], fileSystem: any FileSystem,
    now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) -> Void = { _ in },
    processRunner: any ProcessRunner = LiveProcessRunner(),
    processVariables: (@Sendable () -> [String: String])? = nil,
    syncProvider: any SyncProvider = NoSyncProvider(),
    random: @escaping @Sendable () -> String = AtomicFile.randomSuffix,
    processors: @escaping @Sendable () -> Int = { 1 }
  ) {
    self.variables = variables
    self.fileSystem = fileSystem
    self.now = now
    self.sleep = sleep
    self.processRunner = processRunner
    self.processVariables = processVariables ?? { variables }
    self.syncProvider = syncProvider
    self.random = random
    self.processors = processors
  }

  /// Seconds since the epoch, whole: for manifests and backup names.
  public var nowSeconds: Int64 { Int64(now().rounded(.down)) }
}
