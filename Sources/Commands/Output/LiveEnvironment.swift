import Platform
import Storage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
      let n = sinkWrite(fd, base + offset, bytes.count - offset)
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

private func sinkWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }

extension Environment {
  /// The environment variables mn reads (mn.md §2, §8, §11).
  static let variableNames = [
    "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "MINUTA_STORAGE", "MN_BACKUP_DIR", "NO_COLOR",
    "TMPDIR", "PATH", "MN_TEST_PAUSE_AT", "XDG_CACHE_HOME", "RCLONE_CACHE_DIR",
  ]

  /// The real process environment: variables, working directory, clock, terminals.
  public static func live() -> Environment {
    // Only the variables mn reads: copying the whole environment costs start-up time. The
    // whole one is read when a command is run (`processVariables`).
    var variables: [String: String] = [:]
    for name in Environment.variableNames {
      if let value = getenv(name) { variables[name] = String(cString: value) }
    }
    var cwd = "/"
    if let pointer = getcwd(nil, 0) {
      cwd = String(cString: pointer)
      free(pointer)
    }
    // The test-only pause points wrap the live file system only when asked for.
    let pausePoints = PausePoints(variables["MN_TEST_PAUSE_AT"])
    let live: any FileSystem =
      pausePoints.map { PausingFileSystem(base: LiveFileSystem(), points: $0) } ?? LiveFileSystem()
    #if canImport(Darwin)
      // Before any file is read: no accidental download of a dataless file (mn.md §15).
      if let error = DarwinSyncProvider.turnOffMaterializationForProcess() {
        fputs(
          "mn: warning: cannot turn off the download of dataless files (\(error)); "
            + "a read of one may download it\n", stderr)
      }
      let provider: any SyncProvider = DarwinSyncProvider(home: variables["HOME"] ?? "")
      let fileSystem: any FileSystem = CoordinatedFileSystem(base: live, provider: provider)
    #else
      // No provider: the live file system as it is, without a wrapper's indirection.
      let provider: any SyncProvider = NoSyncProvider()
      let fileSystem: any FileSystem = live
    #endif
    return Environment(
      variables: variables, currentDirectory: cwd,
      now: {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec))
      },
      fileSystem: fileSystem,
      stdout: FileDescriptorSink(fd: 1, bufferLimit: 1 << 16),
      stderr: FileDescriptorSink(fd: 2, bufferLimit: 0),
      stdoutIsTerminal: isatty(1) == 1, stderrIsTerminal: isatty(2) == 1,
      stdinIsTerminal: isatty(0) == 1,
      readStandardInput: {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
          let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
          if n > 0 {
            out.append(contentsOf: chunk[0..<n])
          } else if n == 0 {
            return out
          } else if Errno.current != .interrupted {
            throw FileSystemError("read", "standard input", .current)
          }
        }
      },
      readLine: { Swift.readLine() },
      sleep: { seconds in
        var request = timespec(
          tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
      },
      utcOffset: { seconds in
        // The C library's zone (TZ, else /etc/localtime).
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
      },
      syncProvider: provider, processVariables: { Environment.processEnvironment() })
  }

  /// Every `NAME=VALUE` of the process's environment (`environ`), as a shell passes it on;
  /// an entry without `=` is left out, and the first of a repeated name wins, as `getenv`
  /// finds it.
  static func processEnvironment() -> [String: String] {
    #if canImport(Darwin)
      let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = _NSGetEnviron().pointee
    #else
      let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
    #endif
    guard let table else { return [:] }
    var variables: [String: String] = [:]
    var index = 0
    while let entry = table[index] {
      index += 1
      let text = String(cString: entry)
      guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { continue }
      let name = String(text[..<equals])
      if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
    }
    return variables
  }
}
