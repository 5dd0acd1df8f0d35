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

  /// Writes `bytes` to `path` atomically.
  ///
  /// - Parameters:
  ///   - bytes: The new content.
  ///   - path: The absolute path of the target; its directory must exist.
  ///   - fileSystem: Where to write.
  ///   - permissions: The mode for a new file; an existing target's mode is kept.
  ///   - random: Supplies the random part of the temporary's name (six characters).
  /// - Throws: `FileSystemError`; the target is unchanged and no temporary remains.
  public static func write(
    _ bytes: [UInt8], to path: String, fileSystem: any FileSystem, permissions: UInt32 = 0o644,
    random: () -> String = AtomicFile.randomSuffix
  ) throws {
    let (directory, name) = Paths.split(path)
    let mode = (try fileSystem.infoFollowingLinks(path))?.permissions ?? permissions
    var attempt = 0
    var temporary = ""
    var fd = FileDescriptor(rawValue: -1)
    while true {
      temporary = Paths.join(directory, temporaryName(for: name, random: random()))
      do {
        fd = try fileSystem.createExclusive(temporary, permissions: mode)
        break
      } catch let error as FileSystemError where error.errno == .fileExists && attempt < 16 {
        attempt += 1
      }
    }
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
      try fileSystem.setPermissions(temporary, mode)
      try fileSystem.rename(temporary, to: path)
    } catch {
      try? fileSystem.removeFile(temporary)
      throw error
    }
    try fileSystem.syncDirectory(directory)
  }

  /// Six random characters from `[a-z0-9]`, from the system's random generator.
  public static func randomSuffix() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<6).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
  }
}
