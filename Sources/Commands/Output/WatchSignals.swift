#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The write end of the self-pipe, and what the handlers saw; written only by the handlers.
nonisolated(unsafe) private var wakeWriteEnd: Int32 = -1
nonisolated(unsafe) private var terminations: sig_atomic_t = 0
nonisolated(unsafe) private var hangups: sig_atomic_t = 0

/// SIGTERM, SIGINT and SIGHUP for `mn watch` (mn.md §12), through a self-pipe so that the
/// notifier's `poll` wakes at once.
///
/// SIGTERM or SIGINT sets a flag that the watcher asks before each document (it finishes the
/// one in hand, then exits 0); a second one exits at once with 130, which loses nothing
/// either (every write is atomic). SIGHUP asks for a full rescan.
enum WatchSignals {
  /// Makes the pipe, installs the handlers, and returns the pipe's read end (nil when no
  /// pipe could be made: the flags still work, the wait then ends at its timeout).
  static func install() -> Int32? {
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

  /// Whether SIGTERM or SIGINT arrived.
  static var terminating: Bool { terminations > 0 }

  /// Whether SIGHUP arrived since the last call; empties the pipe.
  static func takeHangup(_ readEnd: Int32?) -> Bool {
    if let fd = readEnd {
      var byte: UInt8 = 0
      while read(fd, &byte, 1) > 0 {}
    }
    guard hangups > 0 else { return false }
    hangups = 0
    return true
  }
}

/// Writes one byte to the self-pipe (async-signal-safe; a full pipe wakes the reader anyway).
private func wake() {
  guard wakeWriteEnd >= 0 else { return }
  var byte: UInt8 = 1
  _ = write(wakeWriteEnd, &byte, 1)
}
