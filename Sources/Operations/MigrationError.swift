import Platform

/// Why a migration (mn.md §7) did not start or did not finish.
///
/// Every case before `stepFailed` is raised before anything is changed. `stepFailed`,
/// `verificationFailed` and `sourceChanging` stop a run part-way: every change is then still
/// in the source, the destination or both, and a rerun resumes.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
  /// The destination is the source, or one lies inside the other.
  case nested(source: String, destination: String)
  /// No source or destination was given and there is no default for it (the defaults
  /// live under the home folder, which is unknown).
  case noDefaultFolder
  /// An explicit `--from` that does not exist (or is not a directory).
  case noSuchSource(String)
  /// The default destination (the iCloud Drive container) does not exist.
  case noSuchDestination(String)
  /// A journal in the destination records an unfinished migration from another source.
  case unfinishedMigration(journal: String, source: String, requested: String)
  /// Documents, conflict copies or files that are not downloaded (absolute paths).
  case placeholders([String])
  /// Documents or conflict copies that cannot be read or do not parse.
  case unreadable([MigrationPlan.Unreadable])
  /// Documents whose conflict copies cannot be merged (`path: reason`).
  case conflictsRefused([String])
  /// The destination cannot be created or written: nothing was moved.
  case destinationNotWritable(String, FileSystemError)
  /// A step failed part-way: `done` of `total` documents were finished before it.
  case stepFailed(name: String, done: Int, total: Int, underlying: any Error)
  /// A written document did not read back holding every change; its source was kept.
  case verificationFailed(String)
  /// A source document kept changing while it was being migrated; it was kept.
  case sourceChanging(String)

  public var description: String {
    switch self {
    case .nested(let source, let destination):
      if source == destination {
        return "the source and the destination are the same folder '\(source)'"
      }
      return "the destination '\(destination)' and the source '\(source)' lie inside one another"
    case .noDefaultFolder: return "no folder given, and no default folder"
    case .noSuchSource(let path): return "no such data folder '\(path)'"
    case .noSuchDestination(let path):
      return "the iCloud Drive container '\(path)' does not exist"
    case .unfinishedMigration(let journal, let source, _):
      return "an unfinished migration from '\(source)' is recorded in '\(journal)'"
    case .placeholders(let paths):
      return "\(paths.count) \(paths.count == 1 ? "file is" : "files are") not downloaded"
    case .unreadable(let files):
      return "\(files.count) \(files.count == 1 ? "document is" : "documents are") unreadable"
    case .conflictsRefused(let documents):
      let what = documents.count == 1 ? "document's copies" : "documents' copies"
      return "\(documents.count) \(what) cannot be merged"
    case .destinationNotWritable(let path, let error):
      return "cannot write to the destination '\(path)': \(error.errno)"
    case .stepFailed(let name, _, _, let underlying):
      return "migration stopped at '\(name)': \(underlying)"
    case .verificationFailed(let name):
      return "'\(name)' does not hold every change after writing; its source was kept"
    case .sourceChanging(let name):
      return "'\(name)' in the source kept changing while it was migrated; it was kept"
    }
  }
}
