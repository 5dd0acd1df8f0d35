#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The child that SIGTERM and SIGHUP are passed on to while `ForegroundCommand.run` waits
/// (0: none); written before the signals are unblocked, read only by the handler.
nonisolated(unsafe) private var forwardedChild: pid_t = 0

/// Runs a command in the foreground, as a shell runs one, and waits for it (`mn lock`).
///
/// The command is found on `PATH` (`posix_spawnp`) and gets mn's own environment (the
/// user's whole environment), standard input, output and error, no blocked signals, and the
/// default disposition of `SIGPIPE` and `SIGINT` (mn ignores `SIGPIPE`; an ignored signal
/// would survive `exec`). It inherits no other descriptor: mn opens its files with
/// `O_CLOEXEC`, the write lock's included, so the lock stays in mn, and a daemon that the
/// command starts cannot keep the folder locked after the command ends.
///
/// While it waits, mn ignores `SIGINT` and `SIGQUIT` (a terminal sends them to the whole
/// process group, so the command gets them and decides; mn must not release the lock while
/// the command may still be writing), and passes `SIGTERM` and `SIGHUP` on to the command,
/// as `system(3)` and `flock(1)` leave it to the command to end.
public enum ForegroundCommand {
  /// Runs `arguments[0]` with `arguments` as its argument vector and waits for it to end.
  /// The corresponding C functions are `posix_spawnp` and `waitpid`.
  ///
  /// - Parameter arguments: The command and its arguments; not empty.
  /// - Returns: How the command ended.
  /// - Throws: `ProcessError` when it cannot be started (`.noSuchFileOrDirectory` when no
  ///   such command is on `PATH`) or waited for.
  public static func run(_ arguments: [String]) throws(ProcessError) -> ProcessStatus {
    let command = arguments.joined(separator: " ")
    guard let program = arguments.first else {
      throw ProcessError("start", command, .invalidArgument)
    }
    #if canImport(Darwin) || MN_DARWIN_SHIM
      var actions: posix_spawn_file_actions_t? = nil
      var attributes: posix_spawnattr_t? = nil
    #else
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    // Blocked from before the start until the child's id is known, so that a SIGTERM in
    // between is passed on, not lost.
    var forwarded = sigset_t()
    sigemptyset(&forwarded)
    sigaddset(&forwarded, SIGTERM)
    sigaddset(&forwarded, SIGHUP)
    var previousMask = sigset_t()
    sigprocmask(SIG_BLOCK, &forwarded, &previousMask)
    let previousInterrupt = signal(SIGINT, SIG_IGN)
    let previousQuit = signal(SIGQUIT, SIG_IGN)
    let forward: @convention(c) (Int32) -> Void = { signal in
      if forwardedChild > 0 { kill(forwardedChild, signal) }
    }
    let previousTerminate = signal(SIGTERM, forward)
    let previousHangUp = signal(SIGHUP, forward)
    defer {
      forwardedChild = 0
      signal(SIGTERM, previousTerminate)
      signal(SIGHUP, previousHangUp)
      signal(SIGINT, previousInterrupt)
      signal(SIGQUIT, previousQuit)
      sigprocmask(SIG_SETMASK, &previousMask, nil)
    }

    var pid: pid_t = 0
    let result = withCStrings(arguments) { argv in
      posix_spawnp(&pid, program, &actions, &attributes, argv, currentEnvironment())
    }
    // posix_spawnp returns the error number instead of setting errno.
    guard result == 0 else { throw ProcessError("start", command, Errno(rawValue: result)) }
    forwardedChild = pid
    sigprocmask(SIG_UNBLOCK, &forwarded, nil)

    var raw: Int32 = 0
    while waitpid(pid, &raw, 0) != pid {
      let error = Errno.current
      if error != .interrupted { throw ProcessError("wait for", command, error) }
    }
    // The W* macros are not imported into Swift; the low 7 bits hold the terminating signal.
    let signal = raw & 0x7f
    return signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal)
  }
}

/// The process's own environment, as `exec` passes it on (`environmentTable`: `environ`,
/// Darwin's `_NSGetEnviron()`).
private func currentEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
  environmentTable()
}
