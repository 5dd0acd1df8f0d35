#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The live process's view of the system, one C call each: the environment, the working
/// directory, the clocks, sleeping, the time zone, the terminals and the standard streams.
///
/// The libraries never call these: `Commands`' live environment does, once, and hands the
/// values and closures down, so that every test can put fakes in their place.
public enum LiveSystem {
  /// The value of the environment variable `name`, or nil (`getenv`).
  public static func variable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// Every `NAME=VALUE` of the process's environment (`environ`), as a shell passes it on;
  /// an entry without `=` is left out, and the first of a repeated name wins, as `getenv`
  /// finds it.
  public static func environment() -> [String: String] {
    guard let table = environmentTable() else { return [:] }
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

  /// The working directory (`getcwd`), `/` when it cannot be read.
  public static func currentDirectory() -> String {
    guard let pointer = getcwd(nil, 0) else { return "/" }
    defer { free(pointer) }
    return String(cString: pointer)
  }

  /// The wall clock: seconds and nanoseconds since 1970 (`CLOCK_REALTIME`).
  public static func now() -> (seconds: Int64, nanoseconds: Int64) {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return (Int64(ts.tv_sec), Int64(ts.tv_nsec))
  }

  /// A clock that never goes back, in seconds from an arbitrary start (`CLOCK_MONOTONIC`):
  /// for measuring waits.
  public static func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// Sleeps for `seconds`, resumed after a signal (`nanosleep`).
  public static func sleep(_ seconds: Double) {
    var request = timespec(
      tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
  }

  /// The C library's zone's offset from UTC at `seconds` since 1970 (TZ, else
  /// /etc/localtime), in seconds; 0 when it cannot be told (`localtime_r`).
  public static func utcOffset(_ seconds: Int64) -> Int64 {
    var time = time_t(seconds)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return 0 }
    return Int64(parts.tm_gmtoff)
  }

  /// Whether the descriptor is a terminal (`isatty`).
  public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// Writes up to `count` bytes at `bytes` to `fd` (`write`): the count written, or -1 with
  /// `Errno.current` set.
  public static func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    cWrite(fd, bytes, count)
  }

  /// Reads standard input to its end.
  ///
  /// - Throws: `FileSystemError` when a read fails (other than by a signal).
  public static func readStandardInput() throws -> [UInt8] {
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
  }

  /// Writes `text` to standard error at once, unbuffered (for a warning given before any
  /// output sink exists).
  public static func warn(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return cWrite(2, base + offset, buffer.count - offset)
      }
      if n > 0 {
        offset += n
      } else if n < 0 && Errno.current == .interrupted {
        continue
      } else {
        // A closed or full standard error: nothing more can be said.
        return
      }
    }
  }
}

/// File-scope forwarder: inside `LiveSystem` its method `write` shadows the C function.
private func cWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}

#if !canImport(Darwin) && !MN_DARWIN_SHIM
  /// The process's environment table (`environ`); Darwin's is in DarwinSystem.swift.
  func environmentTable() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    environ
  }
#endif

extension LiveSystem {
  /// Whether mn runs on Darwin (macOS locations of mn.md §2 and §8).
  public static var isDarwin: Bool {
    #if canImport(Darwin) || MN_DARWIN_SHIM
      return true
    #else
      return false
    #endif
  }

  /// Ends the process with `status`, flushing the C library's streams (`exit`).
  public static func exit(_ status: Int32) -> Never {
    cExit(status)
  }
}

/// File-scope forwarder: inside `LiveSystem` its method `exit` shadows the C function.
private func cExit(_ status: Int32) -> Never { exit(status) }
