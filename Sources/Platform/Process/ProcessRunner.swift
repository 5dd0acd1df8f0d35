/// How a child process ended.
public enum ProcessStatus: Sendable, Equatable, CustomStringConvertible {
  /// It called `exit` with this status.
  case exited(Int32)
  /// A signal ended it.
  case signaled(Int32)

  /// Whether it exited with status 0.
  public var succeeded: Bool { self == .exited(0) }

  public var description: String {
    switch self {
    case .exited(let code): return "exit status \(code)"
    case .signaled(let signal): return "killed by signal \(signal)"
    }
  }
}

/// A child process started by a `ProcessRunner`.
public struct ChildProcess: Sendable, Hashable {
  /// The process id.
  public var id: Int32
  public init(id: Int32) { self.id = id }
}

/// Why a child process could not be started or waited for.
public struct ProcessError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The operation in words: "start", "wait".
  public var operation: String
  /// The command line.
  public var command: String
  public var errno: Errno

  public init(_ operation: String, _ command: String, _ errno: Errno) {
    self.operation = operation
    self.command = command
    self.errno = errno
  }

  public var description: String { "cannot \(operation) '\(command)': \(errno)" }
}

/// Starts shell commands and watches them end, so that Operations can run `fetch --exec` commands
/// without calling the system itself (tests pass a fake).
///
/// A command runs as `/bin/sh -c COMMAND` with the environment it is given, standard input
/// from `/dev/null`, and its standard output sent to mn's standard error, so that mn's own
/// standard output stays data (`--json`). Waiting is polling (`status(of:)`), so the caller
/// keeps the clock and can give up at a deadline.
public protocol ProcessRunner: Sendable {
  /// Starts `/bin/sh -c command`. The corresponding C function is `posix_spawn`.
  ///
  /// - Parameters:
  ///   - command: the shell command line.
  ///   - environment: the child's whole environment.
  /// - Returns: the running child.
  /// - Throws: `ProcessError` when it cannot be started.
  func start(shellCommand command: String, environment: [String: String]) throws(ProcessError)
    -> ChildProcess
  /// How the child ended, or nil while it runs; reaps it once it has ended. The
  /// corresponding C function is `waitpid(WNOHANG)`.
  func status(of child: ChildProcess) throws(ProcessError) -> ProcessStatus?
  /// Asks the child to stop (`SIGTERM`), or forces it (`SIGKILL`). The corresponding C
  /// function is `kill`.
  func terminate(_ child: ChildProcess, force: Bool)
}

extension ProcessRunner {
  /// Waits for `child` to end, polling every `interval` seconds until `deadline` (a time on
  /// `now`'s clock); past it the child is terminated (`SIGTERM`, then `SIGKILL` after a
  /// second) and nil is returned.
  ///
  /// - Parameters:
  ///   - child: a child started by this runner.
  ///   - deadline: when to give up, in seconds on `now`'s clock.
  ///   - now: the clock.
  ///   - sleep: sleeps for the given number of seconds.
  ///   - interval: the polling interval.
  /// - Returns: how it ended, or nil when it was stopped at the deadline.
  /// - Throws: `ProcessError` when waiting fails.
  public func wait(
    for child: ChildProcess, until deadline: Double, now: () -> Double, sleep: (Double) -> Void,
    interval: Double = 0.05
  ) throws(ProcessError) -> ProcessStatus? {
    while true {
      if let status = try status(of: child) { return status }
      let left = deadline - now()
      if left <= 0 { break }
      sleep(min(interval, left))
    }
    terminate(child, force: false)
    for _ in 0..<20 {
      if try status(of: child) != nil { return nil }
      sleep(interval)
    }
    terminate(child, force: true)
    while try status(of: child) == nil { sleep(interval) }
    return nil
  }
}

/// Quoting for `/bin/sh`.
public enum ShellQuote {
  /// `text` as one shell word: in single quotes, each `'` written as `'\''`.
  public static func quote(_ text: String) -> String {
    "'" + text.replacing("'", with: #"'\''"#) + "'"
  }

  /// `text` as it would be typed: as is when it holds only letters, digits and `/._-+=:,@%`,
  /// else quoted (for the commands that messages suggest).
  public static func word(_ text: String) -> String {
    let plain =
      !text.isEmpty
      && text.utf8.allSatisfy { byte in
        NameBytes.isAlnum(byte) || "/._-+=:,@%".utf8.contains(byte)
      }
    return plain ? text : quote(text)
  }
}
