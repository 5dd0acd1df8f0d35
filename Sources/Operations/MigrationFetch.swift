import Platform
import Storage

/// `mn migrate --fetch`: fetching the placeholders of both folders before a migration
/// (mn.md §7, step 2), through the very workflow of `mn fetch` (`FetchOperation.plan`, `FetchOperation.run`).
///
/// The caller holds both write locks: fetching writes files into both folders.
extension Migration {
  /// What fetching would bring down: one `FetchPlan` per folder that has placeholders of
  /// documents or conflict copies, or (with a provider) stale ones, the source first.
  ///
  /// - Parameters:
  ///   - plan: from `plan(source:destination:fileSystem:)`.
  ///   - provider: says which downloaded files are stale (a newer version exists, mn.md
  ///     §15); they are fetched too, as `mn fetch` does, by waiting for the current
  ///     version. Pass `NoSyncProvider()` (the default) when the content comes from
  ///     `--fetch-from` or `--fetch-exec`, which bring placeholders only.
  /// - Returns: the non-empty fetch plans.
  public static func fetchPlans(
    _ plan: MigrationPlan, staleFrom provider: any SyncProvider = NoSyncProvider()
  ) -> [FetchPlan] {
    let listings = [plan.sourceListing] + (plan.destinationListing.map { [$0] } ?? [])
    return listings.map { listing in
      var fetchPlan = FetchOperation.plan(root: listing.root, documents: listing.documents)
      let stale = SyncReadiness.staleItems(
        listing.documents, root: listing.root, provider: provider)
      if !stale.isEmpty {
        fetchPlan.items += stale
        fetchPlan.items.sort { $0.logicalName.precedesByBytes($1.logicalName) }
      }
      return fetchPlan
    }
    .filter { !$0.items.isEmpty }
  }

  /// The placeholders of `plan` that fetching cannot bring down (those of files that are
  /// not documents, and stale files when `provider` is not asked): the migration stops on
  /// them even with `--fetch`.
  ///
  /// - Parameters:
  ///   - plan: from `plan(source:destination:fileSystem:)`.
  ///   - provider: as for `fetchPlans`.
  /// - Returns: sorted as `plan.placeholders`.
  public static func unfetchable(
    _ plan: MigrationPlan, staleFrom provider: any SyncProvider = NoSyncProvider()
  ) -> [AbsolutePath] {
    var covered = Set<AbsolutePath>()
    for item in fetchPlans(plan, staleFrom: provider).flatMap(\.items) {
      covered.formUnion(item.placeholders.map(\.path))
      if item.isStale { covered.insert(item.path) }
    }
    return plan.placeholders.filter { !covered.contains($0) }
  }

  /// Tells a `--fetch-from` directory from an archive, refusing either data folder.
  ///
  /// - Parameters:
  ///   - path: absolute.
  ///   - plan: gives both roots.
  ///   - fileSystem: used to look.
  /// - Returns: `.directory` or `.archive`.
  /// - Throws: `FetchError`, as `FetchOperation.source(from:root:fileSystem:)`.
  public static func fetchSource(
    from path: AbsolutePath, plan: MigrationPlan, fileSystem: any FileSystem
  )
    throws(FetchError) -> FetchSource
  {
    var source = FetchSource.sync
    for root in [plan.source, plan.destination] {
      source = try FetchOperation.source(
        from: path, root: root, fileSystem: fileSystem)
    }
    return source
  }

  /// Fetches every placeholder of both folders (`fetchPlans`), then plans again. With the
  /// system as the source (`.sync`), stale files are fetched too (`context.syncProvider`
  /// says which), as `mn fetch` does.
  ///
  /// Both folders share one timeout: the second starts with what the first left.
  ///
  /// - Parameters:
  ///   - plan: from `plan(source:destination:fileSystem:)`, both locks held.
  ///   - source: where the content comes from, as for `mn fetch`.
  ///   - options: the timeout, for both folders together.
  ///   - context: as for `FetchOperation.run`.
  /// - Returns: what fetching did (both folders in one report) and the new plan; its
  ///   `blocker` lists the placeholders that remain.
  /// - Throws: what `FetchOperation.run` and `plan` throw.
  public static func fetch(
    _ plan: MigrationPlan, source: FetchSource, options: FetchOptions, context: FetchContext
  ) throws -> (report: FetchReport, plan: MigrationPlan) {
    var report = FetchReport()
    let start = context.now()
    let stale: any SyncProvider = source == .sync ? context.syncProvider : NoSyncProvider()
    for fetchPlan in fetchPlans(plan, staleFrom: stale) {
      var remaining = options
      remaining.timeout = max(0, options.timeout - (context.now() - start))
      let part = try FetchOperation.run(
        fetchPlan, source: source, options: remaining, context: context)
      report.fetched += part.fetched
      report.failed += part.failed
      report.missing += part.missing
      report.warnings += part.warnings
    }
    let again = try Migration.plan(
      source: plan.source, destination: plan.destination, fileSystem: context.fileSystem,
      syncProvider: context.syncProvider)
    return (report, again)
  }
}
