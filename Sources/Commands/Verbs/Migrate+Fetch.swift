import Operations
import Platform
import Storage

/// `mn migrate --fetch`: the options of `mn fetch` under a `fetch-` prefix, and the glue
/// to `MigrateOperation`'s fetch (mn.md §7, step 2).
extension Migrate {
  /// Refuses an empty command (the parser has refused `--fetch-*` without `--fetch`).
  static func checkFetchOptions(_ call: Invocation) throws {
    try Options.fetchNames.check(call)
  }

  /// What `--fetch` fetched: a note per file, and the warnings and failed files on standard
  /// error, as `mn fetch` prints them; the placeholders that remain are left to the plan's
  /// blocker.
  static func fetched(_ report: FetchReport, _ call: Invocation, _ env: Environment) throws {
    for file in report.fetched {
      try note(env, call, "\(file.action.rawValue) '\(file.path)'")
    }
    var shown = report
    shown.missing = []  // listed by the new plan's blocker instead
    _ = try FetchDiagnosis.write(shown, call, env, timeout: Options.fetchNames.timeout(call))
  }

  /// `--dry-run --fetch`: nothing is fetched; lists what would be, one `fetch` line each.
  static func printWouldFetch(
    _ fetchPlans: [FetchPlan], _ plan: MigrationPlan, _ call: Invocation, _ env: Environment
  ) throws {
    guard !call.global.quiet && !call.global.json && !fetchPlans.isEmpty else { return }
    var out = ""
    for fetchPlan in fetchPlans {
      let side = fetchPlan.root == plan.source ? "source" : "destination"
      for item in fetchPlan.items {
        out += "fetch".padding(8) + item.logicalName + "  (in the \(side))\n"
      }
    }
    try env.stdout.write(out)
  }
}
