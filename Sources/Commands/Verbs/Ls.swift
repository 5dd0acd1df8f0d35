import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn ls`: the documents of the data folder and their state (mn.md §3).
enum Ls {
  /// What `--placeholders`, `--conflicts` and `--all` select.
  enum Filter { case placeholders, conflicts, all }
  /// How the rows are written: `--long`, `--json` or `-0` (plain names without any).
  enum Form { case long, json, null }

  enum Options {
    static let filter = FlagChoice<Filter>([
      (.placeholders, Flag("placeholders", help: "List only documents that are not downloaded.")),
      (.conflicts, Flag("conflicts", help: "List only documents that have conflict copies.")),
      (.all, Flag("all", help: "Also list files that are not documents (state other).")),
    ])
    static let form = FlagChoice<Form>([
      (.long, Flag("long", short: "l", help: "Add state, size, time and copy count columns.")),
      (.json, CommandTable.Global.json),
      (.null, Flag("null", short: "0", help: "End every name with NUL instead of a newline.")),
    ])
  }

  static let spec = CommandSpec(
    name: "ls",
    abstract: "List the documents of the data folder and their state.",
    discussion: """
      One document a line, sorted by logical name. A document is local (downloaded), \
      placeholder (not downloaded), stale-placeholder (both the file and a placeholder \
      exist), conflicted (conflict copies exist) or copies-only (only conflict copies \
      exist). Listing never triggers a download: on macOS a dataless file (not downloaded, \
      in iCloud Drive or another File Provider folder) is a placeholder of kind dataless, and \
      a dataless folder is reported on standard error and not entered. iCloud conflict \
      versions (NSFileVersion) count as conflict copies, with service icloud-version and the \
      saving device and date when the system gives them. --long adds the state, size, modification \
      time (UTC) and number of conflict copies; -0 ends every name with NUL; --json prints \
      one array with every detail (placeholder kind and declared size, each copy's service, \
      device and date); a stale placeholder's stub is not read, so its declared size is left \
      out.
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents or folders to list (logical names or paths).",
        optional: true, variadic: true)
    ],
    options: [Options.filter, Options.form],
    flags: [.needsStore],
    exits: [.ok, .usage, .noInput],
    examples: [
      Example("mn ls --long", "Every document with its state."),
      Example(
        "mn ls --placeholders -0 | xargs -0 -n1 echo missing:",
        "Script over what is not downloaded."),
      Example("mn ls --conflicts --json", "Conflict copies with their service and device."),
    ],
    run: .inFolder(run))

  /// One row of the listing: a document or, with --all, another file.
  struct Row {
    var name: String
    var state: String
    var path: AbsolutePath
    var size: Int64?
    var modified: Int64?
    var copies: [ConflictCopy] = []
    var placeholder: Placeholder?
    /// Unresolved conflict versions (iCloud, mn.md §15), listed as copies.
    var versions: [SyncVersion] = []
    var copyCount: Int { copies.count + versions.count }
  }

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    let filter = call[Options.filter]
    let listing = try env.scanFolder(root)
    if !call.global.quiet {
      for problem in listing.problems { try env.stderr.write("mn: warning: \(problem)\n") }
    }
    var documents = try DocumentSelection.select(call.arguments, in: listing, env)
    if filter == .placeholders { documents = documents.filter(\.isNotDownloaded) }
    let versions = ConflictVersions.list(documents, root: root, provider: env.syncProvider).versions
    if filter == .conflicts {
      documents = documents.filter { $0.hasCopies || versions[$0.logicalName] != nil }
    }
    var rows = documents.map { d in
      let found = versions[d.logicalName] ?? []
      let state = found.isEmpty || d.state != .local ? d.state : .conflicted
      return Row(
        name: d.logicalName, state: state.rawValue, path: d.path, size: d.size,
        modified: d.modificationSeconds,
        copies: d.copies, placeholder: d.placeholder, versions: found)
    }
    if filter == .all && call.arguments.isEmpty {
      rows += listing.others.map { o in
        Row(
          name: o.logicalName, state: "other", path: o.path, size: o.size,
          modified: o.modificationSeconds)
      }
      rows.sort { $0.name.precedesByBytes($1.name) }
    }
    switch call[Options.form] {
    case .json?: try json(rows) { try env.stdout.write($0) }
    case .null?: for row in rows { try env.stdout.write(Array(row.name.utf8) + [0]) }
    case .long?: for row in rows { try env.stdout.write(long(row) + "\n") }
    case nil: for row in rows { try env.stdout.write(row.name + "\n") }
    }
    return .ok
  }

  static func long(_ row: Row) -> String {
    let size = row.size.map(String.init) ?? "-"
    let time =
      row.modified.map { t -> String in
        let iso = UTCDateTime(secondsSinceEpoch: t).iso8601
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
      } ?? "-               "
    let copies = row.copyCount == 0 ? "-" : String(row.copyCount)
    return row.state.padding(18) + String(repeating: " ", count: max(0, 10 - size.count)) + size
      + "  " + time + "  " + String(repeating: " ", count: max(0, 2 - copies.count)) + copies
      + "  " + row.name
  }

  /// The `--json` text: one array, one object per row, written as a stream (a tree of
  /// `JSONValue`s would cost more than the listing itself) and handed to `write` in pieces of
  /// about 16 KiB, in place, so that a long listing reuses the same few pages of memory.
  static func json(_ rows: [Row], write: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    let piece = 16 << 10
    var out = JSONStream(indent: 2, reservingCapacity: piece + (piece >> 2))
    out.beginArray()
    for row in rows {
      if out.count >= piece { try out.drain(write) }
      out.beginObject()
      out.literalKey("name")
      out.string(row.name)
      out.literalKey("state")
      out.string(row.state)
      out.literalKey("path")
      out.string(row.path.string)
      out.literalKey("size")
      if let size = row.size { out.int(size) } else { out.null() }
      if let modified = row.modified {
        out.literalKey("modified")
        out.string(UTCDateTime(secondsSinceEpoch: modified).iso8601)
      }
      if let p = row.placeholder {
        out.literalKey("placeholder")
        out.beginObject()
        out.literalKey("kind")
        out.string(p.kind.rawValue)
        out.literalKey("path")
        out.string(p.path.string)
        if let declared = p.declaredSize {
          out.literalKey("declaredSize")
          out.int(declared)
        }
        out.endObject()
      }
      if row.copyCount > 0 {
        out.literalKey("copies")
        out.beginArray()
        for c in row.copies {
          out.beginObject()
          out.literalKey("path")
          out.string(c.path.string)
          out.literalKey("service")
          out.string(c.service.rawValue)
          if let device = c.device {
            out.literalKey("device")
            out.string(device)
          }
          if let date = c.date {
            out.literalKey("date")
            out.string(date)
          }
          out.endObject()
        }
        for v in row.versions {
          out.beginObject()
          out.literalKey("path")
          out.string(v.path.string)
          out.literalKey("service")
          out.string(SyncVersion.service)
          if let device = v.device {
            out.literalKey("device")
            out.string(device)
          }
          if let date = v.date {
            out.literalKey("date")
            out.string(date)
          }
          out.endObject()
        }
        out.endArray()
      }
      out.endObject()
    }
    out.endArray()
    out.endLine()
    try out.drain(write)
  }
}
