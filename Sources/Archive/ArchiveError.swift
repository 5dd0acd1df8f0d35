import Platform

/// What can go wrong when writing, reading, verifying or restoring an archive.
///
/// Each case carries its subject (an entry path relative to the top folder, or a file
/// path). The exit status each case calls for (noted below, mn.md §11) is decided by the
/// command layer's error report.
public enum ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
  // Writing.
  /// The folder has placeholders (not downloaded) and they were not allowed (exit 69).
  case placeholdersPresent([String])
  /// The output (or its temporary) could not be created (exit 73).
  case cannotCreateOutput(path: String, FileSystemError)
  /// A read or write failed part-way (exit 74).
  case io(FileSystemError)
  /// A source file changed size while it was being archived (exit 74).
  case sourceChanged(path: String)
  /// A document could not be read by the inspector (exit 65).
  case unreadableDocument(path: String, reason: String)
  /// libarchive refused to write (exit 70 or 74).
  case writeFailed(path: String, detail: String)
  /// Two export files share a relative path, or a path is not a clean relative path (exit 70).
  case invalidExportPath(String)

  // Reading: the archive itself.
  /// Not an archive in a readable format, truncated, or damaged (exit 65).
  case corruptArchive(detail: String)
  /// An entry's path is absolute (exit 65).
  case absolutePath(String)
  /// An entry's path has a `..` component (exit 65).
  case parentComponent(String)
  /// An entry's path is empty or unusable (exit 65).
  case invalidPath(String)
  /// An entry is a symbolic link (exit 65).
  case symbolicLink(path: String, target: String)
  /// An entry is a hard link (exit 65).
  case hardLink(path: String, target: String)
  /// An entry is a device, FIFO, socket or other non-regular file (exit 65).
  case specialFile(path: String)
  /// Two entries have the same path, or a file is also used as a directory (exit 65).
  case duplicateEntry(String)
  /// An entry is larger than the cap, or the archive holds more than the total cap (exit 65).
  case entryTooLarge(path: String, limit: Int)
  /// The archive is larger than the cap for reading (exit 65).
  case archiveTooLarge(limit: Int)
  /// An entry is not under the archive's single top folder (exit 65).
  case notUnderTopFolder(String)
  /// The archive has no entries (exit 65).
  case emptyArchive

  // Reading: the manifest.
  /// The manifest is not valid JSON or lacks required fields (exit 65).
  case invalidManifest(reason: String)
  /// No manifest where one is required (verification) (exit 65).
  case missingManifest
  /// The manifest and the entries disagree (exit 65).
  case manifestMismatch(path: String, ManifestMismatch)

  // Backups and restore.
  /// The backup directory is inside a data folder (exit 73).
  case backupInsideDataFolder(backupDirectory: String, root: String)
  /// A destination path is in the way: a directory, link or special file where a file or
  /// directory goes (exit 73).
  case destinationConflict(path: String, reason: String)
  /// The merge of an archived document into the existing one failed (exit 65).
  case mergeFailed(path: String, reason: String)

  // The library.
  /// libarchive, loaded at the first archive operation, or one of its functions cannot be
  /// found; `library` is the file name tried first (exit 69).
  case libraryUnavailable(library: String, detail: String)

  /// How a manifest disagrees with an entry.
  public enum ManifestMismatch: Sendable, Equatable {
    case size(expected: Int64, actual: Int64)
    case sha256(expected: String, actual: String)
    /// Listed in the manifest, absent from the archive.
    case missingEntry
    /// In the archive, not listed in the manifest.
    case unlistedEntry
    /// A placeholder (listed as missing) is present in the archive.
    case placeholderPresent
  }

  public var description: String {
    switch self {
    case .placeholdersPresent(let paths):
      return
        "\(paths.count) file(s) not downloaded: \(paths.map { "'\($0)'" }.joined(separator: ", "))"
    case .cannotCreateOutput(let path, let error): return "cannot create '\(path)': \(error.errno)"
    case .io(let error): return error.description
    case .sourceChanged(let path): return "'\(path)' changed while it was being archived"
    case .unreadableDocument(let path, let reason):
      return "cannot read document '\(path)': \(reason)"
    case .writeFailed(let path, let detail): return "cannot write archive '\(path)': \(detail)"
    case .invalidExportPath(let path): return "invalid path for an archive entry '\(path)'"
    case .corruptArchive(let detail): return "unreadable archive: \(detail)"
    case .absolutePath(let path): return "archive entry '\(path)' has an absolute path"
    case .parentComponent(let path): return "archive entry '\(path)' has a '..' component"
    case .invalidPath(let path): return "archive entry '\(path)' has an invalid path"
    case .symbolicLink(let path, let target):
      return "archive entry '\(path)' is a symbolic link to '\(target)'"
    case .hardLink(let path, let target):
      return "archive entry '\(path)' is a hard link to '\(target)'"
    case .specialFile(let path): return "archive entry '\(path)' is not a regular file"
    case .duplicateEntry(let path): return "archive entry '\(path)' appears more than once"
    case .entryTooLarge(let path, let limit):
      return "archive entry '\(path)' is larger than \(limit) bytes"
    case .archiveTooLarge(let limit): return "archive is larger than \(limit) bytes"
    case .notUnderTopFolder(let path):
      return "archive entry '\(path)' is not under the archive's single top folder"
    case .emptyArchive: return "archive has no entries"
    case .invalidManifest(let reason): return "invalid manifest: \(reason)"
    case .missingManifest: return "archive has no manifest '.mn-manifest.json'"
    case .manifestMismatch(let path, let mismatch):
      switch mismatch {
      case .size(let expected, let actual):
        return "'\(path)' has \(actual) bytes, the manifest says \(expected)"
      case .sha256: return "'\(path)' does not match the manifest's sha256"
      case .missingEntry: return "'\(path)' is in the manifest but not in the archive"
      case .unlistedEntry: return "'\(path)' is in the archive but not in the manifest"
      case .placeholderPresent:
        return "'\(path)' is listed as missing in the manifest but is in the archive"
      }
    case .backupInsideDataFolder(let directory, let root):
      return "backup directory '\(directory)' is inside the data folder '\(root)'"
    case .destinationConflict(let path, let reason): return "cannot restore '\(path)': \(reason)"
    case .mergeFailed(let path, let reason): return "cannot merge '\(path)': \(reason)"
    case .libraryUnavailable(let library, let detail):
      return "cannot load libarchive (\(library)): \(detail) — install \(LibArchive.package)"
    }
  }
}

extension ArchiveError {
  /// Creates the missing directories of `path` (`FileSystem.makeDirectories`); a failure is
  /// `.cannotCreateOutput(path:)`.
  public static func makeDirectories(
    _ path: AbsolutePath, permissions: FilePermissions, fileSystem: any FileSystem
  ) throws(ArchiveError) {
    do {
      try fileSystem.makeDirectories(path, permissions: permissions)
    } catch let error as FileSystemError {
      throw .cannotCreateOutput(path: path.string, error)
    } catch {
      throw .writeFailed(path: path.string, detail: "\(error)")
    }
  }
}
