#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the handlers saw, and the write end of `watch`'s self-pipe; written only by the
/// handlers (and by `install`, before any handler runs).
nonisolated(unsafe) private var interrupts: sig_atomic_t = 0
nonisolated(unsafe) private var terminations: sig_atomic_t = 0
nonisolated(unsafe) private var hangups: sig_atomic_t = 0
nonisolated(unsafe) private var wakeWriteEnd: Int32 = -1

/// The process's signals, in one place (mn.md §11, §12): every handler mn installs.
///
/// - `installInterrupt()`: SIGINT as a flag that a long writing verb polls between steps
///   (exit 130). The first SIGINT only sets the flag, so the verb stops at the next step
///   boundary with a consistent folder; a second one exits at once with 130 (every write is
///   atomic, so even that loses nothing). Verbs that do not poll never install it.
/// - `installWatch()`: SIGTERM, SIGINT and SIGHUP for `mn watch`, through a self-pipe so that
///   the notifier's `poll` wakes at once. SIGTERM or SIGINT sets a flag that the watcher asks
///   before each document (it finishes the one in hand, then exits 0); a second one exits at
///   once with 130. SIGHUP asks for a full rescan.
/// - `ignoreBrokenPipe()`: a closed pipe is an ordinary end of output (`mn ls | head`).
/// - `stopProcess()`: SIGSTOP to the process itself (the test-only pause points).
public enum Signals {
  /// Installs the SIGINT flag for the rest of the process.
  public static func installInterrupt() {
    signal(SIGINT) { _ in
      if interrupts > 0 { _exit(130) }
      interrupts = 1
    }
  }

  /// Whether SIGINT arrived since `installInterrupt()`.
  public static var interruptRequested: Bool { interrupts > 0 }

  /// Makes the self-pipe, installs `watch`'s handlers, and returns the pipe's read end (nil
  /// when no pipe could be made: the flags still work, the wait then ends at its timeout).
  public static func installWatch() -> Int32? {
    var ends: [Int32] = [-1, -1]
    var readEnd: Int32?
    if pipe(&ends) == 0 {
      for fd in ends {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      }
      wakeWriteEnd = ends[1]
      readEnd = ends[0]
    }
    let stop: @convention(c) (Int32) -> Void = { _ in
      if terminations > 0 { _exit(130) }
      terminations = 1
      wake()
    }
    signal(SIGTERM, stop)
    signal(SIGINT, stop)
    signal(SIGHUP) { _ in
      hangups = 1
      wake()
    }
    // A parent may have blocked them (the mask is inherited through exec): unblock.
    var set = sigset_t()
    sigemptyset(&set)
    for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, number) }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    return readEnd
  }

  /// Whether SIGTERM or SIGINT arrived since `installWatch()`.
  public static var terminating: Bool { terminations > 0 }

  /// Whether SIGHUP arrived since the last call; empties the pipe.
  public static func takeHangup(_ readEnd: Int32?) -> Bool {
    if let fd = readEnd {
      var byte: UInt8 = 0
      while read(fd, &byte, 1) > 0 {}
    }
    guard hangups > 0 else { return false }
    hangups = 0
    return true
  }

  /// Ignores SIGPIPE for the rest of the process: a write to a closed pipe fails with
  /// `EPIPE`, which the output sinks take as the end of output.
  public static func ignoreBrokenPipe() {
    signal(SIGPIPE, SIG_IGN)
  }

  /// Stops the whole process with SIGSTOP until it is killed or sent SIGCONT.
  public static func stopProcess() {
    kill(getpid(), SIGSTOP)
  }
}

/// Writes one byte to the self-pipe (async-signal-safe; a full pipe wakes the reader anyway).
private func wake() {
  guard wakeWriteEnd >= 0 else { return }
  var byte: UInt8 = 1
  _ = write(wakeWriteEnd, &byte, 1)
}
