extension AtomicFile {
  /// Creates a new temporary `.NAME.mn-XXXXXX.nosync` beside `path`, open for writing, for
  /// output that is streamed rather than held in memory (archives).
  ///
  /// - Parameters:
  ///   - path: the eventual target, absolute.
  ///   - permissions: the temporary's mode (before the umask).
  ///   - fileSystem: where to create it.
  ///   - random: supplies the random part of the name; called again when a name is taken.
  /// - Returns: the descriptor and the temporary's path. The caller writes, fsyncs and
  ///   closes it, then renames it over `path` or removes it.
  /// - Throws: `FileSystemError` from `createExclusive` (after 16 taken names, `EEXIST`).
  public static func createTemporary(
    beside path: AbsolutePath, permissions: FilePermissions, fileSystem: any FileSystem,
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> (FileDescriptor, AbsolutePath) {
    let (directory, name) = (path.parent, path.lastComponent)
    var attempt = 0
    while true {
      let temporary = directory.appending(temporaryName(for: name, random: random()))
      do {
        return (try fileSystem.createExclusive(temporary, permissions: permissions), temporary)
      } catch let error as FileSystemError where error.errno == .fileExists && attempt < 16 {
        attempt += 1
      }
    }
  }
}
