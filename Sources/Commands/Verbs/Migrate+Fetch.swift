import Operations
import Platform
import Storage

/// `mn migrate --fetch`: the options of `mn fetch` under a `fetch-` prefix, and the glue
/// to `Migration.fetch` (mn.md §7, step 2).
extension Migrate {
  static let fetchOptions: [OptionSpec] =
    [
      .flag(
        "fetch",
        help:
          "First fetch every placeholder and stale file of both folders, as 'mn fetch' does (not with --dry-run)."
      )
    ] + FetchOptionNames.migrate.options

  /// Refuses `--fetch-*` without `--fetch`, `--fetch-from` with `--fetch-exec`, and an empty
  /// command.
  static func checkFetchOptions(_ call: Invocation) throws {
    let names = FetchOptionNames.migrate
    let given = [names.from, names.exec, names.timeoutName].filter { call.value($0) != nil }
    if !call.flag("fetch"), let first = given.first {
      throw UsageError(message: "--\(first) needs --fetch", path: ["migrate"])
    }
    try names.check(call)
  }

  /// The provider that says which files are stale, to fetch them too (mn.md §15): the
  /// system's, unless the content comes from --fetch-from or --fetch-exec (which bring
  /// placeholders only).
  static func staleProvider(_ call: Invocation, _ env: Environment) -> any SyncProvider {
    let names = FetchOptionNames.migrate
    guard call.value(names.from) == nil, call.value(names.exec) == nil else {
      return NoSyncProvider()
    }
    return env.syncProvider
  }

  /// Fetches the placeholders of both folders (both locks held) and returns the new plan.
  /// Warnings and failed items go to standard error; the placeholders that remain are left
  /// to the plan's `blocker`.
  static func fetch(_ plan: MigrationPlan, _ call: Invocation, _ env: Environment) throws
    -> MigrationPlan
  {
    let fs = env.fileSystem
    let names = FetchOptionNames.migrate
    var source = FetchSource.sync
    if let from = call.value(names.from) {
      source = try Migration.fetchSource(
        from: Paths.normalize(from, relativeTo: env.currentDirectory), plan: plan, fileSystem: fs)
    } else if let command = call.value(names.exec) {
      source = .command(command)
    }
    let total = Migration.fetchPlans(plan, staleFrom: staleProvider(call, env)).reduce(0) {
      $0 + $1.items.count
    }
    let progress = Progress(env, call, label: "fetching", total: total)
    progress.advance(by: 0)
    let context = names.context(source, progress, env)
    let timeout = names.timeout(call)
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
    for fetchPlan in Migration.fetchPlans(plan, staleFrom: staleProvider(call, env)) {
      let side = fetchPlan.root == plan.source ? "source" : "destination"
      for item in fetchPlan.items {
        out += "fetch".padding(8) + item.logicalName + "  (in the \(side))\n"
      }
    }
    try env.stdout.write(out)
  }
}
