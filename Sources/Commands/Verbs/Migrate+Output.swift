import AutomergeCodec
import Operations
import Platform

/// How `mn migrate` shows its plan and what it did: text or `--json`.
extension Migrate {
  /// The plan, one line per document and file: `ACTION  NAME`; warnings on standard error.
  static func printPlan(_ plan: MigrationPlan, _ call: Invocation, _ env: Environment) throws {
    guard !call.global.quiet else { return }
    if call.global.json {
      try env.stdout.writeJSON(json(plan, call, nil, nil))
      return
    }
    var out = "source:      \(plan.source)\ndestination: \(plan.destination)"
    out += plan.destinationExists ? "\n" : " (will be created)\n"
    for conflicts in plan.conflicts {
      let side = conflicts.root == plan.source ? "source" : "destination"
      for document in conflicts.documents {
        let copies = count(document.copies.count, "conflict copy")
        out += "copies  \(document.logicalName)  (\(copies) in the \(side), merged first)\n"
      }
    }
    for document in plan.documents {
      var detail = ""
      switch document.action {
      case .move: detail = "  (\(count(document.sourceChanges, "change")))"
      case .merge: detail = "  (\(count(document.newChanges, "new change")))"
      case .same: break
      }
      out += document.action.rawValue.padding(8) + document.name.logicalName + detail + "\n"
    }
    for file in plan.files {
      let detail = file.action == .differs ? "  (differs at the destination; left alone)" : ""
      out += file.action.rawValue.padding(8) + file.logicalName + detail + "\n"
    }
    try env.stdout.write(out)
    for warning in plan.warnings { try env.stderr.write("mn: warning: \(warning)\n") }
  }

  /// What was done, on standard output (or the whole result as JSON).
  static func printSummary(
    _ plan: MigrationPlan, _ report: MigrationReport, _ backup: AbsolutePath?, _ call: Invocation,
    _ env: Environment
  ) throws {
    if call.global.json {
      try env.stdout.writeJSON(json(plan, call, report, backup))
      return
    }
    guard !call.global.quiet else { return }
    var parts: [String] = []
    if !report.moved.isEmpty { parts.append("\(report.moved.count) moved") }
    if !report.merged.isEmpty { parts.append("\(report.merged.count) merged") }
    if !report.same.isEmpty { parts.append("\(report.same.count) already there") }
    let total = report.moved.count + report.merged.count + report.same.count
    var out = "migrated \(count(total, "document"))"
    out += parts.isEmpty ? "\n" : ": " + parts.joined(separator: ", ") + "\n"
    if !report.copiedFiles.isEmpty {
      out += "copied \(count(report.copiedFiles.count, "other file"))\n"
    }
    if report.resumedSteps > 0 {
      out += "resumed after \(count(report.resumedSteps, "step")) done before\n"
    }
    if report.removedDirectories.contains("") {
      out += "removed the source folder '\(plan.source)'\n"
    } else if !report.leftInSource.isEmpty {
      out += "left in '\(plan.source)' (not Minuta documents): "
      out += report.leftInSource.joined(separator: ", ") + "\n"
    }
    if let pointer = report.pointerUpdated {
      out += "the pointer file '\(pointer)' now names the destination\n"
    }
    try env.stdout.write(out)
    let found = env.discover(root: nil)
    if found.root != plan.destination {
      let what =
        found.root.map { "find '\($0)' first, not the destination" }
        ?? "do not find the destination"
      try env.stderr.write(
        "mn: note: mn and Minuta \(what)\n"
          + "hint: point them at it with MINUTA_STORAGE or the pointer file storage-path.txt\n")
    }
  }

  /// The plan (and, once executed, the result) as one JSON object.
  static func json(
    _ plan: MigrationPlan, _ call: Invocation, _ report: MigrationReport?, _ backup: AbsolutePath?
  ) -> JSONValue {
    let strings = { (values: [String]) in JSONValue.array(values.map(JSONValue.string)) }
    var members: [(String, JSONValue)] = [
      ("source", .path(plan.source)), ("destination", .path(plan.destination)),
      ("dryRun", .bool(call[Options.dryRun])),
      (
        "documents",
        .array(
          plan.documents.map { d in
            .object([
              ("name", .string(d.name.logicalName)), ("action", .string(d.action.rawValue)),
              ("changes", .int(Int64(d.sourceChanges))), ("newChanges", .int(Int64(d.newChanges))),
            ])
          })
      ),
      (
        "files",
        .array(
          plan.files.map {
            .object([("name", .string($0.logicalName)), ("action", .string($0.action.rawValue))])
          })
      ),
      ("warnings", strings(plan.warnings.map(\.description))),
    ]
    if !plan.placeholders.isEmpty {
      members.append(("placeholders", .array(plan.placeholders.map(JSONValue.path))))
    }
    if !plan.unreadable.isEmpty {
      members.append(
        (
          "unreadable",
          .array(
            plan.unreadable.map {
              .object([("path", .path($0.path)), ("reason", .string($0.reason))])
            })
        ))
    }
    if !plan.conflictCopies.isEmpty {
      members.append(("conflictCopies", .array(plan.conflictCopies.map(JSONValue.path))))
    }
    if let report {
      members += [
        ("backup", backup.map(JSONValue.path) ?? .null),
        ("moved", strings(report.moved)), ("merged", strings(report.merged)),
        ("same", strings(report.same)),
        ("copiedFiles", strings(report.copiedFiles)),
        ("removedFromSource", strings(report.removedFromSource)),
        ("removedDirectories", strings(report.removedDirectories)),
        ("leftInSource", strings(report.leftInSource)),
        ("pointerUpdated", report.pointerUpdated.map(JSONValue.path) ?? .null),
        ("resumedSteps", .int(Int64(report.resumedSteps))),
      ]
    }
    return .object(members)
  }

  /// "1 change", "3 changes"; "y" becomes "ies".
  static func count(_ n: Int, _ noun: String) -> String {
    if n == 1 { return "1 \(noun)" }
    return noun.hasSuffix("y") ? "\(n) \(noun.dropLast())ies" : "\(n) \(noun)s"
  }
}
