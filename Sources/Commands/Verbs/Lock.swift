import Platform

/// `mn lock`: run a command while holding the data folder's write lock (mn.md §6), as
/// `flock(1)` does for a file.
enum Lock {
  static let spec = CommandSpec(
    name: "lock",
    abstract: "Run a command while holding the data folder's write lock.",
    discussion: """
      Takes the write lock that the app and every writing verb of mn take (an exclusive \
      flock on .minuta.writelock.nosync), waiting up to --wait seconds, runs the command \
      with the user's whole environment and mn's standard input, output and error, and \
      releases the lock when the command ends, however it ends. A sync engine that takes no \
      lock of its own (rclone bisync, Unison, a cron job) then never reads or writes a \
      document while the app is half-way through saving it, and the app waits until the \
      engine is done. Put -- before the command so that its own options are not read as \
      mn's.

      The exit status is the command's: its exit status, or 128 plus the signal number when \
      a signal ended it, as a shell reports it; 127 when the command is not found and 126 \
      when it cannot be run; 75 when the lock was not had in time (the command does not \
      run); 64 when no command is given.

      The lock stays in mn, not in the command: mn holds the descriptor (close-on-exec) and \
      waits for the command, so a daemon that the command starts does not keep the folder \
      locked after the command ends. While it waits, mn ignores SIGINT and SIGQUIT (a \
      Ctrl-C reaches the command, which decides) and passes SIGTERM and SIGHUP on to the \
      command, so the lock is never released while the command still runs; only a kill -9 \
      of mn itself releases it early.
      """,
    arguments: [
      ArgumentSpec("COMMAND", .command, help: "The command to run (found on PATH)."),
      ArgumentSpec("ARG", .text, help: "Its arguments.", optional: true, variadic: true),
    ],
    options: [CommonOptions.wait],
    flags: [.writesStore],
    exits: [.ok, .usage, .noInput, .tempFail],
    examples: [
      Example(
        "mn lock -- rclone bisync ~/Minuta /mnt/hub/Minuta --filters-file f.txt",
        "Sync with rclone while the app cannot write."),
      Example(
        "mn lock --wait 60 -- unison minuta -batch", "Wait up to a minute for the app's save."),
      Example("mn lock --wait 0 -- true || echo busy", "Ask whether the folder is locked now."),
    ],
    run: .inFolder(run))

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    try env.stdout.flush()
    let status: ProcessStatus
    do {
      status = try ForegroundCommand.run(call.arguments)
    } catch {
      // As a shell and flock(1) say it: 127 not found, 126 found but not runnable.
      try env.stderr.write("mn: error: \(error)\n")
      throw CommandExit(status: error.errno == .noSuchFileOrDirectory ? 127 : 126)
    }
    switch status {
    case .exited(0): return .ok
    case .exited(let code): throw CommandExit(status: code)
    case .signaled(let signal): throw CommandExit(status: 128 + signal)
    }
  }
}

/// The exit status of a command that `mn lock` ran, passed on as mn's own.
struct CommandExit: Error {
  var status: Int32
}
