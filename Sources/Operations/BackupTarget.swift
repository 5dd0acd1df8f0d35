import Archive
import Platform

/// Where a workflow's verified backups go, and what their manifests say: everything
/// `Backup.make` needs but the files and the reason (mn.md §8).
///
/// The verb builds one from its environment and hands it to the workflow, which makes its
/// backup through it once it knows the files: `Backup.make` is called in this one place, and
/// the clock and the backup directory stay outside Operations.
public struct BackupTarget {
  /// Writes the archive of the files, named with the reason; returns its path.
  private let write: (_ files: [ExportFile], _ reason: String) throws -> AbsolutePath

  /// A target for a backup of one data folder.
  ///
  /// - Parameters:
  ///   - directory: The backup directory, asked for only when a backup is made: its error
  ///     (no home, a bad `MN_BACKUP_DIR`) then stops the run before any change.
  ///   - folder: The data folder: the manifest's source, and where the backup directory must
  ///     not be.
  ///   - version: The tool's version, for the manifest.
  ///   - now: Seconds since the epoch, read when a backup is made (its name and manifest).
  ///   - fileSystem: Where the files are read and the archive is written.
  ///   - random: The random part of the archive's temporary name.
  public init(
    directory: @escaping () throws -> AbsolutePath, folder: AbsolutePath, version: String,
    now: @escaping () -> Int64, fileSystem: any FileSystem,
    random: @escaping () -> String = AtomicFile.randomSuffix
  ) {
    self.init(
      directory: directory, source: folder.string, dataRoots: [folder], version: version,
      now: now, fileSystem: fileSystem, random: random)
  }

  /// A target for a backup of a migration's two folders, whose files are prefixed
  /// `source/` and `destination/`: the manifest's source is `BackupLineage.pairSource`.
  /// The other parameters are those of `init(directory:folder:version:now:fileSystem:random:)`.
  public init(
    directory: @escaping () throws -> AbsolutePath, moving source: AbsolutePath,
    to destination: AbsolutePath, version: String, now: @escaping () -> Int64,
    fileSystem: any FileSystem, random: @escaping () -> String = AtomicFile.randomSuffix
  ) {
    self.init(
      directory: directory, source: BackupLineage.pairSource(source, destination),
      dataRoots: [source, destination], version: version, now: now, fileSystem: fileSystem,
      random: random)
  }

  private init(
    directory: @escaping () throws -> AbsolutePath, source: String, dataRoots: [AbsolutePath],
    version: String, now: @escaping () -> Int64, fileSystem: any FileSystem,
    random: @escaping () -> String
  ) {
    write = { files, reason in
      try Backup.make(
        files: files, source: source, reason: reason, directory: try directory(),
        dataRoots: dataRoots, version: version, now: now(), fileSystem: fileSystem,
        inspect: DocumentTools.inspect, random: random
      ).path
    }
  }

  /// A target that hands the files to `writing` instead (tests count and fail backups so).
  public init(
    writing: @escaping (_ files: [ExportFile], _ reason: String) throws -> AbsolutePath
  ) {
    write = writing
  }

  /// Writes a verified backup archive of `files`, named with `reason` (`Backup.make`).
  ///
  /// - Parameters:
  ///   - files: What to save, relative to the source (or prefixed per folder).
  ///   - reason: A short word for the archive's name: the verb, or one of `watch`'s.
  /// - Returns: The archive's path.
  /// - Throws: The directory's error, or `ArchiveError` from `Backup.make`.
  public func make(_ files: [ExportFile], reason: String) throws -> AbsolutePath {
    try write(files, reason)
  }
}
