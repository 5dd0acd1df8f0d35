import Operations
import Platform

/// The one place where a command line becomes a run of a verb and an exit status.
///
/// Parses the arguments against `CommandTable`, prints help or the version when asked,
/// hands an `.inFolder` verb the data folder it resolved (`.writesStore`: holding the
/// write lock for the whole run), runs the verb, and turns every error into a message on
/// standard error and a sysexits status (style.md (c)).
public enum CLI {
  /// Runs `mn` with `arguments` (without the program name) and returns the exit status.
  public static func run(_ arguments: [String], _ env: Environment) -> Int32 {
    let status = runCatching(arguments, env)
    do {
      try env.stdout.flush()
    } catch {
      let (failed, message, _) = ErrorReport.describe(CommandError.outputNotWritten(error))
      try? env.stderr.write("mn: error: \(message)\n")
      return failed.rawValue
    }
    return status
  }

  private static func runCatching(_ arguments: [String], _ env: Environment) -> Int32 {
    var quiet = false
    do {
      let outcome = try Parser.parse(
        arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions)
      switch outcome {
      case .version:
        try env.stdout.write(BuildInfo.versionLine + "\n")
        return ExitStatus.ok.rawValue
      case .help(let path):
        guard
          let text = HelpRenderer.help(
            for: path, commands: CommandTable.commands, globals: CommandTable.globalOptions)
        else {
          throw UsageError(message: "no such verb '\(path.joined(separator: " "))'", path: [])
        }
        try env.stdout.write(text)
        return ExitStatus.ok.rawValue
      case .run(var call):
        quiet = call.global.quiet
        return try execute(&call, env).rawValue
      }
    } catch let passed as CommandExit {
      // `mn lock`: the command's own status, which no table of mn's can list.
      return passed.status
    } catch {
      let (status, message, details) = ErrorReport.describe(error)
      try? env.stderr.write("mn: error: \(message)\n")
      // A usage error's pointer to the help is part of the message, even with --quiet.
      if !quiet || status == .software || error is UsageError {
        for line in details { try? env.stderr.write("\(line)\n") }
      }
      return status.rawValue
    }
  }

  private static func execute(_ call: inout Invocation, _ env: Environment) throws -> ExitStatus {
    switch call.spec.run {
    case nil:
      throw CommandError.nothingToRun(verb: call.path.joined(separator: " "))
    case .plain(let run)?:
      return try run(call, env)
    case .inFolder(let run)?:
      let found = env.discover(root: call.global.root)
      if !call.global.quiet {
        for warning in found.warnings { try env.stderr.write("mn: warning: \(warning)\n") }
      }
      guard let root = found.root else { throw DiscoveryText.notFound(found) }
      guard call.spec.flags.contains(.writesStore) else { return try run(call, root, env) }
      let lock = try WriteLocks.acquire(
        [root], timeout: call[CommonOptions.wait], fileSystem: env.fileSystem,
        sleep: env.sleep)
      defer { lock.release() }
      let left = try cleanTemporaries(root, call, env)
      let status = try run(call, root, env)
      // A temporary whose document could not take its changes (a damaged document, say) is
      // merged once the verb has run (after a repair, it can).
      if left > 0 { _ = try? cleanTemporaries(root, call, env) }
      return status
    }
  }

  /// Merges and removes mn's leftover temporaries (mn.md §6); returns how many remain.
  static func cleanTemporaries(_ root: AbsolutePath, _ call: Invocation, _ env: Environment) throws
    -> Int
  {
    guard let listing = try? env.scanFolder(root) else {
      return 0
    }
    let removed = TemporaryCleanup.removeStale(listing, fileSystem: env.fileSystem)
    for name in removed where call.global.verbose {
      try env.stderr.write("mn: removed leftover temporary '\(name)'\n")
    }
    return listing.temporaries.count - removed.count
  }
}
