import Archive
import Operations
import Platform
import Storage

/// `mn watch`: keep a data folder healthy, event-driven (mn.md §12).
enum Watch {
  /// What `--service` prints.
  enum ServiceKind: String, CaseIterable, Sendable { case systemd, launchd }

  enum Options {
    static let quietFor = Option.seconds(
      "quiet-for", default: WatchPolicy.defaultQuietFor,
      help: "Merge a copy once it has not changed for this long.")
    static let backupEvery = Option<String>(
      "backup-every", .text, valueName: "DURATION",
      help: "Write a verified backup this often (90, 30m, 12h, 1d, 1w; default never).")
    static let keepLast = Option.count("keep-last", help: "Keep the N newest backups.")
    static let keepDaily = Option.count(
      "keep-daily", help: "Keep the newest backup of each of N days.")
    static let keepWeekly = Option.count(
      "keep-weekly", help: "Keep the newest backup of each of N weeks.")
    static let keepMonthly = Option.count(
      "keep-monthly", help: "Keep the newest backup of each of N months.")
    static let fetch = Flag("fetch", help: "Fetch placeholders as they appear, as 'mn fetch' does.")
    static let once = Flag("once", help: "Make one pass over the folder, then exit.")
    static let service = Option.choice(
      "service", of: ServiceKind.self, valueName: "KIND",
      help: "Print a systemd user unit or a launchd agent that runs mn watch, and exit.")

    /// `mn fetch`'s options under a `fetch-` prefix, only with `--fetch`.
    static let fetchNames = FetchOptionNames(verb: "watch", prefix: "fetch-", requires: fetch)
    /// In the order help lists them.
    static let all: [any OptionDeclaration] =
      [
        quietFor, backupEvery, keepLast, keepDaily, keepWeekly, keepMonthly,
        OptionGroup.requiring(backupEvery, keepLast, keepDaily, keepWeekly, keepMonthly), fetch,
      ] + fetchNames.options + [once, service]
  }

  static let spec = CommandSpec(
    name: "watch",
    abstract: "Keep the data folder healthy: merge conflict copies as they arrive.",
    discussion: """
      Watches the data folder with the system's change notifications (inotify on Linux, \
      one FSEvents stream on macOS; no polling, no CPU while nothing happens) and merges \
      each conflict copy once it has not changed for --quiet-for seconds and is downloaded, \
      exactly as 'mn merge-conflicts' does: a verified backup first, then the merge, read \
      back and checked, and only then the copy is removed. Only names that the table of conflict \
      copies matches are copies (see 'mn ls --conflicts'): a document that the app rewrites \
      is never mistaken for one, and a copy that a sync client is still writing is left \
      until it is quiet. A copy that does not decode yet and changed less than six quiet \
      periods ago is still arriving: it is waited for without a word (-v says so), and \
      only reported as damaged once it has stayed unchanged that long.

      When the system refuses to watch some directories (Linux: the \
      fs.inotify.max_user_watches limit, which other programs use up too), mn says so \
      once, naming the setting to raise and how many directories are not watched, and \
      rescans the folder every 30 seconds so that no copy there is missed.

      The write lock is taken only while writing, and waited for as long as it takes (a \
      line says so). When the folder goes away (unmounted, signed out), mn waits for it to \
      come back. With --fetch, placeholders are fetched as 'mn fetch' does, from \
      --fetch-from or with --fetch-exec. With --backup-every, a verified backup of the \
      whole folder is written every period (the first at once, unless this folder's newest \
      scheduled backup is more recent), then the --keep-* rules are applied to this \
      folder's backups, as 'mn backups prune' applies them; other folders' backups in the \
      same backup folder are left alone.

      One line per action goes to standard error; with --json, one JSON object per line \
      (JSON Lines) goes to standard output. SIGTERM or SIGINT finishes the document in \
      hand and exits 0; SIGHUP rescans the folder. A kill at any moment loses nothing, and \
      a restart picks up what is left. --once makes one pass and exits (for cron): it \
      merges the copies last modified at least --quiet-for seconds ago.

      On macOS, in iCloud Drive, iCloud's conflict versions of a document (NSFileVersion) \
      are merged too, as 'mn merge-conflicts' merges them: a version has no file to watch, \
      so mn asks the system for versions at every full scan (the first pass, SIGHUP, lost \
      events) and after each change of a document, and merges them once the document has \
      not changed for --quiet-for seconds: their bytes in a verified backup first, then \
      the merge, written, synced and read back, and only then are they marked resolved. A \
      version that cannot be read stays unresolved and is reported. A document or copy that \
      is dataless or stale (a newer version not downloaded yet) is not merged until it is \
      current; with --fetch it is fetched, as 'mn fetch' does.

      --service systemd prints a systemd user unit that runs 'mn watch' with the other \
      options given, --service launchd a LaunchAgent property list; see the README for how \
      to install them. Each runs mn by the path it was started as (Homebrew's opt/mn link, \
      never the versioned Cellar path an upgrade removes); the agent writes both outputs to \
      ~/Library/Logs/mn-watch.log.
      """,
    options: Options.all,
    exits: [
      .ok, .usage, .dataErr, .noInput, .unavailable, .software, .cantCreate, .ioErr, .tempFail,
      .interrupted,
    ],
    examples: [
      Example(
        "mn watch",
        "Merge copies \(Options.quietFor.defaultWord) seconds after they stop changing."),
      Example("mn watch --backup-every 1d --keep-daily 7", "Also back up daily, keep a week."),
      Example("mn watch --once --quiet-for 0", "One pass, as from cron."),
      Example(
        "mn watch --service systemd > ~/.config/systemd/user/mn-watch.service",
        "Install as a systemd user service."),
    ],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let policy = try policy(call)
    if let kind = call[Options.service] {
      try env.stdout.write(service(kind, call, env))
      return .ok
    }
    let root = try root(call, env)
    let fs = env.fileSystem
    let out = Output(call: call, env: env)
    let fetch = try fetcher(call, env, root: root)
    let wake = Signals.installWatch()
    let notifier = try ChangeNotifiers.live(fileSystem: fs, wakeDescriptor: wake)
    let backupDirectory = try? env.backupDirectory()
    let context = WatchContext(
      system: env.system, root: root, notifier: notifier,
      tryLock: {
        do {
          return try WriteLocks.acquire(
            [root], timeout: 0, fileSystem: fs, sleep: { _ in })
        } catch LockError.held {
          return nil
        }
      },
      backup: BackupTarget(
        directory: { try env.backupDirectory() }, folder: root, version: CommandTable.version,
        now: { env.nowSeconds }, fileSystem: fs),
      fetch: fetch,
      prune: { keep in
        // The single call site of the backup retention (see WatchRetention).
        try WatchRetention.apply(
          keep, root: root, directory: try env.backupDirectory(),
          wait: CommonOptions.wait.defaultValue, fileSystem: fs, sleep: env.sleep,
          offset: env.utcOffset)
      },
      isTerminating: { Signals.terminating },
      takeHangups: { Signals.takeHangup(wake) ? 1 : 0 },
      report: { out.report($0) })
    var runner = WatchRunner(
      policy: policy, once: call[Options.once],
      lastBackup: backupDirectory.flatMap {
        WatchPaths.lastScheduledBackup(of: root, in: $0, fileSystem: fs)
      },
      context: context)
    try runner.run()
    return out.status
  }

