import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn backups …`: list, verify and prune the backup archives (mn.md §13).
enum Backups {
  /// The options of `mn backups prune`.
  enum Options {
    static let keepLast = Option<String>(
      "keep-last", .text, valueName: "N", help: "Keep the N newest backups.")
    static let keepDaily = Option<String>(
      "keep-daily", .text, valueName: "N",
      help: "Keep the newest backup of each of the N latest days with one.")
    static let keepWeekly = Option<String>(
      "keep-weekly", .text, valueName: "N",
      help: "Keep the newest backup of each of the N latest weeks with one.")
    static let keepMonthly = Option<String>(
      "keep-monthly", .text, valueName: "N",
      help: "Keep the newest backup of each of the N latest months with one.")
    static let dryRun = Flag(
      "dry-run", short: "n", help: "Print what would be kept and removed; remove nothing.")
    static let wait = Option.seconds(
      "wait", default: CommonOptions.wait.defaultValue,
      help: "Wait this long for another prune's lock before giving up with 75.")
  }

  static let spec = CommandSpec(
    name: "backups",
    abstract: "List, verify and prune the backups that mn wrote.",
    discussion: """
      Backups are the archives that merge-conflicts, migrate, restore and watch write into \
      $MN_BACKUP_DIR (default ~/.local/state/minuta/backups, or $XDG_STATE_HOME/minuta/backups; \
      macOS: ~/Library/Application Support/Minuta/Backups). Only files that mn itself wrote \
      there are ever considered: regular files named minuta-backup-YYYYMMDD-HHMMSS-VERB.tar.gz \
      whose manifest says mn wrote them. Any other file in the folder is left alone.

      Without a sub-verb, 'mn backups' lists them.
      """,
    exits: [.ok, .usage, .dataErr, .noInput, .cantCreate, .ioErr, .tempFail],
    examples: [
      Example("mn backups", "List the backups: time, verb, size, documents."),
      Example("mn backups verify", "Read every backup back and check it against its manifest."),
      Example(
        "mn backups prune --keep-daily 7 --keep-weekly 4 --keep-monthly 12 --dry-run",
        "Show what a week of dailies, a month of weeklies and a year of monthlies would keep."),
    ],
    subcommands: [list, verify, prune], defaultSubcommand: "list")

  static let list = CommandSpec(
    name: "list",
    abstract: "List the backups, oldest first.",
    discussion: """
      One line per backup: its time (UTC), the verb that made it, its size, the number of \
      documents it holds, and its file name. Each backup is read back to count its \
      documents; one that does not read back intact is listed as damaged (see 'mn backups \
      verify').
      """,
    exits: [.ok, .usage, .cantCreate, .ioErr],
    examples: [Example("mn backups list --json", "The same as JSON.")],
    run: .plain(runList))

  static let verify = CommandSpec(
    name: "verify",
    abstract: "Read backups back and check every file against its manifest.",
    discussion: """
      Reads each backup (default: every backup in the folder; or the archives named) and \
      checks that it holds exactly the files its manifest lists, with their sizes and \
      SHA-256 digests, as 'restic check --read-data' does. Exits 65 naming each damaged \
      backup on standard error.
      """,
    arguments: [
      ArgumentSpec(
        "ARCHIVE", .path, help: "Archives to check (default: every backup).", optional: true,
        variadic: true)
    ],
    exits: [.ok, .usage, .dataErr, .noInput, .cantCreate, .ioErr],
    examples: [
      Example("mn backups verify", "Check every backup."),
      Example("mn backups verify minuta-20260906-154512.tar.gz", "Check an exported archive."),
    ],
    run: .plain(runVerify))

  static let prune = CommandSpec(
    name: "prune",
    abstract: "Remove the backups that no --keep rule keeps.",
    discussion: """
      The rules are those of 'restic forget', applied to each data folder's backups apart \
      (the folder a backup's manifest names, as restic groups by paths): one folder's \
      backups never push out another's. Backups are taken newest first; --keep-last N \
      keeps the N newest, and --keep-daily, --keep-weekly and --keep-monthly N keep the \
      newest backup of each of the N most recent days, weeks (Monday to Sunday) and months \
      that have a backup, in the local time zone; N may be 'unlimited'. A backup that any \
      rule keeps is kept, \
      and the output says which rules keep it. When a rule still has periods left at the \
      oldest backup, that backup is kept too ('oldest daily'). Each folder's newest backup \
      is always kept, and at least one --keep option is needed.

      A backup that does not read back intact is never removed and counts for no rule. \
      prune holds the backup folder's lock (.mn-backups.lock) so that two prunes never run \
      at once (--dry-run takes none and changes nothing); it needs no data folder.
      """,
    options: [
      Options.keepLast, Options.keepDaily, Options.keepWeekly, Options.keepMonthly,
      Options.dryRun, Options.wait,
    ],
    exits: [.ok, .usage, .cantCreate, .ioErr, .tempFail],
    examples: [
      Example("mn backups prune --keep-last 10", "Keep the ten newest backups."),
      Example(
        "mn backups prune --keep-daily 7 --keep-weekly 5 --keep-monthly 12",
        "A week of dailies, five weeklies, a year of monthlies."),
    ],
    run: .plain(runPrune))

  static func runList(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let listing = try BackupCatalog.list(
      directory: try env.backupDirectory(), fileSystem: env.fileSystem)
    if call.global.json {
      let value = JSONValue.object([
        ("directory", .path(listing.directory)),
        ("backups", .array(listing.entries.map(json))),
      ])
      try env.stdout.writeJSON(value)
      return .ok
    }
    if listing.entries.isEmpty, !call.global.quiet {
      try env.stderr.write("mn: no backups in '\(listing.directory)'\n")
    }
    try env.stdout.write(table(listing.entries))
    return .ok
  }

  static func runVerify(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    var checked:
      [(name: String, path: AbsolutePath, state: Result<BackupCatalog.Contents, ArchiveError>)]
    if call.arguments.isEmpty {
      let listing = try BackupCatalog.list(
        directory: try env.backupDirectory(), fileSystem: env.fileSystem)
      checked = listing.entries.map { ($0.fileName, $0.path, $0.state) }
    } else {
      checked = []
      for argument in call.arguments {
        let archive = AbsolutePath(
          normalizing: argument, relativeTo: env.currentDirectory)
        guard try env.fileSystem.infoFollowingLinks(archive) != nil else {
          throw CommandError.noSuchArchive(argument)
        }
        checked.append(
          (argument, archive, BackupCatalog.inspect(path: archive, fileSystem: env.fileSystem)))
      }
    }
    var reports: [JSONValue] = []
    var out = ""
    for item in checked {
      switch item.state {
      case .success(let contents):
        out += "ok       \(item.name)  (\(documents(contents.documents)))\n"
        reports.append(
          .object([
            ("path", .path(item.path)), ("intact", .bool(true)),
            ("documents", .int(Int64(contents.documents))),
            ("files", .int(Int64(contents.files))),
          ]))
      case .failure(let error):
        try env.stderr.write("mn: error: damaged backup '\(item.path)': \(error)\n")
        reports.append(
          .object([
            ("path", .path(item.path)), ("intact", .bool(false)),
            ("error", .string(error.description)),
          ]))
      }
    }
    if call.global.json {
      try env.stdout.writeJSON(.array(reports))
    } else if !call.global.quiet {
      try env.stdout.write(out)
      if checked.isEmpty { try env.stderr.write("mn: no backups to verify\n") }
    }
    return ErrorReport.status(ofVerified: checked.map(\.state))
  }

  static func runPrune(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    func count(_ option: Option<String>) throws(UsageError) -> Int {
      guard let value = call[option] else { return 0 }
      if value == "unlimited" { return BackupRetention.Policy.unlimited }
      guard !value.isEmpty,
        value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
        let n = Int(value)
      else {
        throw UsageError(
          message:
            "invalid value '\(value)' for '--\(option.spec.name)': expected a whole number or 'unlimited'",
          path: call.path)
      }
      return n
    }
    let policy = BackupRetention.Policy(
      last: try count(Options.keepLast), daily: try count(Options.keepDaily),
      weekly: try count(Options.keepWeekly), monthly: try count(Options.keepMonthly))
    guard !policy.isEmpty else {
      throw UsageError(
        message: "no --keep option above 0: say what to keep (the newest is always kept)",
        path: call.path)
    }
    let report = try BackupCatalog.prune(
      directory: try env.backupDirectory(), policy: policy, dryRun: call[Options.dryRun],
      wait: call[Options.wait], fileSystem: env.fileSystem,
      sleep: env.sleep, offset: env.utcOffset)
    if call.global.json {
      try env.stdout.writeJSON(json(report))
    } else if !call.global.quiet {
      try env.stdout.write(text(report))
    }
    for backup in report.removed {
      switch backup.removal {
      case .failed(let error):
        try env.stderr.write("mn: error: \(error)\n")
      case .changed:
        try env.stderr.write(
          "mn: warning: '\(backup.entry.fileName)' changed while prune ran; left in place\n")
      default: break
      }
    }
    if !call.global.quiet {
      for entry in report.damaged {
        try env.stderr.write(
          "mn: warning: '\(entry.fileName)' is damaged; left in place (see 'mn backups verify')\n")
      }
      let removed = report.removed.filter { $0.removal == .removed || $0.removal == .wouldRemove }
      let verb = report.dryRun ? "would remove" : "removed"
      try env.stderr.write(
        "mn: kept \(report.kept.count), \(verb) \(removed.count) of \(report.backups.count) backups\n"
      )
    }
    return ErrorReport.status(of: report)
  }
}
