import AutomergeCodec
import Operations
import Platform
import Storage

/// How a merge of conflict copies and versions is told: `merge-conflicts` renders its plan or
/// report with it (lines or JSON on stdout, problems on stderr), `watch` each document's
/// lines and JSON members.
struct ConflictMergeOutput {
  let call: Invocation
  let env: Environment
  /// Whether the copies are kept (`merge-conflicts --keep-copies`): said in their lines.
  let keepCopies: Bool

  var quiet: Bool { call.global.quiet || call.global.json }

  /// A diagnostic line on stderr (`mn: …`), silenced by `-q`.
  func note(_ text: String) {
    guard !call.global.quiet else { return }
    try? env.stderr.write("mn: \(text)\n")
  }

  /// The copies' errors on stderr, and their lines on stdout; with `--json` only the
  /// errors (`finishJSON` writes the one object once the versions are done too).
  /// `effects` holds, by copy path, what the copy adds (`MergeEffect.summary`): printed under
  /// its line.
  func finish(
    _ report: ConflictMergeReport, dryRun: Bool, effects: [AbsolutePath: String] = [:]
  ) throws {
    for line in errors(report) { try env.stderr.write("mn: error: \(line)\n") }
    guard !quiet else { return }
    for document in report.documents {
      try env.stdout.write("\(document.logicalName): \(summary(document, dryRun: dryRun))\n")
      for copy in document.copies {
        try env.stdout.write("  " + line(copy, document, dryRun: dryRun) + "\n")
        if let effect = effects[copy.copy.path] { try env.stdout.write("    \(effect)\n") }
      }
    }
    try env.stdout.write(total(report, dryRun: dryRun) + "\n")
  }

  func errors(_ report: ConflictMergeReport) -> [String] {
    var lines: [String] = []
    for document in report.documents {
      if let refusal = document.refusal {
        var line = "cannot merge '\(document.logicalName)': \(refusal) (nothing changed)"
        if case .canonicalNotAutomerge = refusal { line += "; 'mn repair' rebuilds it" }
        lines.append(line)
        continue
      }
      for copy in document.copies {
        switch copy.problem {
        case .none: break
        case .cannotRemove(let error): lines.append("\(error) (merged, kept)")
        case .notAutomerge(let error):
          lines.append(
            "cannot merge '\(copy.copy.logicalName)': not a valid Automerge file: \(error) "
              + "(kept; 'mn repair' rebuilds it from what verifies)")
        case .some(let problem):
          lines.append("cannot merge '\(copy.copy.logicalName)': \(problem) (kept)")
        }
      }
    }
    return lines
  }

  func summary(_ d: ConflictMergeDocument, dryRun: Bool) -> String {
    if let refusal = d.refusal { return "left alone: \(refusal)" }
    if !dryRun && !d.completed { return "not reached (interrupted)" }
    let readable = d.copies.count { $0.changes != nil }
    let from = "from \(plural(readable, "copy"))"
    let changes = plural(d.added, "change")
    if d.createsCanonical {
      return dryRun ? "would be created \(from) (\(changes))" : "created \(from) (\(changes))"
    }
    if d.added == 0 { return dryRun ? "holds every change already" : "held every change already" }
    return dryRun ? "would add \(changes) \(from)" : "added \(changes) \(from)"
  }

  func line(_ c: ConflictMergeCopy, _ d: ConflictMergeDocument, dryRun: Bool) -> String {
    let word: String
    if d.refusal != nil || c.problem != nil {
      word = dryRun ? "keep" : "kept"
    } else if keepCopies {
      word = dryRun ? "merge" : "merged"
    } else if dryRun {
      word = "remove"
    } else {
      word = c.removed ? "removed" : d.completed ? "kept" : "-"
    }
    let adds = c.changes == nil ? "-" : "+\(c.adds)"
    let who = [c.copy.service.rawValue, c.copy.device, c.copy.date].compactMap { $0 }
    var text = word.padding(8) + String(repeating: " ", count: max(0, 5 - adds.count)) + adds
    text += "  \(c.copy.logicalName)  (\(who.joined(separator: ", ")))"
    if let problem = c.problem { text += ": \(problem)" }
    return text
  }

