import AutomergeCodec
import Operations

extension Log {
  /// Why a file's changes are not listed.
  static func describe(_ problem: FolderLog.Problem) -> String {
    switch problem.reason {
    case .notDownloaded: return "'\(problem.file)' is not downloaded; its changes are not listed"
    case .cannotRead(let error): return "cannot read '\(problem.file)': \(error)"
    case .notAutomerge(let error): return "'\(problem.file)' is not valid Automerge: \(error)"
    }
  }

  /// `--summary`: per actor, first and last change, counts, and the activity line.
  static func summary(_ entries: [FolderLog.Entry], filter: Filter, _ out: ChangeLogOutput)
    throws
  {
    let summary = LogSummary(entries, since: filter.since, until: filter.until)
    if out.json {
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
      try out.env.stdout.writeJSON(value)
      return
    }
    var text = ""
    if let start = summary.start, let end = summary.end {
      text +=
        "period: \(out.seconds(start)) to \(out.seconds(end)), \(LogSummary.columns) columns of \(LogSummary.duration(summary.columnSeconds)) each\n"
    }
    for row in summary.rows {
      text += out.actor(row.actor) + "  " + out.seconds(row.first) + "  " + out.seconds(row.last)
      text += "  \(row.changes) change" + (row.changes == 1 ? "" : "s")
      text += "  \(row.documents.count) document" + (row.documents.count == 1 ? "" : "s")
      text +=
        "  " + activity(row.activity, max: summary.maxColumn, terminal: out.env.stdoutIsTerminal)
        + "\n"
    }
    try out.env.stdout.write(text)
  }

  /// Unicode blocks scaled to the busiest column of any actor on a terminal (a space for
  /// none), the counts otherwise.
  static func activity(_ counts: [Int], max: Int, terminal: Bool) -> String {
    guard terminal else { return counts.map(String.init).joined(separator: " ") }
    let blocks = Array("▁▂▃▄▅▆▇█")
    let bar = counts.map { n -> Character in
      if n == 0 || max == 0 { return " " }
      return blocks[min(blocks.count - 1, (n * blocks.count - 1) / max)]
    }
    return "|" + String(bar) + "|"
  }
}
