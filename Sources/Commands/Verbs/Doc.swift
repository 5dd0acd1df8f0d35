import AutomergeCodec
import Platform
import Storage

/// `mn doc …`: plumbing on single Automerge files (mn.md §9).
enum Doc {
  static let fileArgument = ArgumentSpec(
    "FILE", .document,
    help: "An Automerge file, a document's logical name, or - for standard input.")

  enum Options {
    /// `doc show --typed`.
    static let typed = Flag(
      "typed", help: "Wrap values whose JSON form loses their Automerge type.")
    /// `doc merge -o OUT`.
    static let output = Option<String>(
      "output", short: "o", .path, valueName: "OUT",
      help: "Where to write the merge (- for standard output).")
    /// `doc save -o OUT`.
    static let saveOutput = Option<String>(
      "output", short: "o", .path, valueName: "OUT",
      help: "Where to write the saved document (- for standard output).")
  }

  static let spec = CommandSpec(
    name: "doc",
    abstract: "Inspect, check and merge single Automerge files.",
    discussion: """
      Low-level commands on single Automerge files, the building blocks of the other verbs. \
      FILE is a path, a logical name inside the data folder (records/2026/09.automerge), \
      or - for standard input. Every file is fully verified when read: chunk checksums, \
      change hashes, and the heads of document chunks.
      """,
    exits: [.ok, .usage, .dataErr, .noInput],
    examples: [
      Example("mn doc info records/2026/09.automerge", "Summarise a document of the data folder."),
      Example("mn doc changes tags.automerge | wc -l", "Count the changes of the tag list."),
      Example("mn doc merge -o merged.automerge a.automerge b.automerge", "Merge two copies."),
      Example(
        "mn doc save -o saved.automerge big.automerge", "Rewrite a file as one document chunk."),
    ],
    subcommands: [info, heads, changes, show, merge, save, check])

  static let info = CommandSpec(
    name: "info",
    abstract: "Print a file's chunks, actors, change and op counts, heads and size.",
    arguments: [fileArgument],
    exits: [.ok, .usage, .dataErr, .noInput],
    examples: [Example("mn doc info --json tags.automerge", "The same as JSON.")],
    run: .plain(runInfo))

  static let heads = CommandSpec(
    name: "heads",
    abstract: "Print a file's head hashes, sorted, one a line.",
    arguments: [fileArgument],
    exits: [.ok, .usage, .dataErr, .noInput],
    run: .plain { call, env in
      let (_, file) = try DocInput.decode(call.arguments[0], call, env)
      try env.stdout.write(ChangeListing.heads(file.heads))
      return .ok
    })

  static let changes = CommandSpec(
    name: "changes",
    abstract: "Print one line per change: hash actor seq startOp time deps message.",
    discussion: """
      Lines are sorted by actor and seq; deps are sorted and comma-separated, or - when \
      there are none; the message is a JSON string or null.
      """,
    arguments: [fileArgument],
    exits: [.ok, .usage, .dataErr, .noInput],
    run: .plain { call, env in
      let (_, file) = try DocInput.decode(call.arguments[0], call, env)
      try env.stdout.write(ChangeListing.changes(file.changes))
      return .ok
    })

  static let show = CommandSpec(
    name: "show",
    abstract: "Print a document's current content as JSON.",
    discussion: """
      Maps are objects, lists arrays, text strings, counters numbers, timestamps integer \
      milliseconds, bytes {"$bytes": "<hex>"}; where a key holds conflicting values, the \
      winner by Automerge's rule. --typed wraps values whose JSON form loses their type: \
      {"$counter": n}, {"$timestamp": n}, {"$int": n}, {"$uint": n}, {"$f64": x}, \
      {"$text": "…"}.
      """,
    arguments: [fileArgument],
    options: [Options.typed],
    exits: [.ok, .usage, .dataErr, .noInput],
    run: .plain { call, env in
      let input = try DocInput.read(call.arguments[0], call, env)
      let typed = call[Options.typed]
      // A file as Automerge's save() writes it is read from its columns; anything else
      // through its changes.
      let direct = try DocInput.decoding(input) {
        try Materializer.materializeDocumentChunk(input.bytes, typed: typed)
      }
      let value =
        try direct
        ?? Materializer.materialize(
          DocInput.decoding(input) {
            try AutomergeFile.decode(input.bytes, keepOps: true, keepChunks: false)
          },
          typed: typed)
      try env.stdout.writeJSON(value)
      return .ok
    })

