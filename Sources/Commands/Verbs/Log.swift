import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn log`: the changes of the folder's documents, newest first (mn.md §9).
enum Log {
  enum Options {
    static let since = Option<String>(
      "since", .text, valueName: "WHEN",
      help: "Only changes at or after WHEN (2026-09-01, 2026-09-01T12:00, 2d, 1w).")
    static let until = Option<String>(
      "until", .text, valueName: "WHEN", help: "Only changes at or before WHEN.")
    static let actor = Option<String>(
      "actor", .text, valueName: "HEX", help: "Only changes by actors whose id starts with HEX.")
    static let maxCount = Option<Int>(
      spec: .option(
        "max-count", short: "n", .count, valueName: "N", help: "Show at most N changes.")
    ) { Int($0) }
    static let utc = Flag("utc", help: "Print times in UTC instead of local time.")
    static let summary = Flag(
      "summary", help: "One line per actor: first and last change, counts, activity.")
  }

  static let spec = CommandSpec(
    name: "log",
    abstract: "List the changes of the folder's documents, newest first.",
    discussion: """
      One change a line, newest first by change time: the time (local, or UTC with --utc), \
      the document, the author (its actor id shortened, as git shortens hashes: the \
      shortest prefix of at least 7 hex digits that no other actor of the listed documents \
      shares), the seq, the number of ops and the message. Changes that only a conflict copy holds \
      (what 'mn merge-conflicts' would add) are marked with the copy. Only change metadata \
      is read: no document is materialized.

      WHEN is a date (2026-09-01, local midnight), a date and time (2026-09-01T12:00, local; \
      with Z or +02:00 for another zone) or a duration back from now (90 seconds, 30m, 12h, \
      2d, 1w). --json prints one array of objects, one per change, as 'mn ls --json' prints \
      a listing (JSON Lines are for streams, as 'mn watch --json'). --summary prints one line \
      per actor: first and last change, changes, documents and its activity over the \
      period, in 24 columns (a sparkline on a terminal, the counts otherwise), to see at a \
      glance that a device went quiet.
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents or folders to list (logical names or paths).",
        optional: true, variadic: true)
    ],
    options: [
      Options.since, Options.until, Options.actor, Options.maxCount, Options.utc, Options.summary,
    ],
    flags: [.needsStore],
    exits: [.ok, .usage, .dataErr, .noInput],
    examples: [
      Example("mn log -n 20", "The 20 newest changes of the folder."),
      Example("mn log --since 1w records/2026", "The last week's changes of 2026's months."),
      Example("mn log --summary --since 2026-01-01", "Which device wrote what, this year."),
    ],
    run: .inFolder(run))

  /// What the filters keep.
  struct Filter {
    var since: Int64?
    var until: Int64?
    var actor: String?

    func keeps(_ entry: FolderLog.Entry) -> Bool {
      if let actor, !entry.change.author.description.hasPrefix(actor) { return false }
      if since == nil && until == nil { return true }
      guard let t = ChangeTime.seconds(entry.change.time) else { return false }
      if let since, t < since { return false }
      if let until, t > until { return false }
      return true
    }
  }

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    let filter = try Log.filter(call, env)
    let listing = try env.scanFolder(root)
    if !call.global.quiet {
      for problem in listing.problems { try env.stderr.write("mn: warning: \(problem)\n") }
    }
    let documents = try DocumentSelection.select(call.arguments, in: listing, env)
    let log = FolderLog.read(
      documents, root: root, fileSystem: env.fileSystem, threads: env.processors())
    let out = ChangeLogOutput(
      call: call, env: env, actors: Set(log.entries.map(\.change.author)), utc: call[Options.utc])
    var entries = FolderLog.newestFirst(log.entries.filter(filter.keeps))
    if let n = call[Options.maxCount] { entries = Array(entries.prefix(n)) }
    if call[Options.summary] {
      try summary(entries, filter: filter, out)
    } else if call.global.json {
      try env.stdout.writeJSON(.array(entries.map(out.json)))
    } else {
      var text = ""
      for entry in entries { text += out.line(entry) + "\n" }
      try env.stdout.write(text)
    }
    for problem in log.problems where !call.global.quiet || problem.reason != .notDownloaded {
      let label = problem.reason == .notDownloaded ? "warning" : "error"
      try env.stderr.write("mn: \(label): \(describe(problem))\n")
    }
    let unreadable = log.problems.count { $0.reason != .notDownloaded }
    return unreadable > 0 ? .dataErr : .ok
  }

  /// The filters from `--since`, `--until` and `--actor`.
  static func filter(_ call: Invocation, _ env: Environment) throws -> Filter {
    let now = env.nowSeconds
    func when(_ option: Option<String>) throws -> Int64? {
      guard let text = call[option] else { return nil }
      guard let t = ChangeTime.parse(text, now: now, utcOffset: env.utcOffset) else {
        throw UsageError(
          message:
            "invalid value '\(text)' for '--\(option.spec.name)': expected a date like 2026-09-01 or a duration like 2d",
          path: call.path)
      }
      return t
    }
    var filter = Filter(since: try when(Options.since), until: try when(Options.until))
    if let actor = call[Options.actor] {
      let hex = actor.lowercased()
      guard !hex.isEmpty, hex.allSatisfy(\.isHexDigit) else {
        throw UsageError(
          message: "invalid value '\(actor)' for '--actor': expected hex digits",
          path: call.path)
      }
      filter.actor = hex
    }
    return filter
  }
}
