import Platform

/// Verified backup archives, written before `merge-conflicts`, `migrate` and `restore`
/// remove or replace anything (mn.md §8).
///
/// A backup is a `tar.gz` written by `Exporter` (placeholders listed as missing, unreadable
/// documents still saved), read back and checked before `make` returns. Backups live
/// outside every data folder; only `BackupCatalog.prune` (`mn backups prune`) deletes them.
public enum Backup {
  /// A finished backup.
  public struct Result: Sendable, Equatable {
    /// The backup archive's absolute path.
    public var path: AbsolutePath
    public var summary: ExportSummary
  }

  /// Writes a verified backup archive of `files` into `directory`.
  ///
  /// The name is `minuta-backup-YYYYMMDD-HHMMSS-<reason>.tar.gz` (UTC), with `-2`, `-3`, ...
  /// before the extension when taken. The directory (and its parents) are created with
  /// mode 0o700, the archive with 0o600.
  ///
  /// - Parameters:
  ///   - files: what to save (for several folders, prefix each folder's files with
  ///     `ExportFile.prefixed(by:)`).
  ///   - source: recorded as the manifest's `source` (the root, or roots).
  ///   - reason: a short word for the name (`merge-conflicts`, `migrate`, `restore`);
  ///     anything but letters, digits and `-` becomes `-`.
  ///   - directory: the backup directory, absolute (`$MN_BACKUP_DIR`, or the state dir).
  ///   - dataRoots: the data folders involved; a backup directory inside one is refused.
  ///   - version: the tool's version for the manifest.
  ///   - now: seconds since the epoch.
  ///   - fileSystem: where to read and write.
  ///   - inspect: reads a document's change count and heads; nil leaves them out.
  ///   - random: the `XXXXXX` of the temporary name.
  /// - Returns: the archive's path and the export summary.
  /// - Throws: `ArchiveError.backupInsideDataFolder`, `.cannotCreateOutput` when the
  ///   directory cannot be created, or any error of `Exporter.export`.
  public static func make(
    files: [ExportFile], source: String, reason: String, directory: AbsolutePath,
    dataRoots: [AbsolutePath],
    version: String, now: Int64, fileSystem: FileSystem, inspect: DocumentInspector?,
    random: () -> String = AtomicFile.randomSuffix
  ) throws(ArchiveError) -> Result {
    try checkOutside(directory: directory, roots: dataRoots, fileSystem: fileSystem)
    try ArchiveError.makeDirectories(directory, permissions: 0o700, fileSystem: fileSystem)
    let path = try uniquePath(
      directory: directory,
      stem: "minuta-backup-\(UTCDateTime(secondsSinceEpoch: now).compact)-\(sanitized(reason))",
      fileSystem: fileSystem)
    let options = ExportOptions(
      format: .tarGz, version: version, verify: true, allowPlaceholders: true,
      includeUnreadableDocuments: true, permissions: 0o600)
    let summary = try Exporter.export(
      root: source, files: files, output: .file(path), options: options, now: now,
      fileSystem: fileSystem, inspect: inspect, random: random)
    return Result(path: path, summary: summary)
  }

  /// `reason` with every character but ASCII letters, digits and `-` replaced by `-`.
  static func sanitized(_ reason: String) -> String {
    let mapped = reason.unicodeScalars.map { scalar -> Character in
      scalar.isASCII
        && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-")
        ? Character(scalar) : "-"
    }
    let text = String(mapped)
    return text.isEmpty ? "backup" : text
  }

  /// The first free `stem.tar.gz`, `stem-2.tar.gz`, ... in `directory`.
  static func uniquePath(directory: AbsolutePath, stem: String, fileSystem: FileSystem)
    throws(ArchiveError)
    -> AbsolutePath
  {
    var attempt = 1
    while true {
      let name = attempt == 1 ? "\(stem).tar.gz" : "\(stem)-\(attempt).tar.gz"
      let candidate = directory.appending(name)
      let path = candidate.string
      do {
        if try fileSystem.info(candidate) == nil { return candidate }
      } catch let error as FileSystemError {
        throw .cannotCreateOutput(path: path, error)
      } catch {
        throw .writeFailed(path: path, detail: "\(error)")
      }
      attempt += 1
      if attempt > 10_000 {
        throw .cannotCreateOutput(path: path, FileSystemError("create", path, .fileExists))
      }
    }
  }

  /// Refuses a backup directory equal to or inside any of `roots`, comparing both the
  /// paths as given and with links resolved (for a directory not yet created: its nearest
  /// existing ancestor, resolved, plus the rest).
  static func checkOutside(
    directory: AbsolutePath, roots: [AbsolutePath], fileSystem: FileSystem
  ) throws(ArchiveError) {
    let resolvedDirectory = directory.resolvingLinks(fileSystem)
    for root in roots {
      let resolvedRoot = root.resolvingLinks(fileSystem)
      for (d, r) in [(directory.normalized, root.normalized), (resolvedDirectory, resolvedRoot)] {
        if d.isInside(r) {
          throw .backupInsideDataFolder(backupDirectory: directory.string, root: root.string)
        }
      }
    }
  }
}
