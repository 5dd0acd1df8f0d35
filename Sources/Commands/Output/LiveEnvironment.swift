import Operations
import Platform
import Storage
import Threads

/// An output sink on a file descriptor, buffered; a closed pipe is ignored (style.md (c)).
public final class FileDescriptorSink: OutputSink, @unchecked Sendable {
  private let fd: Int32
  private var buffer: [UInt8] = []
  private var broken = false
  private let limit: Int

  /// Creates a sink that flushes whenever `limit` bytes are buffered (0: never buffers).
  public init(fd: Int32, bufferLimit: Int) {
    self.fd = fd
    self.limit = bufferLimit
  }

  public func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBufferPointer { try write($0) }
  }

  public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    if bytes.count > limit / 4 {
      // A large piece (a part of a long listing) goes out as it is, after what is buffered:
      // copying it would only cost time and memory.
      try flush()
      try writeOut(bytes)
      return
    }
    if buffer.count + bytes.count > limit { try flush() }
    buffer.append(contentsOf: bytes)
  }

  public func flush() throws {
    defer { buffer.removeAll(keepingCapacity: true) }
    try buffer.withUnsafeBufferPointer { try writeOut($0) }
  }

  /// Writes all of `bytes` to the descriptor; after a broken pipe, nothing more.
  private func writeOut(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    guard !broken, let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let n = LiveSystem.write(fd, base + offset, bytes.count - offset)
      if n >= 0 {
        offset += n
        continue
      }
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .brokenPipe {
        broken = true
        return
      }
      throw FileSystemError("write", fd == 1 ? "standard output" : "standard error", error)
    }
  }
}

extension Environment {
  /// The environment variables mn reads (mn.md §2, §8, §11).
  static let variableNames = [
    "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "MINUTA_STORAGE", "MN_BACKUP_DIR", "NO_COLOR",
    "TMPDIR", "PATH", "MN_TEST_PAUSE_AT", "XDG_CACHE_HOME", "RCLONE_CACHE_DIR",
  ]

  /// The real process environment: the system's side effects (built here once), the working
  /// directory, the terminals (the system calls are Platform's `LiveSystem`).
  public static func live() -> Environment {
    // Only the variables mn reads: copying the whole environment costs start-up time. The
    // whole one is read when a command is run (`processVariables`).
    var variables: [String: String] = [:]
    for name in Environment.variableNames {
      if let value = LiveSystem.variable(name) { variables[name] = value }
    }
    // The test-only pause points wrap the live file system only when asked for.
    let pausePoints = PausePoints(variables["MN_TEST_PAUSE_AT"])
    let live: any FileSystem =
      pausePoints.map { PausingFileSystem(base: LiveFileSystem(), points: $0) } ?? LiveFileSystem()
    // Before any file is read: on Darwin no accidental download of a dataless file (mn.md §15).
    let (provider, fileSystem) = LiveSync.make(
      base: live, home: WellKnownPaths.home(variables: variables), warn: LiveSystem.warn)
    let system = SystemContext(
      variables: variables, fileSystem: fileSystem,
      now: {
        // The one place the wall clock's seconds and nanoseconds become mn's clock.
        let (seconds, nanoseconds) = LiveSystem.now()
        return Double(seconds) + Double(nanoseconds) / 1e9
      },
      sleep: { LiveSystem.sleep($0) },
      processVariables: { Environment.processEnvironment() }, syncProvider: provider,
      processors: { Processors.online })
    return Environment(
      system: system, currentDirectory: AbsolutePath(LiveSystem.currentDirectory()),
      stdout: FileDescriptorSink(fd: 1, bufferLimit: 1 << 16),
      stderr: FileDescriptorSink(fd: 2, bufferLimit: 0),
      stdoutIsTerminal: LiveSystem.isTerminal(1), stderrIsTerminal: LiveSystem.isTerminal(2),
      stdinIsTerminal: LiveSystem.isTerminal(0),
      readStandardInput: { try LiveSystem.readStandardInput() },
      readLine: { Swift.readLine() },
      utcOffset: { LiveSystem.utcOffset($0) })
  }

  /// Every `NAME=VALUE` of the process's environment (`environ`), as a shell passes it on;
  /// an entry without `=` is left out, and the first of a repeated name wins, as `getenv`
  /// finds it.
  static func processEnvironment() -> [String: String] { LiveSystem.environment() }
}
