/// Atomic replacement of a file, the data folder's write protocol (mn.md §6).
///
/// The bytes go to a temporary `.NAME.mn-XXXXXX.nosync` in the target's directory, which is
/// fsynced, renamed over the target, and then the directory is fsynced. Readers see the old
/// file or the new one, never a mix. Every failure path removes the temporary. The target's
/// permission bits are kept.
public enum AtomicFile {
  /// The suffix of every temporary that mn writes.
  public static let temporarySuffix = ".nosync"
  /// The marker between the target name and the random part of a temporary name.
  public static let temporaryMarker = ".mn-"

  /// The temporary name for `name` with a random part, e.g. `.09.automerge.mn-a1b2c3.nosync`.
  public static func temporaryName(for name: String, random: String) -> String {
    "." + name + temporaryMarker + random + temporarySuffix
  }

  /// Whether a file name is one of mn's temporaries (exactly `TemporaryFileName`'s form).
  public static func isTemporaryName(_ name: String) -> Bool {
    TemporaryFileName.target(of: name) != nil
  }

  /// Writes `bytes` to `path` atomically, with a plain rename over whatever is there.
  ///
  /// For files that only mn writes (the migration journal, the pointer file, generated
  /// docs). A document, which a sync client may replace too, goes through `Replace.replace`.
  ///
  /// - Parameters:
  ///   - bytes: The new content.
  ///   - path: The target; its directory must exist.
  ///   - fileSystem: Where to write.
  ///   - permissions: The mode for a new file; an existing target's mode is kept.
  ///   - random: Supplies the random part of the temporary's name (six characters).
  /// - Throws: `FileSystemError`; the target is unchanged and no temporary remains.
  public static func write(
    _ bytes: [UInt8], to path: AbsolutePath, fileSystem: any FileSystem,
    permissions: FilePermissions = 0o644,
    random: () -> String = AtomicFile.randomSuffix
  ) throws {
    let mode = (try fileSystem.infoFollowingLinks(path))?.permissions ?? permissions
    let temporary = try writeTemporary(
      bytes, beside: path, permissions: mode, fileSystem: fileSystem, random: random)
    try rename(temporary, over: path, fileSystem: fileSystem)
  }

  /// Renames a written temporary over `path` (removing it when that fails), then syncs the
  /// directory.
  static func rename(
    _ temporary: Temporary, over path: AbsolutePath, fileSystem: any FileSystem
  ) throws {
    do {
      try fileSystem.rename(temporary.path, to: path)
    } catch {
      try? fileSystem.removeFile(temporary.path)
      throw error
    }
    try fileSystem.syncDirectory(path.parent)
  }

  /// A temporary written, synced and closed, ready to be put in place.
  public struct Temporary: Sendable, Equatable {
    /// Its path, `.NAME.mn-XXXXXX.nosync` beside the target.
    public var path: AbsolutePath
    /// Its `lstat` information once written (a rename keeps it: the placed file's identity).
    public var info: FileInfo
  }

  /// Writes `bytes` to a new temporary beside `path`: created exclusively, written, fsynced,
  /// closed, given `permissions`.
  ///
  /// - Throws: `FileSystemError`; no temporary remains.
  public static func writeTemporary(
    _ bytes: [UInt8], beside path: AbsolutePath, permissions: FilePermissions,
    fileSystem: any FileSystem,
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> Temporary {
    let (fd, temporary) = try createTemporary(
      beside: path, permissions: permissions, fileSystem: fileSystem, random: random)
    do {
      try bytes.withUnsafeBytes { try fileSystem.write(fd, $0, path: temporary) }
      try fileSystem.sync(fd, path: temporary)
    } catch {
      try? fileSystem.close(fd, path: temporary)
      try? fileSystem.removeFile(temporary)
      throw error
    }
    do {
      try fileSystem.close(fd, path: temporary)
      try fileSystem.setPermissions(temporary, permissions)
      guard let info = try fileSystem.info(temporary) else {
        throw FileSystemError("stat", temporary, .noSuchFileOrDirectory)
      }
      return Temporary(path: temporary, info: info)
    } catch {
      try? fileSystem.removeFile(temporary)
      throw error
    }
  }

  /// Six random characters from `[a-z0-9]`, from the system's random generator.
  public static func randomSuffix() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<6).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
  }
}
