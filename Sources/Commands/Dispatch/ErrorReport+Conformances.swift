import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// An error whose exit status and words mn knows (mn.md §11, style.md (c)).
///
/// Every error type of mn's libraries and of the verbs conforms, here, in one file:
/// `ErrorReport.describe` turns a conforming error into its status, and anything else into
/// 70, "a bug". `ErrorReportTests` fails when a library declares an error type that does not
/// conform, and checks that `statuses` holds every status `described` gives, which is what
/// a verb that surfaces the type must list in its `exits:` (`CommandTableTests`).
protocol ReportableError: Error {
  /// The exit status, the message and the detail lines.
  var described: ErrorReport.Described { get }
  /// Every status `described` can give.
  static var statuses: Set<ExitStatus> { get }
}

extension UsageError: ReportableError {
  var described: ErrorReport.Described {
    let verb = path.isEmpty ? "" : " " + path.joined(separator: " ")
    return (.usage, message, ["see 'mn\(verb) --help'"])
  }
  static let statuses: Set<ExitStatus> = [.usage]
}

extension CommandError: ReportableError {
  var described: ErrorReport.Described { ErrorReport.command(self) }
  static let statuses: Set<ExitStatus> = [
    .software, .noInput, .dataErr, .usage, .cantCreate, .unavailable, .ioErr,
  ]
}

extension LockError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .held:
      return (.tempFail, description, ["hint: retry later, or wait longer with --wait SECONDS"])
    case .fileSystem(let inner): return inner.described
    }
  }
  static let statuses: Set<ExitStatus> = FileSystemError.statuses.union([.tempFail])
}

extension FileSystemError: ReportableError {
  var described: ErrorReport.Described { (ErrorReport.status(of: self), description, []) }
  static let statuses: Set<ExitStatus> = [.noInput, .unavailable, .cantCreate, .dataErr, .ioErr]
}

extension Errno: ReportableError {
  var described: ErrorReport.Described { (.ioErr, description, []) }
  static let statuses: Set<ExitStatus> = [.ioErr]
}

extension BackupCatalogError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .cannotList(let inner): return (ErrorReport.status(of: inner), description, [])
    case .lock(let inner): return inner.described
    }
  }
  static let statuses: Set<ExitStatus> = LockError.statuses
}

extension AutomergeDecodeError: ReportableError {
  var described: ErrorReport.Described { (.dataErr, "invalid Automerge data: \(self)", []) }
  static let statuses: Set<ExitStatus> = [.dataErr]
}

extension AutomergeMergeError: ReportableError {
  var described: ErrorReport.Described { (.dataErr, description, []) }
  static let statuses: Set<ExitStatus> = [.dataErr]
}

extension MaterializeError: ReportableError {
  var described: ErrorReport.Described {
    (.dataErr, "cannot materialize the document: \(self)", [])
  }
  static let statuses: Set<ExitStatus> = [.dataErr]
}

extension JSONParseError: ReportableError {
  var described: ErrorReport.Described { (.dataErr, description, []) }
  static let statuses: Set<ExitStatus> = [.dataErr]
}

extension BinaryPlistError: ReportableError {
  var described: ErrorReport.Described { (.dataErr, description, []) }
  static let statuses: Set<ExitStatus> = [.dataErr]
}

extension ConflictMergeError: ReportableError {
  /// The file read back after the write does not hold what was written: the disk failed
  /// (or mn did); the copies are kept.
  var described: ErrorReport.Described {
    (.ioErr, description, ["the copies are kept; check the disk, then run the command again"])
  }
  static let statuses: Set<ExitStatus> = [.ioErr]
}

extension ConflictCopyProblem: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .notDownloaded: return (.unavailable, description, [])
    case .notAutomerge: return (.dataErr, description, [])
    case .cannotRead(let error), .cannotRemove(let error):
      return (ErrorReport.status(of: error), description, [])
    case .changedDuringRun: return (.tempFail, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = FileSystemError.statuses.union([
    .unavailable, .dataErr, .tempFail,
  ])
}

extension VersionProblem: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .notAutomerge: return (.dataErr, description, [])
    case .cannotRead, .cannotResolve: return (.ioErr, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = [.dataErr, .ioErr]
}

