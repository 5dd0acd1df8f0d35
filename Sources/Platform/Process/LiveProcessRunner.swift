#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real `ProcessRunner`: `posix_spawn` of `/bin/sh -c`, `waitpid`, `kill`.
///
/// The child gets standard input from `/dev/null`, its standard output joined to standard
/// error, no blocked signals, and the default disposition of `SIGPIPE` and `SIGINT` (mn
/// ignores `SIGPIPE`, and an ignored signal or a signal mask would survive `exec`). mn opens
/// its own files with `O_CLOEXEC`, so the child inherits no descriptor but 0, 1 and 2 (the
/// write lock in particular stays mn's).
///
/// The child stays in mn's process group, so a Ctrl-C at the terminal stops it too and it can
/// prompt on the terminal (ssh does). The price: `terminate` signals the shell only. `sh -c`
/// runs a single command in place of itself, so that command is stopped; the children of a
/// compound command (`a; b`) outlive it.
public struct LiveProcessRunner: ProcessRunner {
  public init() {}

  public func start(shellCommand command: String, environment: [String: String])
    throws(ProcessError) -> ChildProcess
  {
    #if canImport(Darwin) || MN_DARWIN_SHIM
      var actions: posix_spawn_file_actions_t? = nil
      var attributes: posix_spawnattr_t? = nil
    #else
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, 2, 1)
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    sigaddset(&defaults, SIGINT)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    let arguments = ["/bin/sh", "-c", command]
    let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    var pid: pid_t = 0
    let result = withCStrings(arguments) { argv in
      withCStrings(variables) { envp in
        posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
      }
    }
    // posix_spawn returns the error number instead of setting errno.
    guard result == 0 else { throw ProcessError("start", command, Errno(rawValue: result)) }
    return ChildProcess(id: pid)
  }

  public func status(of child: ChildProcess) throws(ProcessError) -> ProcessStatus? {
    var raw: Int32 = 0
    while true {
      let result = waitpid(child.id, &raw, WNOHANG)
      if result == 0 { return nil }
      if result == child.id { break }
      let error = Errno.current
      if error == .interrupted { continue }
      throw ProcessError("wait for", "process \(child.id)", error)
    }
    // The W* macros are not imported into Swift; their definitions are the same on Linux and
    // Darwin: the low 7 bits hold the terminating signal, 0 for a normal exit.
    let signal = raw & 0x7f
    return signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal)
  }

  public func terminate(_ child: ChildProcess, force: Bool) {
    _ = kill(child.id, force ? SIGKILL : SIGTERM)
  }
}

/// Calls `body` with a NULL-terminated array of C strings, valid for the call.
func withCStrings<R>(
  _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R
) -> R {
  var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  pointers.append(nil)
  defer { for pointer in pointers { free(pointer) } }
  return body(pointers)
}
