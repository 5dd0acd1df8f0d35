/// Atomic replacement of a file, following the data folder's protocol (mn.md §6).
///
/// The bytes go to a temporary `.NAME.mn-XXXXXX.nosync` in the target's directory, which is
/// fsynced, closed and renamed over the target; then the directory is fsynced. Readers see
/// the old file or the new one, never a mix. Every failure path removes the temporary.
public enum AtomicFile {
  /// The number of names tried when a temporary name is already taken.
  static let attempts = 16

  /// Writes `bytes` to `path` atomically.
  ///
  /// - Parameters:
  ///   - bytes: the new content.
  ///   - path: the target, absolute; its directory must exist.
  ///   - fileSystem: where to write.
  ///   - permissions: the mode for a new file; an existing target keeps its own mode.
  ///     Defaults to 0o644.
  ///   - randomSuffix: returns the `XXXXXX` part of the temporary name; called again when
  ///     a name is taken.
  /// - Throws: `FileSystemError` from the failing call.
  public static func write(
    _ bytes: [UInt8], to path: String, fileSystem: FileSystem, permissions: UInt32? = nil,
    randomSuffix: () -> String
  ) throws {
    let existing = try fileSystem.infoFollowingLinks(path)
    let mode = existing.map { $0.permissions } ?? permissions ?? 0o644
    let (fd, temporary) = try createTemporary(
      beside: path, permissions: mode, fileSystem: fileSystem, randomSuffix: randomSuffix)
    var open = true
    do {
      try bytes.withUnsafeBytes { try fileSystem.write(fd, $0, path: temporary) }
      try fileSystem.sync(fd, path: temporary)
      open = false
      try fileSystem.close(fd, path: temporary)
      // The umask may have narrowed the mode given to open.
      if existing != nil { try fileSystem.setPermissions(temporary, mode) }
      try fileSystem.rename(temporary, to: path)
    } catch {
      if open { try? fileSystem.close(fd, path: temporary) }
      try? fileSystem.removeFile(temporary)
      throw error
    }
    try fileSystem.syncDirectory(directoryName(path))
  }

  /// Creates a new temporary file `.NAME.mn-XXXXXX.nosync` beside `path`, open for writing.
  ///
  /// - Returns: the descriptor and the temporary's path. The caller closes the descriptor
  ///   and renames or removes the file.
  /// - Throws: `FileSystemError` from `createExclusive` (after `attempts` taken names, the
  ///   last `EEXIST`).
  public static func createTemporary(
    beside path: String, permissions: UInt32, fileSystem: FileSystem, randomSuffix: () -> String
  ) throws -> (FileDescriptor, String) {
    let directory = directoryName(path)
    let name = baseName(path)
    var lastError: Error = FileSystemError("create", path, .fileExists)
    for _ in 0..<attempts {
      let temporary = joinPath(directory, ".\(name).mn-\(randomSuffix()).nosync")
      do {
        return (try fileSystem.createExclusive(temporary, permissions: permissions), temporary)
      } catch let error as FileSystemError where error.errno == .fileExists {
        lastError = error
      }
    }
    throw lastError
  }

  /// Whether `name` (a file name, not a path) has the shape of an mn temporary.
  public static func isTemporaryName(_ name: String) -> Bool {
    name.hasPrefix(".") && name.hasSuffix(".nosync") && name.contains(".mn-")
  }

  /// The directory part of a path ("/" for "/x", "." for "x").
  static func directoryName(_ path: String) -> String {
    let bytes = Array(path.utf8)
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    if slash == 0 { return "/" }
    return String(decoding: bytes[..<slash], as: UTF8.self)
  }

  /// The last component of a path.
  static func baseName(_ path: String) -> String {
    let bytes = Array(path.utf8)
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return path }
    return String(decoding: bytes[(slash + 1)...], as: UTF8.self)
  }

  /// `directory/name`, without doubling a slash.
  static func joinPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }
}
