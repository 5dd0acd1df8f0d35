import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn migrate`: move the data folder into another one, merging, never losing a change
/// (mn.md §7).
enum Migrate {
  static let spec = CommandSpec(
    name: "migrate",
    abstract: "Move the data into another folder, merging what both hold.",
    discussion: """
      Moves every document of the source (default: the local folder ~/Documents/Minuta) \
      into the destination (default: the iCloud Drive container; see 'mn resolve --icloud'). \
      A document absent from the destination is moved, one present on both sides is \
      merged (the union of all changes), one whose changes the destination already holds \
      is only removed from the source. Other files are copied when absent from the \
      destination and otherwise left alone; nothing mn does not understand is removed.

      First the plan is printed and checked: nothing starts while a file on either side is \
      not downloaded (69), a document or conflict copy does not parse (65), or another \
      writer holds either folder's lock (75). Then both folders are saved to one verified \
      backup archive, whose path is printed; conflict copies on either side are merged \
      into their documents, as 'mn merge-conflicts' does; and each document is written \
      atomically, read back and verified before its source is removed; a version that a \
      sync client brings into the destination meanwhile is merged in, not overwritten. \
      Finally the \
      emptied source folders are removed, and the pointer file storage-path.txt, if it \
      named the source, names the destination.

      On macOS, into the iCloud Drive container: a document the container does not have \
      yet is moved by the system's own move into iCloud (setUbiquitous), then read back and \
      verified; where the system refuses that move (a build without the container's \
      entitlement, as Homebrew's is), it is copied with a coordinated write, read back, \
      verified and synced, and then removed from the source; -v says which way each went. \
      One on both sides is merged with coordinated writes. A dataless or stale \
      file (a newer version not downloaded yet) stops the migration like a placeholder \
      (69, naming it) unless --fetch brings it down first, waiting for the current \
      version as 'mn fetch' does; iCloud's conflict versions are backed up, merged and resolved \
      with the conflict copies.

      Progress is journaled in the destination (.mn-migrate.journal.nosync): after an \
      interruption, run 'mn migrate' again and it finishes the job. When the source does \
      not exist or holds no documents there is nothing to do, and the exit status is 0.

      With --fetch, the placeholders of both folders are fetched first, under both locks and       before the plan is printed, as 'mn fetch' does: from the sync client (waiting for it),       or from --fetch-from SOURCE (another copy of the data folder, or an archive), or by       --fetch-exec COMMAND, for at most --fetch-timeout seconds (default \(Options.fetchNames.timeoutOption.defaultWord)). The       --fetch-* options without --fetch are a usage error (64). When placeholders remain,       they are listed and the exit status is 69, nothing else having changed. With       --dry-run nothing is fetched: the plan lists what would be, one 'fetch' line each.

      Without --yes, mn asks for confirmation on a terminal and refuses (64) otherwise.
      """,
    options: Options.all,
    exits: [
      .ok, .negative, .usage, .dataErr, .noInput, .unavailable, .cantCreate, .ioErr, .tempFail,
    ],
    examples: [
      Example(
        "mn migrate --dry-run", "Show what moving the local folder into iCloud Drive would do."),
      Example("mn migrate --yes", "Do it without asking."),
      Example(
        "mn migrate --yes --fetch --fetch-from /mnt/laptop/Minuta",
        "Take what is not downloaded from another device first."),
      Example(
        "mn migrate --from ~/Dropbox/Minuta --to ~/Documents/Minuta --keep-source",
        "Copy one folder into another."),
    ],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard call.global.root == nil else {
      throw UsageError(message: "migrate takes --from and --to, not --root", path: ["migrate"])
    }
    try checkFetchOptions(call)
    let home = WellKnownPaths.home(variables: env.variables)
    let absolute = { (path: String) in
      AbsolutePath(normalizing: path, relativeTo: env.currentDirectory)
    }
    let names = Options.fetchNames
    let request = MigrateOperation.Request(
      from: call[Options.from].map(absolute), to: call[Options.to].map(absolute),
      defaultSource: home.map { WellKnownPaths.local(home: $0) },
      defaultDestination: home.map { WellKnownPaths.icloud(home: $0) },
      dryRun: call[Options.dryRun],
      keepSource: call[Options.keepSource],
      fetch: call[Options.fetch]
        ? MigrateOperation.FetchRequest(
          from: call[names.from].map(absolute), command: call[names.exec],
          timeout: names.timeout(call)) : nil,
      lockTimeout: call[CommonOptions.wait],
      pointerFile: WellKnownPaths.pointerFile(
        variables: env.variables, isDarwin: Environment.isDarwin),
      version: CommandTable.version)
    var progress: Progress?
    let context = MigrateOperation.Context(
      system: env.system, backupDirectory: { try env.backupDirectory() },
      fetchContext: { source, total in
        let bar = Progress(env, call, label: "fetching", total: total)
        bar.advance(by: 0)
        progress = bar
        return names.context(source, bar, env)
      },
      confirm: { plan in try confirm(plan, call, env) },
      event: { event in
        switch event {
        case .executing(let total):
          progress = Progress(env, call, label: "migrate", total: total)
        case .migrating(let name):
          progress?.advance(item: name)
          if call.global.verbose { try? env.stderr.write("mn: migrating '\(name)'\n") }
        case .fetched(let report):
          progress?.finish()
          try fetched(report, call, env)
        default:
          try show(event, call, env)
        }
      })
    switch try MigrateOperation.run(request, context: context) {
    case .nothingToDo(let plan, let reason):
      return try nothing(call, env, plan, reason)
    case .checked(let plan):
      if call.global.json {
        try env.stdout.writeJSON(json(plan, call, nil, nil))
      }
      return .ok
    case .declined:
      try env.stderr.write("mn: nothing changed\n")
      return .negative
    case .migrated(let plan, let report, let backup):
      progress?.finish()
      for (name, summary) in report.replaces.sorted(by: { $0.key.precedesByBytes($1.key) }) {
        ReplaceNote.write(name, summary, call, env)
      }
      for (name, way) in report.intoICloud.sorted(by: { $0.key.precedesByBytes($1.key) })
      where call.global.verbose {
        switch way {
        case .systemMove:
          try env.stderr.write("mn: '\(name)': moved into iCloud by the system (setUbiquitous)\n")
        case .copied(let refusal):
          try env.stderr.write(
            "mn: '\(name)': copied into iCloud, verified, then removed from the source (the system refused its move: \(refusal))\n"
          )
        }
      }
      try printSummary(plan, report, backup, call, env)
      return .ok
    }
  }

  /// Asks once, on a terminal, unless `--yes`.
  static func confirm(_ plan: MigrationPlan, _ call: Invocation, _ env: Environment) throws
    -> Bool
  {
    guard !call[Options.yes] else { return true }
    guard env.stdinIsTerminal else { throw CommandError.confirmationUnavailable }
    try env.stderr.write(
      "Migrate \(plan.documents.count) documents from '\(plan.source)' to '\(plan.destination)'? [y/N] "
    )
    let answer = (env.readLine() ?? "").lowercased().filter { !$0.isWhitespace }
    return answer == "y" || answer == "yes"
  }

  /// What the operation reports on the way: the plan, notes and removed temporaries.
  static func show(_ event: MigrateOperation.Event, _ call: Invocation, _ env: Environment)
    throws
  {
    switch event {
    case .journalIgnored(let why):
      try note(env, call, "warning: ignoring the migration journal: \(why)")
    case .removedTemporary(let path) where call.global.verbose:
      try? env.stderr.write("mn: removed leftover temporary '\(path)'\n")
    case .planned(let plan, let wouldFetch, let blocked):
      if blocked || !call.global.json { try printPlan(plan, call, env) }
      try printWouldFetch(wouldFetch, plan, call, env)
    case .resuming(let journal):
      try note(env, call, "resuming the unfinished migration recorded in '\(journal)'")
    case .backupWritten(let path):
      try note(env, call, "backup written to '\(path)'")
    default: break
    }
  }

  /// "Nothing to migrate": exit 0, so that a rerun after a finished migration is harmless.
  static func nothing(
    _ call: Invocation, _ env: Environment, _ empty: MigrationPlan,
    _ reason: MigrateOperation.NothingReason
  ) throws -> ExitStatus {
    if call.global.json {
      try env.stdout.writeJSON(json(empty, call, nil, nil))
    }
    let why = reason == .sourceMissing ? "does not exist" : "holds no documents"
    try note(env, call, "nothing to migrate: '\(empty.source)' \(why)")
    return .ok
  }

  /// A line on standard error, prefixed `mn: `, unless `--quiet`.
  static func note(_ env: Environment, _ call: Invocation, _ text: String) throws {
    if !call.global.quiet { try env.stderr.write("mn: \(text)\n") }
  }
}
