import Archive
import AutomergeCodec
import Platform
import Storage

extension Backups {
  /// `12 documents`, `1 document`.
  static func documents(_ n: Int) -> String { n == 1 ? "1 document" : "\(n) documents" }

  /// A size in bytes for people: `512 B`, `12.3 KiB`, `4.0 MiB`.
  static func size(_ bytes: Int64) -> String {
    guard bytes >= 1024 else { return "\(bytes) B" }
    var value = Double(bytes) / 1024
    var unit = "KiB"
    for next in ["MiB", "GiB", "TiB"] where value >= 1024 {
      value /= 1024
      unit = next
    }
    let tenths = Int64((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) \(unit)"
  }

  /// The listing's lines: time, verb, size, documents (or `damaged`), file name.
  static func table(_ entries: [BackupCatalog.Entry]) -> String {
    let rows = entries.map { entry -> [String] in
      let what: String
      switch entry.state {
      case .success(let contents): what = documents(contents.documents)
      case .failure: what = "damaged"
      }
      return [
        UTCDateTime(secondsSinceEpoch: entry.name.time).iso8601, entry.name.verb,
        size(entry.size), what, entry.fileName,
      ]
    }
    return columns(rows, rightAligned: [2])
  }

  /// Rows padded into columns two spaces apart (the last column unpadded).
  static func columns(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
    guard let width = rows.first?.count else { return "" }
    let widths = (0..<width).map { c in rows.map { $0[c].count }.max() ?? 0 }
    var out = ""
    for row in rows {
      var line = ""
      for (c, cell) in row.enumerated() {
        let pad = String(repeating: " ", count: widths[c] - cell.count)
        if c == width - 1 {
          line += cell
        } else {
          line += (rightAligned.contains(c) ? pad + cell : cell + pad) + "  "
        }
      }
      out += line + "\n"
    }
    return out
  }

  /// A backup as JSON: name, path, time, verb, size, and the manifest's counts or the error.
  static func json(_ entry: BackupCatalog.Entry) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("name", .string(entry.fileName)), ("path", .path(entry.path)),
      ("time", .string(UTCDateTime(secondsSinceEpoch: entry.name.time).iso8601)),
      ("verb", .string(entry.name.verb)), ("size", .int(entry.size)),
    ]
    switch entry.state {
    case .success(let contents):
      members += [
        ("intact", .bool(true)), ("documents", .int(Int64(contents.documents))),
        ("files", .int(Int64(contents.files))),
        ("placeholders", .int(Int64(contents.placeholders))),
        ("source", .string(contents.source)), ("version", .string(contents.version)),
      ]
    case .failure(let error):
      members += [("intact", .bool(false)), ("error", .string(error.description))]
    }
    return .object(members)
  }

  /// What prune does with a backup: `keep`, `remove`, `would remove`, `left` (changed or
  /// failed).
  static func action(_ backup: BackupCatalog.PrunedBackup) -> String {
    switch backup.removal {
    case .none: return "keep"
    case .removed: return "remove"
    case .wouldRemove: return "remove"
    case .changed, .failed: return "left"
    }
  }

  /// Prune's lines, newest first: action, time, verb, file name, and the rules that keep it.
  static func text(_ report: BackupCatalog.PruneReport) -> String {
    let rows = report.backups.map { backup -> [String] in
      let reasons = backup.reasons.map(\.description).joined(separator: ", ")
      return [
        action(backup), UTCDateTime(secondsSinceEpoch: backup.entry.name.time).iso8601,
        backup.entry.name.verb, backup.entry.fileName + (reasons.isEmpty ? "" : "  (\(reasons))"),
      ]
    }
    return columns(rows)
  }

  /// Prune's report as JSON: the policy, and every backup with its action and reasons.
  static func json(_ report: BackupCatalog.PruneReport) -> JSONValue {
    func limit(_ n: Int) -> JSONValue {
      n == BackupRetention.Policy.unlimited ? .string("unlimited") : .int(Int64(n))
    }
    let policy = report.policy
    let backups: [JSONValue] = report.backups.map { backup in
      var members: [(String, JSONValue)]
      if case .object(let fields) = json(backup.entry) { members = fields } else { members = [] }
      members.append(("action", .string(action(backup))))
      members.append(("reasons", .array(backup.reasons.map { .string($0.description) })))
      if case .failed(let error) = backup.removal {
        members.append(("error", .string(error.description)))
      }
      return .object(members)
    }
    return .object([
      ("directory", .path(report.directory)), ("dryRun", .bool(report.dryRun)),
      (
        "policy",
        .object([
          ("last", limit(policy.last)), ("daily", limit(policy.daily)),
          ("weekly", limit(policy.weekly)), ("monthly", limit(policy.monthly)),
        ])
      ),
      ("backups", .array(backups)),
      ("damaged", .array(report.damaged.map(json))),
    ])
  }
}