  func total(_ report: ConflictMergeReport, dryRun: Bool) -> String {
    guard !report.documents.isEmpty else { return "no conflict copies" }
    let merged = report.documents.filter { $0.refusal == nil && (dryRun || $0.completed) }
    let added = merged.reduce(0) { $0 + $1.added }
    let copies = report.documents.flatMap(\.copies)
    let removed = copies.count { dryRun ? $0.problem == nil && !keepCopies : $0.removed }
    let kept = copies.count - removed
    let documents = "\(merged.count) of \(plural(report.documents.count, "document"))"
    if dryRun {
      return
        "dry run: \(documents) to merge, \(plural(added, "change")) to add, \(plural(removed, "copy")) to remove, \(kept) to keep"
    }
    let head = report.interrupted ? "interrupted: merged" : "merged"
    return
      "\(head) \(documents), \(plural(added, "change")) added, \(plural(removed, "copy")) removed, \(kept) kept"
  }

  /// What each mergeable copy that adds changes would do to its document, by copy path:
  /// `MergeEffect.summary` of the document against the copy (read again; a copy that does not
  /// compare is left out, its problem is reported by the plan).
  func effects(_ plan: ConflictMergePlan) -> [AbsolutePath: String] {
    var out: [AbsolutePath: String] = [:]
    for document in plan.documents where document.refusal == nil {
      var canonical: [UInt8]?
      for copy in document.copies where copy.problem == nil && copy.adds > 0 {
        do {
          if canonical == nil {
            canonical =
              document.createsCanonical
              ? []
              : try env.fileSystem.readFile(
                document.canonicalPath, limit: DocumentName.maxFileSize)
          }
          let bytes = try env.fileSystem.readFile(
            copy.copy.path, limit: DocumentName.maxFileSize)
          let diff = try DocumentDiff.compare(canonical ?? [], bytes)
          out[copy.copy.path] = MergeEffect.summary(adds: diff.onlyInSecond.count, diff.patch)
        } catch {
          continue
        }
      }
    }
    return out
  }

  func plural(_ n: Int, _ noun: String) -> String {
    n == 1 ? "1 \(noun)" : noun == "copy" ? "\(n) copies" : "\(n) \(noun)s"
  }

  /// With `--json`: the one object of the run, copies and versions.
  func finishJSON(_ report: ConflictMergeReport, versions: VersionMergeReport, dryRun: Bool)
    throws
  {
    guard call.global.json else { return }
    try env.stdout.writeJSON(json(report, versions: versions, dryRun: dryRun))
  }

  func json(_ report: ConflictMergeReport, versions: VersionMergeReport, dryRun: Bool)
    -> JSONValue
  {
    .object([
      ("dryRun", .bool(dryRun)),
      ("root", .path(report.root)),
      ("backup", (report.backupPath ?? versions.backupPath).map(JSONValue.path) ?? .null),
      ("interrupted", .bool(report.interrupted)),
      ("documents", .array(report.documents.map { json($0) })),
      ("versions", json(versions, dryRun: dryRun)),
      ("versionsHidden", .array(versions.hidden.map(JSONValue.string))),
    ])
  }

  func json(_ d: ConflictMergeDocument) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("name", .string(d.logicalName)), ("path", .path(d.canonicalPath)),
      ("state", .string(d.entry.state.rawValue)),
      ("canonicalChanges", d.canonicalChanges.map { .int(Int64($0)) } ?? .null),
      ("mergedChanges", d.mergedChanges.map { .int(Int64($0)) } ?? .null),
      ("added", .int(Int64(d.added))), ("written", .bool(d.written)),
      ("completed", .bool(d.completed)),
    ]
    if let refusal = d.refusal { members.append(("refusal", .string(refusal.description))) }
    members.append(
      (
        "copies",
        .array(
          d.copies.map { c in
            var copy: [(String, JSONValue)] = [
              ("name", .string(c.copy.logicalName)), ("path", .path(c.copy.path)),
              ("service", .string(c.copy.service.rawValue)),
            ]
            if let device = c.copy.device { copy.append(("device", .string(device))) }
            if let date = c.copy.date { copy.append(("date", .string(date))) }
            copy.append(("changes", c.changes.map { .int(Int64($0)) } ?? .null))
            copy.append(("adds", .int(Int64(c.adds))))
            copy.append(("removed", .bool(c.removed)))
            if let problem = c.problem { copy.append(("problem", .string(problem.description))) }
            return .object(copy)
          })
      ))
    return .object(members)
  }
}