  static let merge = CommandSpec(
    name: "merge",
    abstract: "Write the lossless merge of Automerge files.",
    discussion: """
      The output is the bytes of the file holding the most changes (of several, the one \
      with the smallest SHA-256) followed by the change chunks that only the other files \
      have, in dependency order, so every Automerge implementation opens it, and the same \
      files in any order give the same bytes. The result is read back and checked to hold \
      every change of every input before the command succeeds. OUT is written atomically; \
      - writes to standard output. OUT inside the data folder, or inside a folder that \
      looks like one (it holds .minuta-version, tags.automerge or the lock file), is \
      refused (exit 73): plumbing takes no lock, and a sync client may be writing there. \
      'mn merge-conflicts' merges copies into a document and 'mn restore' brings documents \
      back, under the lock.
      """,
    arguments: [
      ArgumentSpec(
        "FILE", .document, help: "The files to merge; the first one's bytes are kept.",
        variadic: true)
    ],
    options: [Options.output],
    exits: [.ok, .usage, .dataErr, .noInput, .cantCreate, .ioErr],
    run: .plain(runMerge))

  static let save = CommandSpec(
    name: "save",
    abstract: "Write a file's changes as one document chunk, as Automerge's save() does.",
    discussion: """
      The output holds exactly the changes of FILE, as one document chunk (changes whose \
      dependencies are missing follow it as their original change chunks, as save() keeps \
      them); a file that went through many merges gets smaller and loads faster. The result \
      is read back and checked to hold the same changes and heads before anything is \
      written. OUT is written atomically, and never inside the data folder (use mn compact \
      there); - writes to standard output.
      """,
    arguments: [fileArgument],
    options: [Options.saveOutput],
    exits: [.ok, .usage, .dataErr, .noInput, .cantCreate, .ioErr],
    run: .plain(runSave))

  static let check = CommandSpec(
    name: "check",
    abstract: "Check that files are valid Automerge files.",
    discussion: """
      Exits 0 when every file is valid, else 65, naming each bad file and the reason on \
      standard error. A file with changes whose dependencies are missing is valid (Automerge \
      loads it) and is reported as a warning. So is a file that Automerge 0.6.1 (the \
      version the app ships) opens and Automerge 0.11 and later refuse, when nothing of its \
      content depends on the difference (a mark whose end comes before its begin).
      """,
    arguments: [ArgumentSpec("FILE", .document, help: "The files to check.", variadic: true)],
    exits: [.ok, .usage, .dataErr, .noInput],
    run: .plain(runCheck))

  static func runInfo(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let (input, file) = try DocInput.decode(call.arguments[0], call, env)
    let documentChunks = file.chunks.filter { $0.type == .document }.count
    if call.global.json {
      let chunks: [JSONValue] = file.chunks.map { c in
        .object([
          ("offset", .int(Int64(c.offset))), ("type", .string(chunkTypeName(c.type))),
          ("length", .int(Int64(c.length))), ("changes", .int(Int64(c.changes.count))),
        ])
      }
      let value = JSONValue.object([
        ("path", .string(input.displayName)), ("size", .int(Int64(input.bytes.count))),
        ("chunks", .array(chunks)),
        ("actors", .array(file.actors.map { .string($0.description) })),
        ("changes", .int(Int64(file.changes.count))), ("ops", .int(Int64(file.opCount))),
        ("heads", .array(file.heads.map { .string($0.description) })),
        ("orphans", .array(file.orphans.map { .string($0.description) })),
        ("missingDependencies", .array(file.missingDependencies.map { .string($0.description) })),
      ])
      try env.stdout.writeJSON(value)
      return .ok
    }
    var out = "file:     \(input.displayName)\n"
    out += "size:     \(input.bytes.count) bytes\n"
    out +=
      "chunks:   \(file.chunks.count) (\(documentChunks) document, \(file.chunks.count - documentChunks) change)\n"
    out += "actors:   \(file.actors.count)\n"
    out += "changes:  \(file.changes.count)\n"
    out += "ops:      \(file.opCount)\n"
    out += "heads:    \(file.heads.count)\n"
    for head in file.heads { out += "  \(head)\n" }
    if !file.orphans.isEmpty {
      out += "orphans:  \(file.orphans.count) (changes whose dependencies are missing)\n"
      for hash in file.missingDependencies { out += "  missing \(hash)\n" }
    }
    try env.stdout.write(out)
    return .ok
  }

  static func chunkTypeName(_ type: ChunkType) -> String {
    switch type {
    case .document: return "document"
    case .change: return "change"
    case .compressedChange: return "compressed-change"
    }
  }

