import Archive
import Operations
import Platform

/// The exit statuses of the reports that list what failed item by item (fetch,
/// merge-conflicts, repair, watch, backups, doc check): each item's typed problem is mapped here, and the worst
/// one wins (mn.md §11). The verbs print the items; this decides the status.
extension ErrorReport {
  /// The exit status of a fetch that returned: the worst of its failed and missing files
  /// (an I/O error, then content that is not Automerge, then files still not downloaded, then
  /// a document that kept changing while it was replaced: 75, run again, as every verb says).
  static func status(of report: FetchReport) -> ExitStatus {
    let found =
      report.failed.map { status(of: $0.reason) } + report.missing.map { _ in .unavailable }
    return fetchOrder.first { found.contains($0) } ?? .ok
  }

  /// The statuses of a fetch's report, worst first.
  static let fetchOrder: [ExitStatus] = [.ioErr, .dataErr, .unavailable, .tempFail]

  /// The exit status of one file that `mn fetch` could not bring down.
  static func status(of reason: FetchFailure.Reason) -> ExitStatus {
    switch reason {
    case .ioFailed: return .ioErr
    case .invalidContent, .invalidFile, .inTheWay, .verificationFailed: return .dataErr
    case .changedDuringRun: return .tempFail
    }
  }

  /// The exit status a report calls for: 130 when interrupted, else the worst problem.
  static func status(of report: ConflictMergeReport) -> ExitStatus {
    if report.interrupted { return .interrupted }
    var found: [ExitStatus] = []
    for document in report.documents {
      switch document.refusal {
      case .none: break
      case .notDownloaded, .notCurrent: found.append(.unavailable)
      case .canonicalNotAutomerge, .collision, .noReadableCopy, .canonicalNotRegularFile:
        found.append(.dataErr)
      case .canonicalCannotRead(let error): found.append(status(of: error))
      case .changedDuringRun: found.append(.tempFail)
      }
      guard document.refusal == nil else { continue }
      for copy in document.copies {
        switch copy.problem {
        case .none: break
        case .notDownloaded: found.append(.unavailable)
        case .notAutomerge: found.append(.dataErr)
        case .cannotRead(let error), .cannotRemove(let error):
          found.append(status(of: error))
        case .changedDuringRun: found.append(.tempFail)
        }
      }
    }
    return conflictMergeOrder.first { found.contains($0) } ?? (found.isEmpty ? .ok : .ioErr)
  }

  /// The statuses of a merge's report, worst first (130 comes before any of them).
  static let conflictMergeOrder: [ExitStatus] = [
    .dataErr, .ioErr, .cantCreate, .noInput, .unavailable, .tempFail,
  ]

  /// The exit status a version report calls for (mn.md §15): 69 for a document that is not
  /// current, 65 for a version that is not Automerge, 74 for one that cannot be read or
  /// resolved.
  static func status(of report: VersionMergeReport) -> ExitStatus {
    var found: [ExitStatus] = []
    for document in report.documents {
      switch document.refusal {
      case .none: break
      case .notDownloaded, .notCurrent: found.append(.unavailable)
      case .canonicalCannotRead(let error): found.append(status(of: error))
      case .changedDuringRun: found.append(.tempFail)
      default: found.append(.dataErr)
      }
      for item in document.versions {
        switch item.problem {
        case .none: break
        case .notAutomerge: found.append(.dataErr)
        case .cannotRead, .cannotResolve: found.append(.ioErr)
        }
      }
    }
    return versionMergeOrder.first { found.contains($0) } ?? .ok
  }

  /// The statuses of a version report, worst first.
  static let versionMergeOrder: [ExitStatus] = [.dataErr, .ioErr, .unavailable, .tempFail]

  /// The more serious of two statuses (the first that is not 0, by the order of `status`).
  static func worse(_ a: ExitStatus, _ b: ExitStatus) -> ExitStatus {
    if a == .ok { return b }
    if b == .ok { return a }
    let order: [ExitStatus] = [
      .interrupted, .dataErr, .ioErr, .cantCreate, .noInput, .unavailable, .tempFail,
    ]
    return order.first { $0 == a || $0 == b } ?? a
  }

  /// 65 when a damaged document got nothing back, 1 when something is known lost, else 0.
  static func status(of report: RepairReport) -> ExitStatus {
    var found: [ExitStatus] = []
    for document in report.documents {
      switch document.refusal {
      case .none: if document.losesSomething { found.append(.negative) }
      case .loads: break
      case .nothingRecovered, .collision: found.append(.dataErr)
      case .notDownloaded: found.append(.unavailable)
      case .cannotRead: found.append(.ioErr)
      case .changedDuringRun: found.append(.tempFail)
      }
    }
    return repairOrder.first { found.contains($0) } ?? .ok
  }

  /// The statuses of a repair's report, worst first.
  static let repairOrder: [ExitStatus] = [.dataErr, .ioErr, .unavailable, .tempFail, .negative]

  /// `mn backups verify`: 65 when a backup does not read back intact, whatever the reason (a
  /// backup that cannot be read whole is damaged, mn.md §13).
  static func status(ofVerified states: [Result<BackupCatalog.Contents, ArchiveError>])
    -> ExitStatus
  {
    states.contains { if case .failure = $0 { true } else { false } } ? .dataErr : .ok
  }

  /// `mn backups prune`: 74 when a backup that no rule keeps could not be removed.
  static func status(of report: BackupCatalog.PruneReport) -> ExitStatus {
    report.removed.contains { if case .failed = $0.removal { true } else { false } }
      ? .ioErr : .ok
  }

  /// `mn doc check`: 65 when one of the files is not valid Automerge.
  static func status(ofCheckedFiles invalid: Int) -> ExitStatus {
    invalid == 0 ? .ok : .dataErr
  }
}
