import Platform
import Storage

/// A place that text goes: standard output, standard error, or a test's buffer.
public protocol OutputSink: AnyObject, Sendable {
  /// Writes bytes; a closed pipe is ignored, any other failure is thrown.
  func write(_ bytes: [UInt8]) throws
  /// Writes bytes from memory the caller keeps (a long listing's buffer), as `write`.
  func write(_ bytes: UnsafeBufferPointer<UInt8>) throws
  /// Flushes anything buffered.
  func flush() throws
}

extension OutputSink {
  /// Writes text as UTF-8.
  public func write(_ text: String) throws { try write(Array(text.utf8)) }

  public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws { try write(Array(bytes)) }
}

/// Everything a verb may touch outside itself, passed in (style.md (d)).
public struct Environment: Sendable {
  /// The environment variables mn reads (mn.md §2, §8, §11).
  public var variables: [String: String]
  /// The whole environment of the process, for the commands mn runs (`fetch --exec`,
  /// `watch --fetch-exec`), which get it as a shell would give it (mn.md §4); read only when
  /// one is run. `variables` by default.
  public var processVariables: @Sendable () -> [String: String]
  /// The current directory, absolute.
  public var currentDirectory: String
  /// The current time as seconds since the epoch, and nanoseconds.
  public var now: @Sendable () -> (seconds: Int64, nanoseconds: Int64)
  public var fileSystem: any FileSystem
  public var stdout: any OutputSink
  public var stderr: any OutputSink
  public var stdoutIsTerminal: Bool
  public var stderrIsTerminal: Bool
  public var stdinIsTerminal: Bool
  /// Reads all of standard input.
  public var readStandardInput: @Sendable () throws -> [UInt8]
  /// Reads one line from the terminal (for a confirmation prompt); nil at end of input.
  public var readLine: @Sendable () -> String?
  /// Sleeps for the given number of seconds (lock waits, fetch polling).
  public var sleep: @Sendable (Double) -> Void
  /// Starts child processes (`fetch --exec`).
  public var processRunner: any ProcessRunner
  /// The local time zone's offset from UTC in seconds at a given time (seconds since the
  /// epoch), for the local days, weeks and months of `backups prune`; UTC by default.
  public var utcOffset: @Sendable (Int64) -> Int64
  /// The sync provider of the system (mn.md §15): `DarwinSyncProvider` on macOS, where
  /// `fileSystem` then coordinates through it; `NoSyncProvider` elsewhere and in tests.
  public var syncProvider: any SyncProvider

  public init(
    variables: [String: String], currentDirectory: String,
    now: @escaping @Sendable () -> (seconds: Int64, nanoseconds: Int64),
    fileSystem: any FileSystem, stdout: any OutputSink, stderr: any OutputSink,
    stdoutIsTerminal: Bool = false, stderrIsTerminal: Bool = false, stdinIsTerminal: Bool = false,
    readStandardInput: @escaping @Sendable () throws -> [UInt8] = { [] },
    readLine: @escaping @Sendable () -> String? = { nil },
    sleep: @escaping @Sendable (Double) -> Void = { _ in },
    processRunner: any ProcessRunner = LiveProcessRunner(),
    utcOffset: @escaping @Sendable (Int64) -> Int64 = { _ in 0 },
    syncProvider: any SyncProvider = NoSyncProvider(),
    processVariables: (@Sendable () -> [String: String])? = nil
  ) {
    self.syncProvider = syncProvider
    self.variables = variables
    self.processVariables = processVariables ?? { variables }
    self.currentDirectory = currentDirectory
    self.now = now
    self.fileSystem = fileSystem
    self.stdout = stdout
    self.stderr = stderr
    self.stdoutIsTerminal = stdoutIsTerminal
    self.stderrIsTerminal = stderrIsTerminal
    self.stdinIsTerminal = stdinIsTerminal
    self.readStandardInput = readStandardInput
    self.readLine = readLine
    self.sleep = sleep
    self.processRunner = processRunner
    self.utcOffset = utcOffset
  }
}

extension Environment {
  /// Whether the platform is Darwin (macOS locations of mn.md §2 and §8).
  public static var isDarwin: Bool { LiveSystem.isDarwin }
}

extension Environment {
  /// Runs data-folder discovery (mn.md §2) with this environment and a `--root` value.
  func discover(root flag: String?) -> Discovery {
    Discovery.run(
      DiscoveryInput(
        flag: flag, variables: variables, currentDirectory: currentDirectory,
        isDarwin: Environment.isDarwin),
      fileSystem: fileSystem)
  }
}

extension Environment {
  /// Scans the data folder at `root` with the system's materialization of dataless files
  /// off (mn.md §15): listing never starts a download. Every verb's scan goes through here.
  func scanFolder(_ root: String, readingStaleStubs: Bool = false) throws -> FolderListing {
    try syncProvider.withoutMaterializing {
      try FolderScan.scan(root: root, fileSystem: fileSystem, readingStaleStubs: readingStaleStubs)
    }
  }
}
