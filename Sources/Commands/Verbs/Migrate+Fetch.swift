import Core

/// `mn migrate --fetch`: the options of `mn fetch` under a `fetch-` prefix, and the glue
/// to `Migration.fetch` (mn.md §7, step 2).
extension Migrate {
  static let fetchOptions: [OptionSpec] = [
    .flag(
      "fetch",
      help:
        "First fetch every placeholder of both folders, as 'mn fetch' does (not with --dry-run)."
    ),
    .option(
      "fetch-from", .path, valueName: "SOURCE",
      help: "With --fetch: take the files from another copy of the data folder, or an archive."),
    .option(
      "fetch-exec", .command, valueName: "COMMAND",
      help: "With --fetch: run this shell command per placeholder ({} the path, {rel} the name)."),
    .option(
      "fetch-timeout", .seconds, valueName: "SECONDS",
      help: "With --fetch: wait this long for the files and commands (default 300)."),
  ]

  /// Refuses `--fetch-*` without `--fetch`, and `--fetch-from` with `--fetch-exec`.
  static func checkFetchOptions(_ call: Invocation) throws {
    let given = ["fetch-from", "fetch-exec", "fetch-timeout"].filter { call.value($0) != nil }
    if !call.flag("fetch"), let first = given.first {
      throw UsageError(message: "--\(first) needs --fetch", path: ["migrate"])
    }
    if call.value("fetch-from") != nil && call.value("fetch-exec") != nil {
      throw UsageError(
        message: "--fetch-from and --fetch-exec cannot be used together", path: ["migrate"])
    }
    if let command = call.value("fetch-exec"), command.allSatisfy(\.isWhitespace) {
      throw UsageError(message: "empty command for '--fetch-exec'", path: ["migrate"])
    }
  }

  /// Fetches the placeholders of both folders (both locks held) and returns the new plan.
  /// Warnings and failed items go to standard error; the placeholders that remain are left
  /// to the plan's `blocker`.
  static func fetch(_ plan: MigrationPlan, _ call: Invocation, _ env: Environment) throws
    -> MigrationPlan
  {
    let fs = env.fileSystem
    var source = FetchSource.sync
    if let from = call.value("fetch-from") {
      source = try Migration.fetchSource(
        from: Paths.normalize(from, relativeTo: env.currentDirectory), plan: plan, fileSystem: fs)
    } else if let command = call.value("fetch-exec") {
      source = .command(command)
    }
    let total = Migration.fetchPlans(plan).reduce(0) { $0 + $1.items.count }
    let progress = Progress(env, call, label: "fetching", total: total)
    progress.advance(by: 0)
    var request: ((String) throws -> Void)?
    if source == .sync && SystemDownload.isAvailable { request = SystemDownload.request }
    let context = FetchContext(
      fileSystem: fs, now: { env.nowDouble }, sleep: { env.sleep($0) },
      processRunner: env.processRunner, variables: env.variables, requestDownload: request,
      progress: { _, _, item in progress.advance(item: item) })
    let timeout = call.value("fetch-timeout").flatMap(Double.init) ?? 300
    let (report, again) = try Migration.fetch(
      plan, source: source, options: FetchOptions(timeout: timeout), context: context)
    progress.finish()
    for file in report.fetched {
      try note(env, call, "\(file.action.rawValue) '\(file.path)'")
    }
    var shown = report
    shown.missing = []  // listed by the new plan's blocker instead
    _ = try Fetch.diagnose(shown, call, env, timeout: timeout)
    return again
  }

  /// `--dry-run --fetch`: nothing is fetched; lists what would be, one `fetch` line each.
  static func printWouldFetch(_ plan: MigrationPlan, _ call: Invocation, _ env: Environment)
    throws
  {
    guard !call.global.quiet && !call.global.json else { return }
    var out = ""
    for fetchPlan in Migration.fetchPlans(plan) {
      let side = fetchPlan.root == plan.source ? "source" : "destination"
      for item in fetchPlan.items {
        out += "fetch".padding(8) + item.logicalName + "  (in the \(side))\n"
      }
    }
    try env.stdout.write(out)
  }
}