  static func runMerge(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard let output = call[Options.output] else {
      throw UsageError(message: "missing option '--output'", path: ["doc", "merge"])
    }
    let inputs = try call.arguments.map { try DocInput.read($0, call, env) }
    let (result, holdsEveryChange) = try AutomergeMerge.mergeAndVerify(inputs.map(\.bytes))
    guard holdsEveryChange else {
      throw CommandError.mergeIncomplete
    }
    if output == "-" {
      try env.stdout.write(result.bytes)
    } else {
      let path = AbsolutePath(normalizing: output, relativeTo: env.currentDirectory)
      try refuseInsideDataFolder(path, as: output, call, env)
      try AtomicFile.write(result.bytes, to: path, fileSystem: env.fileSystem)
    }
    if call.global.verbose {
      try env.stderr.write(
        "mn: merged \(inputs.count) files: \(result.changeCount) changes, \(result.added.count) appended\n"
      )
    }
    return .ok
  }

  static func runSave(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard let output = call[Options.saveOutput] else {
      throw UsageError(message: "missing option '--output'", path: ["doc", "save"])
    }
    let input = try DocInput.read(call.arguments[0], call, env)
    var path: AbsolutePath? = nil
    if output != "-" {
      let resolved = AbsolutePath(
        normalizing: output, relativeTo: env.currentDirectory)
      try refuseInsideDataFolder(resolved, as: output, call, env)
      path = resolved
    }
    let saved: SavedDocument
    do {
      saved = try DocumentEncoder.save(input.bytes)
    } catch AutomergeSaveError.invalidInput(let error) {
      throw CommandError.notAutomerge(name: input.displayName, error)
    } catch let error as AutomergeSaveError {
      // A valid file (`mn doc check` accepts it) whose changes one document chunk cannot
      // hold, or a save that did not read back: said as such, not as an invalid file.
      throw CommandError.notSaved(name: input.displayName, error)
    }
    if let path {
      try AtomicFile.write(saved.bytes, to: path, fileSystem: env.fileSystem)
    } else {
      try env.stdout.write(saved.bytes)
    }
    if call.global.verbose {
      try env.stderr.write(
        "mn: saved \(saved.changeCount) changes: \(input.bytes.count) -> \(saved.bytes.count) bytes\n"
      )
    }
    return .ok
  }

  /// Refuses an output path inside the data folder or one that looks like one (real paths
  /// compared): no lock and no exchange here, so a document of a data folder is written only
  /// by the verbs that take them (mn.md §6).
  static func refuseInsideDataFolder(
    _ path: AbsolutePath, as output: String, _ call: Invocation, _ env: Environment
  ) throws {
    let roots = env.discover(root: call.global.root).root.map { [$0] } ?? []
    if let folder = DataFolder.enclosingFolder(
      of: path, roots: roots, lookAlikes: true, fileSystem: env.fileSystem)
    {
      throw CommandError.outputInsideDataFolder(path: output, folder: folder.string)
    }
  }

  static func runCheck(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    var bad = 0
    var reports: [JSONValue] = []
    for argument in call.arguments {
      let input = try DocInput.read(argument, call, env)
      do {
        let file = try AutomergeFile.verify(input.bytes)
        if !file.orphans.isEmpty && !call.global.quiet {
          try env.stderr.write(
            "mn: warning: '\(input.displayName)': \(file.orphans.count) changes have missing dependencies\n"
          )
        }
        if !call.global.quiet {
          for reason in file.refusedByNewerAutomerge {
            try env.stderr.write(
              "mn: warning: '\(input.displayName)': Automerge 0.11 and later refuse this file (\(reason)); Automerge 0.6.1, the app's, opens it with the same content\n"
            )
          }
        }
        if call.global.verbose && !call.global.json {
          try env.stdout.write("\(input.displayName): ok, \(file.changeCount) changes\n")
        }
        var report: [(String, JSONValue)] = [
          ("path", .string(input.displayName)), ("valid", .bool(true)),
          ("changes", .int(Int64(file.changeCount))),
        ]
        if !file.refusedByNewerAutomerge.isEmpty {
          report.append(
            ("refusedByNewerAutomerge", .array(file.refusedByNewerAutomerge.map { .string($0) })))
        }
        reports.append(.object(report))
      } catch {
        bad += 1
        try env.stderr.write("mn: error: '\(input.displayName)': \(error)\n")
        reports.append(
          .object([
            ("path", .string(input.displayName)), ("valid", .bool(false)),
            ("error", .string("\(error)")),
          ]))
      }
    }
    if call.global.json {
      try env.stdout.writeJSON(.array(reports))
    }
    return ErrorReport.status(ofCheckedFiles: bad)
  }
}
