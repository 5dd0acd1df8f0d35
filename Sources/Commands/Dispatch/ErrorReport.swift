import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// Turns any error into an exit status, a one-line message and detail lines (style.md (c)).
///
/// This is the only place that decides exit statuses: Core's typed errors and the verbs'
/// `CommandError` say what went wrong, and each kind is mapped here to mn.md §11's status
/// (and to the statuses of the items a report lists as failed: `status(of:)`). Every error
/// type of mn conforms to `ReportableError` (ErrorReport+Conformances.swift, checked by
/// `ErrorReportTests`), so only an error mn does not know, a genuine bug, is a 70.
enum ErrorReport {
  /// An exit status, a message and the detail lines below it.
  typealias Described = (status: ExitStatus, message: String, details: [String])

  static func describe(_ error: any Error) -> (ExitStatus, String, [String]) {
    guard let known = error as? any ReportableError else {
      return (.software, "internal error: \(error)", ["this is a bug in mn; please report it"])
    }
    let described = known.described
    return (described.status, described.message, described.details)
  }

  /// The exit status, message and details of a verb's own error.
  static func command(_ e: CommandError) -> (ExitStatus, String, [String]) {
    switch e {
    case .nothingToRun(let verb): return (.software, "'\(verb)' has nothing to run", [])
    case .noSuchDocument(let name): return (.noInput, "no such document '\(name)'", [])
    case .noSuchFile(let name): return (.noInput, "no such file '\(name)'", [])
    case .noSuchArchive(let name): return (.noInput, "no such archive '\(name)'", [])
    case .notDownloaded(let name):
      return (.unavailable, "'\(name)' is not downloaded", ["hint: run 'mn fetch \(name)' first"])
    case .notAutomerge(let name, let error):
      return (.dataErr, "'\(name)' is not a valid Automerge file: \(error)", [])
    case .notSaved(let name, let error):
      let (status, message, details) = error.described
      return (status, "'\(name)': \(message)", details)
    case .mergeIncomplete:
      return (.software, "the merge does not hold every input change; nothing written", [])
    case .homeNotSet: return (.noInput, "HOME is not set", [])
    case .dataFolderMissing(let path): return (.noInput, "data folder '\(path)' does not exist", [])
    case .noDataFolder:
      return (
        .noInput, "no data folder found",
        ["hint: use --root PATH or MINUTA_STORAGE, or see 'mn resolve --explain'"]
      )
    case .noRestoreDestination:
      return (
        .noInput, "no data folder found",
        ["hint: name the destination with --to DIR (it is created when missing)"]
      )
    case .confirmationUnavailable:
      return (
        .usage, "refusing to migrate without confirmation (standard input is not a terminal)",
        ["hint: check the plan with --dry-run, then rerun with --yes"]
      )
    case .noBackupDirectory:
      return (.cantCreate, "no backup directory: set MN_BACKUP_DIR or HOME", [])
    case .incompleteFolder(let paths):
      return (
        .unavailable, "the data folder is incomplete: \(paths.count) file(s) not downloaded",
        paths.map { "  \($0)" } + [
          "hint: download them first, or use --allow-placeholders to export without them"
        ]
      )
    case .outputNotWritten(let error): return (.ioErr, "\(error)", [])
    case .archiveToTerminal:
      return (
        .usage, "refusing to write an archive to a terminal",
        ["hint: redirect standard output, or write a file with -o FILE"]
      )
    case .archiveInsideDataFolder(let root):
      return (
        .cantCreate, "refusing to write the archive inside the data folder '\(root)'",
        ["hint: write it elsewhere with -o FILE"]
      )
    case .outputInsideDataFolder(let path, let folder):
      return (
        .cantCreate,
        "refusing to write '\(path)' inside the data folder '\(folder)' (mn doc takes no lock)",
        [
          "hint: 'mn merge-conflicts' merges a document's conflict copies into it under the lock, "
            + "'mn restore' brings documents back from an archive, and 'mn compact' rewrites them as one chunk; or write the merge "
            + "elsewhere with -o FILE"
        ]
      )
    }
  }

  /// The exit status of an archive error (mn.md §11).
  static func status(of error: ArchiveError) -> ExitStatus {
    switch error {
    case .placeholdersPresent, .libraryUnavailable: return .unavailable
    case .cannotCreateOutput, .backupInsideDataFolder, .destinationConflict: return .cantCreate
    case .io, .sourceChanged, .writeFailed: return .ioErr
    // Two export entries with one path: the caller built the list wrong, a genuine bug.
    case .invalidExportPath: return .software
    case .unreadableDocument, .corruptArchive, .absolutePath, .parentComponent, .invalidPath,
      .symbolicLink, .hardLink, .specialFile, .duplicateEntry, .entryTooLarge, .archiveTooLarge,
      .notUnderTopFolder, .emptyArchive, .invalidManifest, .missingManifest, .manifestMismatch,
      .mergeFailed:
      return .dataErr
    }
  }

  /// The exit status, message and details of a migration that did not start or finish.
  static func migration(_ e: MigrationError) -> (ExitStatus, String, [String]) {
    let rerun =
      "hint: rerun 'mn migrate' to finish; the journal in the destination records the progress"
    switch e {
    case .noDefaultFolder: return (.usage, "HOME is not set", ["hint: give --from and --to"])
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
    // A document over the size limit is refused for what it is, not an I/O failure.
    case .fileTooLarge where error.operation == "read" || error.operation == "open":
      return .dataErr
    // A dataless file read while materialization is off (mn.md §15).
    case .deadlock: return .unavailable
    case .permissionDenied, .notPermitted, .readOnlyFileSystem, .fileExists, .isDirectory:
      return error.operation == "open" || error.operation == "read" ? .noInput : .cantCreate
    default: return .ioErr
    }
  }
}
