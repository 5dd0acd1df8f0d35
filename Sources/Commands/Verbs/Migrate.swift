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
      verified; one on both sides is merged with coordinated writes. A dataless or stale \
      file (a newer version not downloaded yet) stops the migration like a placeholder \
      (69, naming it) unless --fetch brings it down first, waiting for the current \
      version as 'mn fetch' does; iCloud's conflict versions are backed up, merged and resolved \
      with the conflict copies.

      Progress is journaled in the destination (.mn-migrate.journal.nosync): after an \
      interruption, run 'mn migrate' again and it finishes the job. When the source does \
      not exist or holds no documents there is nothing to do, and the exit status is 0.

      With --fetch, the placeholders of both folders are fetched first, under both locks and       before the plan is printed, as 'mn fetch' does: from the sync client (waiting for it),       or from --fetch-from SOURCE (another copy of the data folder, or an archive), or by       --fetch-exec COMMAND, for at most --fetch-timeout seconds (default 300). The       --fetch-* options without --fetch are a usage error (64). When placeholders remain,       they are listed and the exit status is 69, nothing else having changed. With       --dry-run nothing is fetched: the plan lists what would be, one 'fetch' line each.

      Without --yes, mn asks for confirmation on a terminal and refuses (64) otherwise.
      """,
    options: [
      .option(
        "from", .directory, valueName: "DIR",
        help: "The folder to migrate from (default: the local folder)."),
      .option(
        "to", .directory, valueName: "DIR",
        help: "The folder to migrate into (default: the iCloud Drive container)."),
      .flag("dry-run", help: "Print the plan and check it; change nothing."),
      .flag("yes", short: "y", help: "Do not ask for confirmation."),
      .flag("keep-source", help: "Copy instead of move: remove nothing from the source."),
    ] + fetchOptions + [CommonOptions.wait],
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
    run: run)

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard call.global.root == nil else {
      throw UsageError(message: "migrate takes --from and --to, not --root", path: ["migrate"])
    }
    try checkFetchOptions(call)
    let fs = env.fileSystem
    let home = env.variables["HOME"].flatMap { $0.isEmpty ? nil : $0 }
    let from = call.value("from").map { Paths.normalize($0, relativeTo: env.currentDirectory) }
    guard
      let destination = call.value("to").map({
        Paths.normalize($0, relativeTo: env.currentDirectory)
      }) ?? home.map(WellKnownPaths.icloud)
    else {
      throw CommandError(.usage, "HOME is not set", details: ["hint: give --from and --to"])
    }
    var previous: MigrationJournal?
    switch MigrationJournal.read(destination: destination, fileSystem: fs) {
    case .found(let journal): previous = journal
    case .unreadable(let why):
      try note(env, call, "warning: ignoring the migration journal: \(why)")
    case .none: break
    }
    if let from, let previous, from != previous.source {
      throw MigrationError.unfinishedMigration(
        journal: MigrationJournal.path(destination: destination), source: previous.source,
        requested: from)
    }
    guard let source = from ?? previous?.source ?? home.map(WellKnownPaths.local) else {
      throw CommandError(.usage, "HOME is not set", details: ["hint: give --from and --to"])
    }
    try Migration.checkRoots(source: source, destination: destination, fileSystem: fs)
    let sourceExists = isDirectory(source, fs)
    if !sourceExists && previous == nil {
      if from != nil { throw MigrationError.noSuchSource(source) }
      return try nothing(call, env, source, destination, "'\(source)' does not exist")
    }
    var destinationExists = isDirectory(destination, fs)
    let wait = Double(call.value("wait") ?? "") ?? 10
    var locks = try Migration.lock(
      [source, destination].filter { isDirectory($0, fs) }, destination: destination, timeout: wait,
      fileSystem: fs, sleep: env.sleep)
    defer { locks.forEach { $0.release() } }
    var plan = try Migration.plan(
      source: source, destination: destination, fileSystem: fs, syncProvider: env.syncProvider)
    if plan.sourceListing.documents.isEmpty && previous == nil {
      return try nothing(call, env, source, destination, "'\(source)' holds no documents")
    }
    if !destinationExists && call.value("to") == nil {
      throw MigrationError.noSuchDestination(destination)
    }
    cleanTemporaries(plan, call, env)
    let stale = staleProvider(call, env)
    let toFetch = call.flag("fetch") && !Migration.fetchPlans(plan, staleFrom: stale).isEmpty
    let wouldFetch = toFetch && call.flag("dry-run")
    if toFetch && !call.flag("dry-run") { plan = try fetch(plan, call, env) }
    var checked = plan
    if wouldFetch { checked.placeholders = Migration.unfetchable(plan, staleFrom: stale) }
    if let blocker = checked.blocker {
      try printPlan(plan, call, env)
      if wouldFetch { try printWouldFetch(plan, call, env) }
      throw blocker
    }
    if !call.global.json { try printPlan(plan, call, env) }
    if wouldFetch { try printWouldFetch(plan, call, env) }
    if let previous {
      try note(
        env, call,
        "resuming the unfinished migration recorded in '\(MigrationJournal.path(destination: previous.destination))'"
      )
    }
    if call.flag("dry-run") {
      if call.global.json {
        try env.stdout.write(JSONWriter.string(json(plan, call, nil, nil), indent: 2) + "\n")
      }
      return .ok
    }
    if !call.flag("yes") {
      guard env.stdinIsTerminal else {
        throw CommandError(
          .usage, "refusing to migrate without confirmation (standard input is not a terminal)",
          details: ["hint: check the plan with --dry-run, then rerun with --yes"])
      }
      try env.stderr.write(
        "Migrate \(plan.documents.count) documents from '\(source)' to '\(destination)'? [y/N] ")
      let answer = (env.readLine() ?? "").lowercased().filter { !$0.isWhitespace }
      guard answer == "y" || answer == "yes" else {
        try env.stderr.write("mn: nothing changed\n")
        return .negative
      }
    }
    if !destinationExists {
      try Migration.createDestination(destination, fileSystem: fs)
      destinationExists = true
      locks += try Migration.lock(
        [destination], destination: destination, timeout: wait, fileSystem: fs, sleep: env.sleep)
      plan = try Migration.plan(
        source: source, destination: destination, fileSystem: fs, syncProvider: env.syncProvider)
      if let blocker = plan.blocker { throw blocker }
    }
    var backup: String?
    let keepSource = call.flag("keep-source")
    if plan.hasWork(keepSource: keepSource) {
      let result = try Backup.make(
        files: Migration.backupFiles(plan), source: "\(source) -> \(destination)",
        reason: "migrate",
        directory: try env.backupDirectory(), dataRoots: [source, destination],
        version: CommandTable.version,
        now: env.nowSeconds, fileSystem: fs, inspect: DocumentTools.inspect)
      backup = result.path
      try note(env, call, "backup written to '\(result.path)'")
    }
    if !plan.conflicts.isEmpty || !plan.versions.isEmpty {
      plan = try Migration.mergeConflicts(
        plan, keepSource: keepSource, backupPath: backup, fileSystem: fs,
        syncProvider: env.syncProvider)
      if let blocker = plan.blocker { throw blocker }
    }
    let progress = Progress(
      env, call, label: "migrate", total: plan.documents.count + plan.files.count)
    let pointer = WellKnownPaths.pointerFile(
      variables: env.variables, isDarwin: Environment.isDarwin)
    let report = try Migration.execute(
      plan, keepSource: keepSource, pointerFile: pointer, previous: previous, fileSystem: fs,
      syncProvider: env.syncProvider,
      progress: { name in
        progress.advance(item: name)
        if call.global.verbose { try? env.stderr.write("mn: migrating '\(name)'\n") }
      })
    progress.finish()
    for (name, summary) in report.replaces.sorted(by: { $0.key.precedesByBytes($1.key) }) {
      ReplaceNote.write(name, summary, call, env)
    }
    try printSummary(plan, report, backup, call, env)
    return .ok
  }

  static func isDirectory(_ path: String, _ fs: any FileSystem) -> Bool {
    (try? fs.infoFollowingLinks(path))??.kind == .directory
  }

  /// Removes mn's leftover temporaries in both folders (mn.md §6); both locks are held.
  static func cleanTemporaries(_ plan: MigrationPlan, _ call: Invocation, _ env: Environment) {
    for listing in [plan.sourceListing] + (plan.destinationListing.map { [$0] } ?? []) {
      for name in TemporaryCleanup.removeStale(listing, fileSystem: env.fileSystem)
      where call.global.verbose {
        try? env.stderr.write(
          "mn: removed leftover temporary '\(Paths.join(listing.root, name))'\n")
      }
    }
  }

  /// "Nothing to migrate": exit 0, so that a rerun after a finished migration is harmless.
  static func nothing(
    _ call: Invocation, _ env: Environment, _ source: String, _ destination: String, _ why: String
  )
    throws -> ExitStatus
  {
    if call.global.json {
      let empty = MigrationPlan(
        source: source, destination: destination,
        destinationExists: isDirectory(destination, env.fileSystem))
      try env.stdout.write(JSONWriter.string(json(empty, call, nil, nil), indent: 2) + "\n")
    }
    try note(env, call, "nothing to migrate: \(why)")
    return .ok
  }

  /// A line on standard error, prefixed `mn: `, unless `--quiet`.
  static func note(_ env: Environment, _ call: Invocation, _ text: String) throws {
    if !call.global.quiet { try env.stderr.write("mn: \(text)\n") }
  }
}
