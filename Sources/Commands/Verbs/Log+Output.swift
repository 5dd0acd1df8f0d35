import AutomergeCodec
import Operations
import Platform

extension Log {
  /// How `log` (and `diff`, which lists changes the same way) prints changes.
  struct Output {
    var env: Environment
    var utc: Bool
    var verbose: Bool
    var json: Bool
    /// The hex digits an actor is shortened to: unambiguous among the folder's actors.
    var actorLength: Int

    init(call: Invocation, env: Environment, actors: Set<ActorId>, utc: Bool) {
      self.env = env
      self.utc = utc
      verbose = call.global.verbose
      json = call.global.json
      actorLength = FolderLog.shortActorLength(actors)
    }

    func time(_ raw: Int64) -> String {
      guard let seconds = ChangeTime.seconds(raw) else { return "-" }
      return ChangeTime.format(seconds, utc: utc, utcOffset: env.utcOffset)
    }

    func seconds(_ t: Int64?) -> String {
      guard let t else { return "-" }
      return ChangeTime.format(t, utc: utc, utcOffset: env.utcOffset)
    }

    func actor(_ id: ActorId) -> String { String(id.description.prefix(actorLength)) }

    /// One change: time, document, actor, seq, ops, message, and the copy it is only in.
    func line(_ e: FolderLog.Entry) -> String {
      let c = e.change
      var s = time(c.time) + "  " + e.document + "  " + actor(c.author)
      s += "  seq \(c.seq)  \(e.ops) op" + (e.ops == 1 ? "" : "s")
      if let m = c.message { s += "  " + Log.printable(m) }
      if let copy = e.copy { s += "  [only in '\(copy)']" }
      if verbose { s += "  " + c.hash.description }
      return s
    }

    func json(_ e: FolderLog.Entry) -> JSONValue {
      let c = e.change
      var members: [(String, JSONValue)] = [
        ("document", .string(e.document)), ("hash", .string(c.hash.description)),
        ("actor", .string(c.author.description)), ("seq", .uint(c.seq)),
        ("startOp", .uint(c.startOp)), ("ops", .int(Int64(e.ops))), ("time", .int(c.time)),
      ]
      if let seconds = ChangeTime.seconds(c.time) {
        members.append(("date", .string(UTCDateTime(secondsSinceEpoch: seconds).iso8601)))
      }
      members.append(("message", c.message.map { .string($0) } ?? .null))
      members.append(("deps", .array(c.deps.sorted().map { .string($0.description) })))
      if let copy = e.copy { members.append(("copy", .string(copy))) }
      return .object(members)
    }

    func describe(_ problem: FolderLog.Problem) -> String {
      switch problem.reason {
      case .notDownloaded: return "'\(problem.file)' is not downloaded; its changes are not listed"
      case .cannotRead(let error): return "cannot read '\(problem.file)': \(error)"
      case .notAutomerge(let error): return "'\(problem.file)' is not valid Automerge: \(error)"
      }
    }

    /// `--summary`: per actor, first and last change, counts, and the activity line.
    func summary(_ entries: [FolderLog.Entry], filter: Filter) throws {
      let summary = LogSummary(entries, since: filter.since, until: filter.until)
      if json {
        let rows: [JSONValue] = summary.rows.map { row in
          .object([
            ("actor", .string(row.actor.description)),
            ("first", row.first.map { .int($0) } ?? .null),
            ("last", row.last.map { .int($0) } ?? .null),
            ("changes", .int(Int64(row.changes))),
            ("documents", .array(row.documents.map { .string($0) })),
            ("activity", .array(row.activity.map { .int(Int64($0)) })),
          ])
        }
        let value = JSONValue.object([
          ("start", summary.start.map { .int($0) } ?? .null),
          ("end", summary.end.map { .int($0) } ?? .null),
          ("columnSeconds", .int(summary.columnSeconds)), ("actors", .array(rows)),
        ])
        try env.stdout.write(JSONWriter.string(value, indent: 2) + "\n")
        return
      }
      var text = ""
      if let start = summary.start, let end = summary.end {
        text +=
          "period: \(seconds(start)) to \(seconds(end)), \(LogSummary.columns) columns of \(LogSummary.duration(summary.columnSeconds)) each\n"
      }
      for row in summary.rows {
        text += actor(row.actor) + "  " + seconds(row.first) + "  " + seconds(row.last)
        text += "  \(row.changes) change" + (row.changes == 1 ? "" : "s")
        text += "  \(row.documents.count) document" + (row.documents.count == 1 ? "" : "s")
        text += "  " + activity(row.activity, max: summary.maxColumn) + "\n"
      }
      try env.stdout.write(text)
    }

    /// Unicode blocks scaled to the busiest column of any actor on a terminal (a space for
    /// none), the counts otherwise.
    func activity(_ counts: [Int], max: Int) -> String {
      guard env.stdoutIsTerminal else { return counts.map(String.init).joined(separator: " ") }
      let blocks = Array("▁▂▃▄▅▆▇█")
      let bar = counts.map { n -> Character in
        if n == 0 || max == 0 { return " " }
        return blocks[min(blocks.count - 1, (n * blocks.count - 1) / max)]
      }
      return "|" + String(bar) + "|"
    }
  }

  /// A message on one line: as it is, or as a JSON string when it holds control characters.
  static func printable(_ message: String) -> String {
    message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
      ? ChangeListing.jsonString(message) : message
  }
}
