import Archive
import AutomergeCodec
import Operations

/// The text and JSON forms of `mn restore`'s plan and report.
extension Restore {
  /// One line of the plan: the action, padded, then the path.
  static func line(_ item: RestorePlan.Item) -> String {
    name(item.action).padding(15) + item.path + "\n"
  }

  static func name(_ action: RestoreAction) -> String {
    switch action {
    case .write: return "write"
    case .merge: return "merge"
    case .unchanged: return "unchanged"
    case .keepDifferent: return "keep-different"
    case .skip: return "skip"
    }
  }

  static func json(_ plan: RestorePlan, _ source: String, _ backup: Bool) -> JSONValue {
    .object([
      ("archive", .string(source)), ("destination", .path(plan.destination)),
      ("destinationExists", .bool(plan.destinationExists)), ("backup", .bool(backup)),
      (
        "items",
        .array(
          plan.items.map {
            .object([
              ("path", .string($0.path)), ("kind", .string($0.kind.rawValue)),
              ("action", .string(name($0.action))),
            ])
          })
      ),
    ])
  }

  static func json(_ outcome: RestoreWorkflow.Outcome, _ source: String) -> JSONValue {
    let r = outcome.report
    func list(_ paths: [String]) -> JSONValue { .array(paths.map(JSONValue.string)) }
    return .object([
      ("archive", .string(source)), ("destination", .path(outcome.plan.destination)),
      ("backup", outcome.backupPath.map(JSONValue.path) ?? .null),
      ("written", list(r.written)), ("merged", list(r.merged)), ("unchanged", list(r.unchanged)),
      ("keptDifferent", list(r.keptDifferent)), ("skipped", list(r.skipped)),
    ])
  }
}