  /// The options as a `WatchPolicy`; usage errors for what does not parse or go together.
  static func policy(_ call: Invocation) throws -> WatchPolicy {
    let quietFor = call[Options.quietFor]
    var backupEvery: Double?
    if let text = call[Options.backupEvery] {
      guard let seconds = WatchPolicy.parseDuration(text) else {
        throw UsageError(
          message:
            "invalid value '\(text)' for '--backup-every': expected a duration like 12h or 1d",
          path: ["watch"])
      }
      backupEvery = seconds
    }
    let keep = BackupKeepPolicy(
      last: call[Options.keepLast], daily: call[Options.keepDaily],
      weekly: call[Options.keepWeekly], monthly: call[Options.keepMonthly])
    try Options.fetchNames.check(call)
    return WatchPolicy(
      quietFor: quietFor, backupEvery: backupEvery, fetch: call[Options.fetch], keep: keep)
  }

  /// The data folder: discovered as every verb does, or the explicitly named folder that is
  /// not there yet (then watch waits for it).
  static func root(_ call: Invocation, _ env: Environment) throws -> AbsolutePath {
    let found = env.discover(root: call.global.root)
    if !call.global.quiet {
      for warning in found.warnings { try env.stderr.write("mn: warning: \(warning)\n") }
    }
    if let root = found.root { return root }
    if let missing = found.explicitMissing, !call[Options.once] { return missing }
    throw DiscoveryText.notFound(found)
  }

  /// The fetch that `--fetch` asks for, with its source; nil without `--fetch`.
  static func fetcher(_ call: Invocation, _ env: Environment, root: AbsolutePath) throws
    -> ((FolderListing) throws -> FetchReport)?
  {
    guard call[Options.fetch] else { return nil }
    let names = Options.fetchNames
    var source = FetchSource.sync
    if let from = call[names.from] {
      source = try FetchOperation.source(
        from: AbsolutePath(normalizing: from, relativeTo: env.currentDirectory), root: root,
        fileSystem: env.fileSystem)
    } else if let command = call[names.exec] {
      source = .command(command)
    }
    let timeout = names.timeout(call)
    let provider = env.syncProvider
    return { listing in
      var plan = FetchOperation.plan(root: root, documents: listing.documents)
      if source == .sync {
        // Downloaded but stale (mn.md §15): fetched too, by waiting for the current version.
        plan.items += SyncReadiness.staleItems(
          listing.documents, root: root, provider: provider)
        plan.items.sort { $0.logicalName.precedesByBytes($1.logicalName) }
      }
      let progress = Progress(env, call, label: "fetching", total: plan.items.count)
      defer { progress.finish() }
      return try FetchOperation.run(
        plan, source: source, options: FetchOptions(timeout: timeout),
        context: names.context(source, progress, env))
    }
  }
}
