import AutomergeCodec
import Operations
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

  /// Writes `value` as JSON indented by two spaces, then a newline: every `--json` report
  /// and `mn doc show`. The text is written from the buffer it is made in, not made into a
  /// `String` and copied (a document's JSON can be megabytes).
  public func writeJSON(_ value: JSONValue) throws { try write(JSONWriter.document(value)) }
}

/// Everything a verb may touch outside itself, passed in (style.md (d)): the system's side
/// effects, which it hands on to the workflows and forwards (`env.fileSystem`, `env.now()`,
/// `env.variables`), and the terminal's.
@dynamicMemberLookup
public struct Environment: Sendable {
  /// The disk, the clock, sleeping, the sync provider, child processes and the environment
  /// variables, as Operations takes them.
  public var system: SystemContext
  /// The current directory, absolute.
  public var currentDirectory: AbsolutePath
  public var stdout: any OutputSink
  public var stderr: any OutputSink
  public var stdoutIsTerminal: Bool
  public var stderrIsTerminal: Bool
  public var stdinIsTerminal: Bool
  /// Reads all of standard input.
  public var readStandardInput: @Sendable () throws -> [UInt8]
  /// Reads one line from the terminal (for a confirmation prompt); nil at end of input.
  public var readLine: @Sendable () -> String?
  /// The local time zone's offset from UTC in seconds at a given time (seconds since the
  /// epoch), for the local days, weeks and months of `backups prune`; UTC by default.
  public var utcOffset: @Sendable (Int64) -> Int64

  public init(
    system: SystemContext, currentDirectory: AbsolutePath, stdout: any OutputSink,
    stderr: any OutputSink, stdoutIsTerminal: Bool = false, stderrIsTerminal: Bool = false,
    stdinIsTerminal: Bool = false,
    readStandardInput: @escaping @Sendable () throws -> [UInt8] = { [] },
    readLine: @escaping @Sendable () -> String? = { nil },
    utcOffset: @escaping @Sendable (Int64) -> Int64 = { _ in 0 }
  ) {
    self.system = system
    self.currentDirectory = currentDirectory
    self.stdout = stdout
    self.stderr = stderr
    self.stdoutIsTerminal = stdoutIsTerminal
    self.stderrIsTerminal = stderrIsTerminal
    self.stdinIsTerminal = stdinIsTerminal
    self.readStandardInput = readStandardInput
    self.readLine = readLine
    self.utcOffset = utcOffset
  }

  public subscript<Value>(dynamicMember keyPath: KeyPath<SystemContext, Value>) -> Value {
    system[keyPath: keyPath]
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
        flag: flag, variables: system.variables, currentDirectory: currentDirectory,
        isDarwin: Environment.isDarwin),
      fileSystem: system.fileSystem)
  }
}

extension Environment {
  /// Scans the data folder at `root` with the system's materialization of dataless files
  /// off (mn.md §15): listing never starts a download. Every verb's scan goes through here.
  func scanFolder(_ root: AbsolutePath, readingStaleStubs: Bool = false) throws
    -> FolderListing
  {
    try system.syncProvider.withoutMaterializing {
      try FolderScan.scan(
        root: root, fileSystem: system.fileSystem,
        readingStaleStubs: readingStaleStubs)
    }
  }
}
