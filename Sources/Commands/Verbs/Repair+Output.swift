import AutomergeCodec
import Operations

extension Repair {
  /// Renders a plan or a report: lines or JSON on stdout, problems on stderr.
  struct Output {
    let call: Invocation
    let env: Environment

    /// A diagnostic line on stderr (`mn: …`), silenced by `-q` and `--json`.
    func note(_ text: String) {
      guard !call.global.quiet else { return }
      try? env.stderr.write("mn: \(text)\n")
    }

    func finish(_ report: RepairReport, dryRun: Bool) throws {
      for (path, problem) in report.unusableArchives where call.global.verbose {
        try env.stderr.write("mn: warning: archive '\(path)' not used: \(problem)\n")
      }
      for d in report.documents {
        switch d.refusal {
        case .none, .loads: break
        case .some(let refusal):
          try env.stderr.write("mn: error: cannot repair '\(d.logicalName)': \(refusal)\n")
          if refusal == .nothingRecovered
            && d.excludedSources.contains(where: { $0.kind == .backup })
          {
            try env.stderr.write(
              "mn: hint: backups that hold it were not taken (see the report); "
                + "name one with --from to take it\n")
          }
        }
      }
      if call.global.json {
        try env.stdout.writeJSON(json(report, dryRun: dryRun))
        return
      }
      guard !call.global.quiet else { return }
      var text = ""
      for d in report.documents { text += lines(d, dryRun: dryRun) }
      let repaired = report.documents.count { $0.refusal == nil }
      let verb = dryRun ? "would repair" : "repaired"
      text +=
        report.documents.isEmpty
        ? "nothing to repair: every document loads\n"
        : "\(dryRun ? "dry run: " : "")\(verb) \(repaired) of \(plural(report.documents.count, "document"))\n"
      try env.stdout.write(text)
    }

    func lines(_ d: RepairDocument, dryRun: Bool) -> String {
      if d.refusal == .loads { return "\(d.logicalName): loads; not rewritten\n" }
      var text = "\(d.logicalName): "
      if let refusal = d.refusal {
        text += "left alone: \(refusal)\n"
      } else {
        let done = dryRun ? "would be rebuilt with" : d.written ? "rebuilt with" : "not reached:"
        text += "\(done) \(plural(d.recovered, "change"))\n"
      }
      for s in d.sources {
        let what: String
        if let problem = s.problem {
          what = "unreadable: \(problem)"
        } else if let excluded = s.excluded {
          what = "not taken: \(excluded)\(s.kind == .backup ? " (only --from takes it)" : "")"
        } else {
          what = "\(s.changes) verified, +\(s.recovered)"
        }
        text += "  \(s.kind.rawValue.padding(8)) \(s.location): \(what)\n"
        for r in s.skipped {
          text += "    skipped \(r.length) bytes at offset \(r.offset): \(r.problem)\n"
        }
      }
      if !d.lost.isEmpty {
        text += "  lost: \(plural(d.lost.count, "change")) that recovered changes depend on\n"
        for hash in d.lost { text += "    \(hash)\n" }
        text += "  left out: \(plural(d.stranded.count, "change")) that depend on them\n"
      }
      return text
    }

    func plural(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    func json(_ report: RepairReport, dryRun: Bool) -> JSONValue {
      .object([
        ("dryRun", .bool(dryRun)),
        ("root", .path(report.root)),
        ("backup", report.backupPath.map(JSONValue.path) ?? .null),
        ("documents", .array(report.documents.map(json))),
        (
          "unusableArchives",
          .array(
            report.unusableArchives.map {
              .object([("path", .path($0.path)), ("problem", .string($0.problem))])
            })
        ),
      ])
    }

    func json(_ d: RepairDocument) -> JSONValue {
      let status: String
      switch d.refusal {
      case .none: status = d.losesSomething ? "partial" : "complete"
      case .loads: status = "loads"
      case .some: status = "refused"
      }
      var members: [(String, JSONValue)] = [
        ("name", .string(d.logicalName)), ("path", .path(d.path)), ("status", .string(status)),
      ]
      if let refusal = d.refusal { members.append(("refusal", .string(refusal.description))) }
      members += [
        ("recovered", .int(Int64(d.recovered))), ("written", .bool(d.written)),
        ("heads", .array(d.heads.map { .string($0.description) })),
        ("lost", .array(d.lost.map { .string($0.description) })),
        ("leftOut", .array(d.stranded.map { .string($0.description) })),
        ("sources", .array(d.sources.map(json))),
      ]
      return .object(members)
    }

    func json(_ s: RepairSource) -> JSONValue {
      var members: [(String, JSONValue)] = [
        ("kind", .string(s.kind.rawValue)), ("location", .string(s.location)),
        ("changes", .int(Int64(s.changes))), ("recovered", .int(Int64(s.recovered))),
        ("salvaged", .bool(s.salvaged)),
        (
          "skipped",
          .array(
            s.skipped.map {
              .object([
                ("offset", .int(Int64($0.offset))), ("length", .int(Int64($0.length))),
                ("reason", .string($0.problem.description)),
              ])
            })
        ),
      ]
      if let problem = s.problem { members.append(("problem", .string(problem))) }
      if let excluded = s.excluded {
        var why: [(String, JSONValue)] = [
          ("reason", .string(excluded.code)), ("detail", .string(excluded.description)),
        ]
        if case .otherFolder(let folder) = excluded { why.append(("folder", .string(folder))) }
        members.append(("excluded", .object(why)))
      }
      return .object(members)
    }
  }
}
