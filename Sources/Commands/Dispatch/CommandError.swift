import AutomergeCodec

/// What went wrong in a verb, outside Core: each case says what failed and carries its
/// subject; `ErrorReport` decides its exit status and words it (style.md (c)).
public enum CommandError: Error, Sendable {
  /// The command table names a verb that has no `run` (a bug in the table).
  case nothingToRun(verb: String)
  /// A `PATH` argument selects no document (`ls`, `fetch`, `merge-conflicts`, `repair`).
  case noSuchDocument(String)
  /// A file argument of `mn doc` does not exist.
  case noSuchFile(String)
  /// An archive argument of `mn backups verify` does not exist.
  case noSuchArchive(String)
  /// `mn diff PATH`: the document is not downloaded (only a placeholder is present).
  case notDownloaded(String)
  /// A file argument of `mn doc` is not valid Automerge.
  case notAutomerge(name: String, any Error)
  /// `mn doc save`: a valid file that one document chunk cannot hold, or a save that did
  /// not read back.
  case notSaved(name: String, AutomergeSaveError)
  /// `mn doc merge`: the merge read back does not hold every input change.
  case mergeIncomplete
  /// `mn resolve --icloud` or `--local` needs `HOME`, which is not set.
  case homeNotSet
  /// The data folder named by `--root` or `MINUTA_STORAGE` does not exist.
  case dataFolderMissing(String)
  /// Discovery found no data folder.
  case noDataFolder
  /// `mn restore` found no data folder and was given no `--to`.
  case noRestoreDestination
  /// `mn migrate` without `--yes`, standard input not a terminal: nobody to ask.
  case confirmationUnavailable
  /// Neither `MN_BACKUP_DIR` nor `HOME` gives a backup directory.
  case noBackupDirectory
  /// `mn export`: placeholders in the folder, `--allow-placeholders` not given.
  case incompleteFolder([String])
  /// `mn export -o -` with standard output on a terminal.
  case archiveToTerminal
  /// `mn export -o FILE` inside the data folder `root`.
  case archiveInsideDataFolder(root: String)
  /// `mn doc merge -o PATH` or `mn doc save -o PATH` inside (or as) the data folder `folder`
  /// or one that looks like one: plumbing takes no lock and makes no exchange.
  case outputInsideDataFolder(path: String, folder: String)
  /// Standard output could not be written at the end of the run (a full disk, a closed pipe).
  case outputNotWritten(any Error)
}
