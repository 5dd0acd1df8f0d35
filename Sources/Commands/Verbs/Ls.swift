import Core

/// `mn ls`: the documents of the data folder and their state (mn.md §3).
enum Ls {
  static let spec = CommandSpec(
    name: "ls",
    abstract: "List the documents of the data folder and their state.",
    discussion: """
      One document a line, sorted by logical name. A document is local (downloaded), \
      placeholder (not downloaded), stale-placeholder (both the file and a placeholder \
      exist), conflicted (conflict copies exist) or copies-only (only conflict copies \
      exist). Listing never triggers a download. --long adds the state, size, modification \
      time (UTC) and number of conflict copies; -0 ends every name with NUL; --json prints \
      one array with every detail (placeholder kind and declared size, each copy's service, \
      device and date).
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents or folders to list (logical names or paths).",
        optional: true, variadic: true)
    ],
    options: [
      .flag("placeholders", help: "List only documents that are not downloaded."),
      .flag("conflicts", help: "List only documents that have conflict copies."),
      .flag("all", help: "Also list files that are not documents (state other)."),
      .flag("long", short: "l", help: "Add state, size, time and copy count columns."),
      .flag("null", short: "0", help: "End every name with NUL instead of a newline."),
    ],
    flags: [.needsStore],
    exits: [.ok, .usage, .noInput],
    examples: [
      Example("mn ls --long", "Every document with its state."),
      Example(
        "mn ls --placeholders -0 | xargs -0 -n1 echo missing:",
        "Script over what is not downloaded."),
      Example("mn ls --conflicts --json", "Conflict copies with their service and device."),
    ],
    run: run)

  /// One row of the listing: a document or, with --all, another file.
  struct Row {
    var name: String
    var state: String
    var path: String
    var size: Int64?
    var modified: Int64?
    var copies: [ConflictCopy] = []
    var placeholder: Placeholder?
  }

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard let root = call.root else { return .software }
    let exclusive = ["placeholders", "conflicts", "all"].filter { call.flag($0) }
    guard exclusive.count <= 1 else {
      throw UsageError(
        message: "--\(exclusive[0]) and --\(exclusive[1]) cannot be used together", path: ["ls"])
    }
    let forms = ["long", "null"].filter { call.flag($0) } + (call.global.json ? ["json"] : [])
    guard forms.count <= 1 else {
      throw UsageError(message: "choose one of --long, --json and -0", path: ["ls"])
    }
    try? DatalessFiles.disableMaterializationForProcess()
    let listing = try FolderScan.scan(root: root, fileSystem: env.fileSystem)
    if !call.global.quiet {
      for problem in listing.problems { try env.stderr.write("mn: warning: \(problem)\n") }
    }
    var documents = try select(call.arguments, in: listing, env)
    if call.flag("placeholders") { documents = documents.filter(\.isNotDownloaded) }
    if call.flag("conflicts") { documents = documents.filter(\.hasCopies) }
    var rows = documents.map { d in
      Row(
        name: d.logicalName, state: d.state.rawValue, path: d.path, size: d.size,
        modified: d.modificationSeconds,
        copies: d.copies, placeholder: d.placeholder)
    }
    if call.flag("all") && call.arguments.isEmpty {
      rows += listing.others.map { o in
        Row(
          name: o.logicalName, state: "other", path: o.path, size: o.size,
          modified: o.modificationSeconds)
      }
      rows.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }
    if call.global.json {
      try env.stdout.write(JSONWriter.string(.array(rows.map(json)), indent: 2) + "\n")
    } else if call.flag("null") {
      for row in rows { try env.stdout.write(Array(row.name.utf8) + [0]) }
    } else if call.flag("long") {
      for row in rows { try env.stdout.write(long(row) + "\n") }
    } else {
      for row in rows { try env.stdout.write(row.name + "\n") }
    }
    return .ok
  }

  /// The documents that `PATH…` arguments name (all of them when there are none).
  ///
  /// - Throws: `StorageError.outsideRoot` (64) for a path outside the root, and a
  ///   `CommandError` (66) naming the first argument that selects no document.
  static func select(_ arguments: [String], in listing: FolderListing, _ env: Environment) throws
    -> [DocumentEntry]
  {
    let logical = try arguments.map {
      try FolderPaths.logicalPath(
        for: $0, root: listing.root, currentDirectory: env.currentDirectory,
        fileSystem: env.fileSystem)
    }
    let (selected, unmatched) = listing.select(logical)
    if let index = logical.firstIndex(where: { unmatched.contains($0) }) {
      throw CommandError(.noInput, "no such document '\(arguments[index])'")
    }
    return selected
  }

  static func long(_ row: Row) -> String {
    let size = row.size.map(String.init) ?? "-"
    let time =
      row.modified.map { t -> String in
        let iso = UTCDateTime(secondsSinceEpoch: t).iso8601
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
      } ?? "-               "
    let copies = row.copies.isEmpty ? "-" : String(row.copies.count)
    return row.state.padding(18) + String(repeating: " ", count: max(0, 10 - size.count)) + size
      + "  " + time + "  " + String(repeating: " ", count: max(0, 2 - copies.count)) + copies
      + "  " + row.name
  }

  static func json(_ row: Row) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("name", .string(row.name)), ("state", .string(row.state)), ("path", .string(row.path)),
      ("size", row.size.map { .int($0) } ?? .null),
    ]
    if let modified = row.modified {
      members.append(("modified", .string(UTCDateTime(secondsSinceEpoch: modified).iso8601)))
    }
    if let p = row.placeholder {
      var placeholder: [(String, JSONValue)] = [
        ("kind", .string(p.kind.rawValue)), ("path", .string(p.path)),
      ]
      if let declared = p.declaredSize { placeholder.append(("declaredSize", .int(declared))) }
      members.append(("placeholder", .object(placeholder)))
    }
    if !row.copies.isEmpty {
      members.append(
        (
          "copies",
          .array(
            row.copies.map { c in
              var copy: [(String, JSONValue)] = [
                ("path", .string(c.path)), ("service", .string(c.service.rawValue)),
              ]
              if let device = c.device { copy.append(("device", .string(device))) }
              if let date = c.date { copy.append(("date", .string(date))) }
              if let size = c.size { copy.append(("size", .int(size))) }
              return .object(copy)
            })
        ))
    }
    return .object(members)
  }
}
