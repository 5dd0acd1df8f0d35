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
