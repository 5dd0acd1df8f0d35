import Core

/// Turns any error into an exit status, a one-line message and detail lines (style.md (c)).
///
/// This is the only place that decides exit statuses for errors; verbs throw typed errors.
enum ErrorReport {
  static func describe(_ error: any Error) -> (ExitStatus, String, [String]) {
    switch error {
    case let e as CommandError:
      return (e.status, e.message, e.details)
    case let e as LockError:
      switch e {
      case .held:
        return (.tempFail, e.description, ["hint: retry later, or wait longer with --wait SECONDS"])
      case .fileSystem(let inner): return (status(of: inner), inner.description, [])
      }
    case let e as FileSystemError:
      return (status(of: e), e.description, [])
    case let e as AutomergeDecodeError:
      return (.dataErr, "invalid Automerge data: \(e)", [])
    case let e as AutomergeMergeError:
      return (.dataErr, e.description, [])
    case let e as MaterializeError:
      return (.dataErr, "cannot materialize the document: \(e)", [])
    case let e as StorageError:
      switch e {
      case .outsideRoot, .invalidPath: return (.usage, e.description, [])
      case .noSuchFolder: return (.noInput, e.description, [])
      default: return (.dataErr, e.description, [])
      }
    case let e as FetchError:
      switch e {
      case .sourceNotFound, .sourceNotUsable: return (.noInput, e.description, [])
      case .sourceIsDataFolder: return (.usage, e.description, [])
      }
    case let e as ProcessError:
      return (.unavailable, e.description, [])
    case let e as ArchiveError:
      let status: ExitStatus
      switch e.exitCategory {
      case .unavailable: status = .unavailable
      case .cannotCreate: status = .cantCreate
      case .ioError: status = .ioErr
      case .dataError: status = .dataErr
      case .software: status = .software
      }
      return (status, e.description, [])
    default:
      return (.software, "\(error)", ["this is a bug in mn; please report it"])
    }
  }

  /// The exit status for a failed system call.
  static func status(of error: FileSystemError) -> ExitStatus {
    switch error.errno {
    case .noSuchFileOrDirectory, .notDirectory: return .noInput
    case .permissionDenied, .notPermitted, .readOnlyFileSystem, .fileExists, .isDirectory:
      return error.operation == "open" || error.operation == "read" ? .noInput : .cantCreate
    default: return .ioErr
    }
  }
}
