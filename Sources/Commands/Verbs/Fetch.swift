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

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
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
        from: AbsolutePath(normalizing: from, relativeTo: env.currentDirectory), root: root,
        fileSystem: fs)
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
      try env.stdout.writeJSON(json(report, root: root, source: source))
    } else if !call.global.quiet {
      if plan.items.isEmpty { try env.stdout.write("nothing to fetch\n") }
      for file in report.fetched {
        try env.stdout.write("\(file.action.rawValue) \(file.logicalName)\n")
      }
    }
    return try FetchDiagnosis.write(report, call, env, timeout: timeout)
  }

  static func json(_ report: FetchReport, root: AbsolutePath, source: FetchSource) -> JSONValue {
    let sourceValue: [(String, JSONValue)]
    switch source {
    case .sync: sourceValue = [("kind", .string("sync"))]
    case .directory(let p): sourceValue = [("kind", .string("directory")), ("path", .path(p))]
    case .archive(let p): sourceValue = [("kind", .string("archive")), ("path", .path(p))]
    case .command(let c): sourceValue = [("kind", .string("command")), ("command", .string(c))]
    }
    let fetched: [JSONValue] = report.fetched.map { f in
      var members: [(String, JSONValue)] = [
        ("name", .string(f.logicalName)), ("path", .path(f.path)),
        ("action", .string(f.action.rawValue)), ("size", .int(f.size)),
      ]
      if let declared = f.declaredSize { members.append(("declaredSize", .int(declared))) }
      if let fetched = f.fetchedSize { members.append(("fetchedSize", .int(fetched))) }
      members.append(("sizeMatches", .bool(f.sizeMatches)))
      members.append(("removedPlaceholders", .array(f.removedPlaceholders.map(JSONValue.string))))
      return .object(members)
    }
    func unsettled(_ name: String, _ path: AbsolutePath, _ reason: String) -> JSONValue {
      .object([("name", .string(name)), ("path", .path(path)), ("reason", .string(reason))])
    }
    let failed = report.failed.map { unsettled($0.logicalName, $0.path, "\($0.reason)") }
    let missing = report.missing.map { unsettled($0.logicalName, $0.path, "\($0.reason)") }
    return .object([
      ("root", .path(root)), ("source", .object(sourceValue)), ("fetched", .array(fetched)),
      ("failed", .array(failed)), ("missing", .array(missing)),
      ("warnings", .array(report.warnings.map(JSONValue.string))),
    ])
  }
}