extension DocumentReplace.ReadFailure: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .absent: return (.noInput, "no such document", [])
    case .notRegularFile(let kind): return (.dataErr, "the document is \(kind.article)", [])
    case .notDownloaded(let error): return (.unavailable, "not downloaded: \(error)", [])
    case .cannotRead(let error): return error.described
    case .notAutomerge(let error): return error.described
    }
  }
  static let statuses: Set<ExitStatus> = FileSystemError.statuses.union([
    .noInput, .dataErr, .unavailable,
  ])
}

extension ReplaceError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .notRegularFile, .arrivalNotMergeable: return (.dataErr, description, [])
    // Another writer (a sync client) kept replacing the file: retrying may work.
    case .keepsChanging: return (.tempFail, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = [.dataErr, .tempFail]
}

extension RepairError: ReportableError {
  /// The repaired file does not read back: the disk failed; the damaged file is backed up.
  var described: ErrorReport.Described { (.ioErr, description, []) }
  static let statuses: Set<ExitStatus> = [.ioErr]
}

extension DocumentToolsError: ReportableError {
  /// A merge in memory lost a change before anything was written: an invariant broke.
  var described: ErrorReport.Described {
    (.software, description, ["this is a bug in mn; please report it"])
  }
  static let statuses: Set<ExitStatus> = [.software]
}

extension SyncProviderError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .failed: return (.ioErr, description, [])
    case .unavailable: return (.unavailable, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = [.ioErr, .unavailable]
}

extension ChangeNotifierError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .systemCall: return (.ioErr, description, [])
    case .unsupported: return (.unavailable, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = [.ioErr, .unavailable]
}

extension StorageError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .outsideRoot, .invalidPath: return (.usage, description, [])
    case .noSuchFolder: return (.noInput, description, [])
    case .notADirectory, .cannotReadDirectory, .cannotReadEntry, .documentIsDirectory,
      .symbolicLink, .unsupportedFileType, .tooDeep, .notDownloadedDirectory, .equivalentNames:
      return (.dataErr, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = [.usage, .noInput, .dataErr]
}

extension MigrationError: ReportableError {
  var described: ErrorReport.Described { ErrorReport.migration(self) }
  /// A step that failed gives its cause's status (70 becomes 74): any but 70.
  static let statuses: Set<ExitStatus> = Set(ExitStatus.allCases).subtracting([
    .ok, .negative, .software, .interrupted,
  ])
}

extension FetchError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .sourceNotFound, .sourceNotUsable: return (.noInput, description, [])
    case .sourceIsDataFolder: return (.usage, description, [])
    }
  }
  static let statuses: Set<ExitStatus> = [.noInput, .usage]
}

extension ProcessError: ReportableError {
  var described: ErrorReport.Described { (.unavailable, description, []) }
  static let statuses: Set<ExitStatus> = [.unavailable]
}

extension ArchiveError: ReportableError {
  var described: ErrorReport.Described { (ErrorReport.status(of: self), description, []) }
  static let statuses: Set<ExitStatus> = [
    .unavailable, .cantCreate, .ioErr, .software, .dataErr,
  ]
}

extension CompactError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .verificationFailed(let path, let backup):
      return (
        .ioErr, "'\(path)' was compacted but does not read back with every change it held",
        backup.map { ["its bytes before are in the backup '\($0)' (mn restore)"] } ?? []
      )
    }
  }
  static let statuses: Set<ExitStatus> = [.ioErr]
}

extension AutomergeSaveError: ReportableError {
  var described: ErrorReport.Described {
    switch self {
    case .invalidInput, .unplaceableOp, .unrepresentablePred:
      return (.dataErr, "cannot save the document: \(self)", [])
    case .verificationFailed:
      return (.software, "\(self)", ["this is a bug in mn; please report it"])
    }
  }
  static let statuses: Set<ExitStatus> = [.dataErr, .software]
}

extension CompactOperation.Refusal: ReportableError {
  var described: ErrorReport.Described { (.dataErr, "not compacted: \(reason)", []) }
  static let statuses: Set<ExitStatus> = [.dataErr]
}
