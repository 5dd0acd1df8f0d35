import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

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
    case let e as BackupCatalogError:
      switch e {
      case .cannotList(let inner): return (status(of: inner), e.description, [])
      case .lock(let inner): return describe(inner)
      }
    case let e as AutomergeDecodeError:
      return (.dataErr, "invalid Automerge data: \(e)", [])
    case let e as AutomergeMergeError:
      return (.dataErr, e.description, [])
    case let e as ConflictMergeError:
      return (.software, e.description, ["this is a bug in mn or a failing disk; please report it"])
    case let e as MaterializeError:
      return (.dataErr, "cannot materialize the document: \(e)", [])
    case let e as StorageError:
      switch e {
      case .outsideRoot, .invalidPath: return (.usage, e.description, [])
      case .noSuchFolder: return (.noInput, e.description, [])
      default: return (.dataErr, e.description, [])
      }
    case let e as MigrationError:
      return migration(e)
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

  /// The exit status, message and details of a migration that did not start or finish.
  static func migration(_ e: MigrationError) -> (ExitStatus, String, [String]) {
    let rerun =
      "hint: rerun 'mn migrate' to finish; the journal in the destination records the progress"
    switch e {
    case .nested, .unfinishedMigration:
      var details: [String] = []
      if case .unfinishedMigration(_, let source, _) = e {
        details = ["hint: finish it first with 'mn migrate --from \(shellQuoted(source))'"]
      }
      return (.usage, e.description, details)
    case .noSuchSource: return (.noInput, e.description, [])
    case .noSuchDestination:
      return (
        .noInput, e.description,
        ["hint: turn on iCloud Drive for Minuta, or choose a folder with --to DIR"]
      )
    case .placeholders(let paths):
      return (
        .unavailable, e.description,
        listed(paths.map { "not downloaded: \($0)" }) + [
          "hint: download them first ('mn fetch'), then rerun"
        ]
      )
    case .unreadable(let files):
      return (
        .dataErr, e.description,
        listed(files.map(\.description)) + [
          "hint: nothing was changed; restore or repair them first"
        ]
      )
    case .conflictsRefused(let documents):
      return (
        .dataErr, e.description,
        listed(documents) + ["hint: nothing was changed; see 'mn merge-conflicts --dry-run'"]
      )
    case .destinationNotWritable(_, let error):
      return (.cantCreate, e.description, ["nothing was moved (\(error))"])
    case .stepFailed(_, let done, let total, let underlying):
      let (status, _, _) = describe(underlying)
      return (
        status == .software ? .ioErr : status, e.description,
        ["\(done) of \(total) documents were done before; no change was lost", rerun]
      )
    case .verificationFailed: return (.ioErr, e.description, [rerun])
    case .sourceChanging: return (.tempFail, e.description, [rerun])
    }
  }

  /// `text` in single quotes for a shell, as a hint to copy.
  static func shellQuoted(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
      + "'"
  }

  /// At most 20 lines, then how many more.
  static func listed(_ lines: [String]) -> [String] {
    lines.count <= 20
      ? lines.map { "  " + $0 }
      : lines.prefix(20).map { "  " + $0 } + ["  … and \(lines.count - 20) more"]
  }

  /// The exit status for a failed system call.
  static func status(of error: FileSystemError) -> ExitStatus {
    switch error.errno {
    case .noSuchFileOrDirectory, .notDirectory: return .noInput
    // A dataless file read while materialization is off (mn.md §15).
    case .deadlock: return .unavailable
    case .permissionDenied, .notPermitted, .readOnlyFileSystem, .fileExists, .isDirectory:
      return error.operation == "open" || error.operation == "read" ? .noInput : .cantCreate
    default: return .ioErr
    }
  }
}
