import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn fetch`: make placeholders real, downloaded files (mn.md §4).
enum Fetch {
  static let spec = CommandSpec(
    name: "fetch",
    abstract: "Download placeholders as real files, and verify them.",
    discussion: """
      Makes every placeholder (or those of the named documents and their conflict copies) a \
      real file, checks that it reads as Automerge, and only then removes the stub \
      (.NAME.icloud, NAME.nextcloud, NAME.owncloud). With --from, the content comes from \
      another copy of the data folder or from an archive written by 'mn export' (checked \
      against its manifest); content that is not valid Automerge is never written, and a \
      file that is present by then, or that a sync client brings while mn writes (mn \
      exchanges its file with what is there and looks at what it displaced), is merged \
      with it, never overwritten. With --exec, the \
      command runs once per placeholder through /bin/sh, {} standing for the file's \
      absolute path and {rel} for its logical name (both already quoted; with neither, the \
      path is appended), with mn's whole environment (SSH_AUTH_SOCK, LANG, RCLONE_*, ...) \
      as a shell would pass it, its output going to standard error; then mn waits for the \
      files. \
      With no source, mn asks the system to download (macOS) and waits for the sync client: \
      in iCloud Drive it asks for the download and waits until the system calls the file \
      current and it is no longer dataless, a stale file (a newer version not downloaded \
      yet) included; in another File Provider folder it reads the file in the background, \
      which makes the provider download it. \
      A size that differs from what the placeholder declared is a warning. When the \
      timeout runs out, the files still missing are listed on standard error, one logical \
      name a line, and the exit status is 69.
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents or folders to fetch (default: every placeholder).",
        optional: true, variadic: true)
    ],
    options: FetchOptionNames.fetch.options + [CommonOptions.wait],
    flags: [.writesStore],
    exits: [.ok, .usage, .dataErr, .noInput, .unavailable, .cantCreate, .ioErr, .tempFail],
    examples: [
      Example("mn fetch", "Wait until the sync client has downloaded every placeholder."),
      Example("mn fetch --from /mnt/laptop/Minuta", "Copy what is missing from another device."),
      Example(
        "mn fetch --from minuta-20260906-154512.tar.gz", "Take what is missing from an export."),
      Example(
        "mn fetch --exec 'rclone copyto remote:Minuta/{rel} {}'", "Download each file with rclone."),
    ],
    run: .inFolder(run))

  static func run(_ call: Invocation, _ root: String, _ env: Environment) throws -> ExitStatus {
    let names = FetchOptionNames.fetch
    try names.check(call)
    let fs = env.fileSystem
    let listing = try env.scanFolder(root, readingStaleStubs: true)
    if call.global.verbose {
      for problem in listing.problems { try env.stderr.write("mn: warning: \(problem)\n") }
    }
    let documents = try DocumentSelection.select(call.arguments, in: listing, env)
    var source = FetchSource.sync
    if let from = call[names.from] {
      source = try FetchOperation.source(
        from: AbsolutePath(normalizing: from, relativeTo: AbsolutePath(env.currentDirectory))
          .string, root: root, fileSystem: fs)
    } else if let command = call[names.exec] {
      source = .command(command)
    }
    var plan = FetchOperation.plan(root: root, documents: documents)
    if source == .sync {
      // Downloaded but stale (mn.md §15): fetched too, by waiting for the current version.
      plan.items += SyncReadiness.staleItems(documents, root: root, provider: env.syncProvider)
      plan.items.sort { $0.logicalName.precedesByBytes($1.logicalName) }
    }
    let progress = Progress(env, call, label: "fetching", total: plan.items.count)
    // Drawn at once: waiting for a sync client can take minutes before the first file.
    if !plan.items.isEmpty { progress.advance(by: 0) }
    let context = names.context(source, progress, env)
    let timeout = names.timeout(call)
    let report = try FetchOperation.run(
      plan, source: source, options: FetchOptions(timeout: timeout), context: context)
    progress.finish()
    for file in report.fetched { ReplaceNote.write(file.logicalName, file.replace, call, env) }
    if call.global.json {
      try env.stdout.write(
        JSONWriter.string(json(report, root: root, source: source), indent: 2) + "\n")
    } else if !call.global.quiet {
      if plan.items.isEmpty { try env.stdout.write("nothing to fetch\n") }
      for file in report.fetched {
        try env.stdout.write("\(file.action.rawValue) \(file.logicalName)\n")
      }
    }
    return try FetchDiagnosis.write(report, call, env, timeout: timeout)
  }

  static func json(_ report: FetchReport, root: String, source: FetchSource) -> JSONValue {
    let sourceValue: [(String, JSONValue)]
    switch source {
    case .sync: sourceValue = [("kind", .string("sync"))]
    case .directory(let p): sourceValue = [("kind", .string("directory")), ("path", .string(p))]
    case .archive(let p): sourceValue = [("kind", .string("archive")), ("path", .string(p))]
    case .command(let c): sourceValue = [("kind", .string("command")), ("command", .string(c))]
    }
    let fetched: [JSONValue] = report.fetched.map { f in
      var members: [(String, JSONValue)] = [
        ("name", .string(f.logicalName)), ("path", .string(f.path)),
        ("action", .string(f.action.rawValue)), ("size", .int(f.size)),
      ]
      if let declared = f.declaredSize { members.append(("declaredSize", .int(declared))) }
      if let fetched = f.fetchedSize { members.append(("fetchedSize", .int(fetched))) }
      members.append(("sizeMatches", .bool(f.sizeMatches)))
      members.append(("removedPlaceholders", .array(f.removedPlaceholders.map(JSONValue.string))))
      return .object(members)
    }
    func unsettled(_ name: String, _ path: String, _ reason: String) -> JSONValue {
      .object([("name", .string(name)), ("path", .string(path)), ("reason", .string(reason))])
    }
    let failed = report.failed.map { unsettled($0.logicalName, $0.path, "\($0.reason)") }
    let missing = report.missing.map { unsettled($0.logicalName, $0.path, "\($0.reason)") }
    return .object([
      ("root", .string(root)), ("source", .object(sourceValue)), ("fetched", .array(fetched)),
      ("failed", .array(failed)), ("missing", .array(missing)),
      ("warnings", .array(report.warnings.map(JSONValue.string))),
    ])
  }
}

/// The options that say how placeholders are fetched: `mn fetch` takes them as they are,
/// `mn migrate --fetch` and `mn watch --fetch` under a `fetch-` prefix (each of those verbs
/// declares its set beside its `--fetch`). One definition, so that the verbs cannot drift
/// apart.
struct FetchOptionNames: Sendable {
  let verb: String
  /// `--from SOURCE`: another copy of the data folder, or an export archive.
  let from: Option<String>
  /// `--exec COMMAND`: a shell command per placeholder.
  let exec: Option<String>
  /// `--timeout SECONDS`, `FetchOptions.defaultTimeout` when not given (mn.md §4).
  let timeoutOption: DefaultedOption<Double>
  /// The flag the three need (`--fetch`); nil for `mn fetch` itself.
  let requires: Flag?

  static let fetch = FetchOptionNames(verb: "fetch", prefix: "")

  /// The options under `prefix`, needing `requires` when it is given (the parser enforces
  /// it; help leads each line with `With --fetch:`).
  init(verb: String, prefix: String, requires: Flag? = nil) {
    self.verb = verb
    self.requires = requires
    from = Option(
      prefix + "from", .path, valueName: "SOURCE",
      help: "Take the files from another copy of the data folder, or an mn export archive.")
    exec = Option(
      prefix + "exec", .command, valueName: "COMMAND",
      help: "Run this shell command per placeholder ({} the path, {rel} the logical name).")
    timeoutOption = Option.seconds(
      prefix + "timeout", default: FetchOptions.defaultTimeout,
      help: "Wait this long for the files and commands.")
  }

  /// The declarations for the verb's spec: the three options, the source given at most one
  /// way, and the three only with `requires`.
  var options: [any OptionDeclaration] {
    var declarations: [any OptionDeclaration] = [
      from, exec, timeoutOption, OptionGroup.atMostOne(from, exec),
    ]
    if let requires {
      declarations.append(OptionGroup.requiring(requires, from, exec, timeoutOption))
    }
    return declarations
  }

  /// Refuses an empty command.
  func check(_ call: Invocation) throws {
    if let command = call[exec], command.allSatisfy(\.isWhitespace) {
      throw UsageError(message: "empty command for '--\(exec.spec.name)'", path: [verb])
    }
  }

  /// The timeout in seconds, its default when not given.
  func timeout(_ call: Invocation) -> Double { call[timeoutOption] }

  /// What FetchOperation needs from the environment, reporting each item to `progress`.
  func context(_ source: FetchSource, _ progress: Progress, _ env: Environment) -> FetchContext {
    var request: ((String) throws -> Void)?
    let provider = env.syncProvider
    if source == .sync {
      // In a plain folder there is nobody to ask: fetch waits for the sync client.
      request = { path in
        if provider.folderKind(of: path) != .plain {
          try SyncDownload.request(path, provider: provider)
        }
      }
    }
    return FetchContext(
      system: env.system, requestDownload: request,
      progress: { _, _, item in progress.advance(item: item) })
  }
}
