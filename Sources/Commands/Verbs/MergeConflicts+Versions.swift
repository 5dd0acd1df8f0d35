import Core

extension MergeConflicts {
  /// The exit status a version report calls for (mn.md §15): 69 for a document that is not
  /// current, 65 for a version that is not Automerge, 74 for one that cannot be read or
  /// resolved.
  static func status(_ report: VersionMergeReport) -> ExitStatus {
    var found: [ExitStatus] = []
    for document in report.documents {
      switch document.refusal {
      case .none: break
      case .notDownloaded, .notCurrent: found.append(.unavailable)
      case .canonicalCannotRead(let error): found.append(ErrorReport.status(of: error))
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
    let order: [ExitStatus] = [.dataErr, .ioErr, .unavailable, .tempFail]
    return order.first { found.contains($0) } ?? .ok
  }

  /// The more serious of two statuses (the first that is not 0, by the order of `status`).
  static func worse(_ a: ExitStatus, _ b: ExitStatus) -> ExitStatus {
    if a == .ok { return b }
    if b == .ok { return a }
    let order: [ExitStatus] = [
      .interrupted, .dataErr, .ioErr, .cantCreate, .noInput, .unavailable, .tempFail,
    ]
    return order.first { $0 == a || $0 == b } ?? a
  }
}

extension MergeConflicts.Output {
  /// Renders what became of the conflict versions (iCloud `NSFileVersion`s): a line a
  /// version on stdout, problems on stderr.
  func finish(_ report: VersionMergeReport, dryRun: Bool) throws {
    for document in report.documents {
      if let refusal = document.refusal {
        try env.stderr.write(
          "mn: error: cannot merge the versions of '\(document.logicalName)': \(refusal)\n")
        continue
      }
      for item in document.versions {
        if let problem = item.problem {
          try env.stderr.write(
            "mn: error: \(describe(item.version, of: document.logicalName)): \(problem)\n")
        }
      }
    }
    guard !quiet else { return }
    for document in report.documents where document.refusal == nil {
      for item in document.versions where item.problem == nil {
        let what: String
        if dryRun {
          what = "would be merged (\(plural(item.adds, "change")) to add), then resolved"
        } else if item.resolved {
          what = "merged and resolved"
        } else {
          what = document.completed ? "merged, kept unresolved" : "not reached"
        }
        try env.stdout.write("\(describe(item.version, of: document.logicalName)): \(what)\n")
      }
    }
  }

  /// `the icloud-version of 'NAME' from DEVICE (DATE)`.
  func describe(_ version: SyncVersion, of name: String) -> String {
    var text = "the \(SyncVersion.service) of '\(name)'"
    if let device = version.device { text += " from \(device)" }
    if let date = version.date { text += " (\(date))" }
    return text
  }
}
