import AutomergeCodec
import Operations

extension Diff {
  /// How `diff` prints its pairs: text, or one JSON array.
  struct Output {
    var call: Invocation
    var env: Environment
    var results: [(Side, Side, DocumentDiff)]
    var log: ChangeLogOutput

    init(call: Invocation, env: Environment, results: [(Side, Side, DocumentDiff)]) {
      self.call = call
      self.env = env
      self.results = results
      var actors = Set<ActorId>()
      for (_, _, d) in results {
        for e in d.onlyInFirst + d.onlyInSecond { actors.insert(e.change.author) }
      }
      log = ChangeLogOutput(call: call, env: env, actors: actors, utc: call[Options.utc])
    }

    func write() throws {
      // -q: only the exit status answers (as `git diff --quiet`).
      guard !call.global.quiet else { return }
      if call.global.json {
        let pairs: [JSONValue] = results.map { a, b, d in
          .object([
            ("a", .string(a.name)), ("b", .string(b.name)), ("same", .bool(d.same)),
            ("onlyInA", .array(d.onlyInFirst.map { log.json(entry($0, a)) })),
            ("onlyInB", .array(d.onlyInSecond.map { log.json(entry($0, b)) })),
            ("patch", .array(d.patch.map(\.json))),
          ])
        }
        try env.stdout.writeJSON(.array(pairs))
        return
      }
      var text = ""
      for (a, b, d) in results {
        text += "diff '\(a.name)' '\(b.name)'\n"
        if d.same {
          text += "same changes\n"
          continue
        }
        for (side, entries) in [(a, d.onlyInFirst), (b, d.onlyInSecond)] where !entries.isEmpty {
          text += "only in '\(side.name)': \(MergeEffect.count(entries.count, "change"))\n"
          for e in entries { text += "  " + log.line(entry(e, side)) + "\n" }
        }
        text +=
          "merging '\(b.name)' into '\(a.name)' \(MergeEffect.summary(adds: d.onlyInSecond.count, d.patch))\n"
        for op in d.patch { text += "  " + line(op) + "\n" }
      }
      try env.stdout.write(text)
    }

    func entry(_ e: DocumentDiff.Entry, _ side: Side) -> FolderLog.Entry {
      FolderLog.Entry(document: side.name, copy: nil, change: e.change, ops: e.ops)
    }
  }

  /// One patch entry: `+ /path: value`, `- /path: old`, `~ /path: old -> new`.
  static func line(_ op: JSONPatch.Operation) -> String {
    let path = op.path.isEmpty ? "/" : op.path
    func text(_ v: JSONValue?) -> String { v.map { JSONWriter.string($0) } ?? "null" }
    switch op.kind {
    case .add: return "+ \(path): \(text(op.value))"
    case .remove: return "- \(path): \(text(op.old))"
    case .replace: return "~ \(path): \(text(op.old)) -> \(text(op.value))"
    }
  }
}
