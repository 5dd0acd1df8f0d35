import AutomergeCodec
import Operations
import Storage

extension ConflictMergeOutput {
  /// Renders what became of the conflict versions (iCloud `NSFileVersion`s): a line a
  /// version on stdout, problems on stderr. With `--json` nothing: `json(_:versions:dryRun:)`
  /// puts them in the one JSON object.
  func finish(_ report: VersionMergeReport, dryRun: Bool) throws {
    for document in report.documents {
      for (isError, text) in lines(document, dryRun: dryRun) where isError {
        try env.stderr.write("mn: error: \(text)\n")
      }
    }
    guard !quiet else { return }
    for document in report.documents {
      for (isError, text) in lines(document, dryRun: dryRun) where !isError {
        try env.stdout.write(text + "\n")
      }
    }
  }

  /// The lines of one document's versions, each marked when it is an error: the refusal,
  /// or a line a version (`watch` prints them too).
  func lines(_ document: VersionMergeDocument, dryRun: Bool) -> [(Bool, String)] {
    if let refusal = document.refusal {
      return [(true, "cannot merge the versions of '\(document.logicalName)': \(refusal)")]
    }
    var lines: [(Bool, String)] = []
    for item in document.versions {
      if let problem = item.problem {
        lines.append((true, "\(describe(item.version, of: document.logicalName)): \(problem)"))
        continue
      }
      let what: String
      if dryRun {
        what = "would be merged (\(plural(item.adds, "change")) to add), then resolved"
      } else if item.resolved {
        what = "merged and resolved"
      } else {
        what = document.completed ? "merged, kept unresolved" : "not reached"
      }
      lines.append((false, "\(describe(item.version, of: document.logicalName)): \(what)"))
    }
    return lines
  }

  /// `the icloud-version of 'NAME' from DEVICE (DATE)`.
  func describe(_ version: SyncVersion, of name: String) -> String {
    var text = "the \(SyncVersion.service) of '\(name)'"
    if let device = version.device { text += " from \(device)" }
    if let date = version.date { text += " (\(date))" }
    return text
  }

  /// The `versions` member of `merge-conflicts --json`: one object a document with
  /// unresolved conflict versions.
  func json(_ report: VersionMergeReport, dryRun: Bool) -> JSONValue {
    .array(report.documents.map { json($0, dryRun: dryRun) })
  }

  /// One document's versions: each with its device and date (null when the system does not
  /// give them), whether it was merged and resolved, and why it was kept.
  func json(_ d: VersionMergeDocument, dryRun: Bool) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("name", .string(d.logicalName)), ("path", .path(d.path)),
      ("written", .bool(d.written)), ("completed", .bool(d.completed)),
      ("removedOthers", .bool(d.removedOthers)),
    ]
    if let refusal = d.refusal { members.append(("refusal", .string(refusal.description))) }
    members.append(
      (
        "versions",
        .array(
          d.versions.map { item in
            var merged = !dryRun && d.refusal == nil && d.completed
            if case .cannotResolve? = item.problem {
            } else if item.problem != nil {
              merged = false
            }
            return .object([
              ("service", .string(SyncVersion.service)),
              ("path", .string(item.version.path.string)),
              ("device", item.version.device.map(JSONValue.string) ?? .null),
              ("date", item.version.date.map(JSONValue.string) ?? .null),
              ("changes", item.changes.map { .int(Int64($0)) } ?? .null),
              ("adds", .int(Int64(item.adds))),
              ("merged", .bool(merged)), ("resolved", .bool(item.resolved)),
              ("problem", item.problem.map { .string($0.description) } ?? .null),
            ])
          })
      ))
    return .object(members)
  }
}
