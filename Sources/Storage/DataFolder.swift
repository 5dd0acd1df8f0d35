import Platform

/// The layout of a data folder (mn.md §1): its fixed names, and how the `PATH…` arguments of
/// a command become logical names in it. Which names are documents (`tags.automerge`,
/// `records/YYYY/MM.automerge`) is `DocumentName`'s and `DocumentFolder`'s, beside it; the
/// rules of names and paths themselves are `LogicalName`'s and `AbsolutePath`'s.
public enum DataFolder {
  /// The small synced text file that records the folder's format; kept as is.
  public static let versionFileName = ".minuta-version"
  /// The lock file that writers `flock` (mn.md §6); never synced, never exported.
  public static let lockFileName = FileLock.fileName
  /// The directory of monthly records.
  public static let recordsDirectory = "records"
  /// The suffix of local-only files (iCloud never uploads them); never listed or exported.
  public static let noSyncSuffix = ".nosync"

  /// Files only a data folder holds: a directory with one of them looks like a data folder.
  public static let markerNames = [versionFileName, lockFileName, DocumentName.tags.logicalName]

  /// The data folder that `path` is inside, or would be once created: the first of `roots`
  /// that holds it, else (when `lookAlikes`) the nearest directory above it with one of the
  /// `markerNames`; nil when none.
  ///
  /// The path's directory counts as given and with its links resolved (as far as it
  /// exists), and so does each root; components are compared, never string prefixes
  /// (`/a/Minuta-test` is not inside `/a/Minuta`). Its last component is not followed: a
  /// write replaces a link there instead of writing through it.
  public static func enclosingFolder(
    of path: AbsolutePath, roots: [AbsolutePath], lookAlikes: Bool, fileSystem: any FileSystem
  ) -> AbsolutePath? {
    let given = path.normalized
    let resolved = given.parent.resolvingLinks(fileSystem).appending(given.lastComponent)
    for root in roots {
      for (p, r) in [(given, root.normalized), (resolved, root.resolvingLinks(fileSystem))]
      where p == r || p.isInside(r) {
        return root
      }
    }
    guard lookAlikes else { return nil }
    var directory = resolved.parent
    while true {
      for name in markerNames where (try? fileSystem.info(directory.appending(name))) != nil {
        return directory
      }
      guard directory != .root else { return nil }
      directory = directory.parent
    }
  }

  /// Whether a file name ends in `.nosync` (local-only by convention).
  public static func isNoSync(_ fileName: String) -> Bool {
    NameBytes.withBytes(fileName) { NameBytes.hasSuffix($0, ".nosync") }
  }

  /// The lock file of the data folder at `root`.
  public static func lockPath(root: AbsolutePath) -> AbsolutePath {
    root.appending(lockFileName)
  }

  /// Resolves one `PATH…` argument of a command to a logical name in the data folder.
  ///
  /// mn.md §1: a command accepts logical names (`records/2026/09.automerge`), paths relative
  /// to the current directory, and absolute paths inside the root; anything outside the root
  /// is an error. The rules, in order:
  ///
  /// 1. An absolute path must lie inside the root, compared component by component (as
  ///    Strings, so NFC and NFD spellings match), with `.` and `..` resolved lexically. The
  ///    root counts as given and with its links resolved (`/tmp` vs `/private/tmp`); failing
  ///    both, the path's existing parent directory is resolved through its links and tried.
  /// 2. A path starting with `./` or `../` (or exactly `.` or `..`) is relative to the
  ///    current directory, then as rule 1.
  /// 3. Any other relative path is taken relative to the current directory when that lands
  ///    inside the root and names something that exists or a document; otherwise it is a
  ///    logical name (relative to the root), which must not climb out with `..`.
  ///
  /// Whether the result names a document is for the caller (`DocumentName(logicalName:)`).
  ///
  /// - Parameters:
  ///   - argument: the path as the user typed it.
  ///   - root: the data folder.
  ///   - currentDirectory: the absolute current directory (passed in; Core never reads it).
  ///   - fileSystem: used to resolve links and test existence.
  /// - Returns: the logical name (the root for the root itself).
  /// - Throws: `StorageError.outsideRoot(argument)` or `.invalidPath(argument)`.
  public static func logicalName(
    for argument: String, root: AbsolutePath, currentDirectory: AbsolutePath,
    fileSystem: any FileSystem
  ) throws(StorageError) -> LogicalName {
    guard !argument.isEmpty, !argument.utf8.contains(0) else { throw .invalidPath(argument) }
    let roots = rootForms(root, fileSystem)
    if argument.hasPrefix("/") {
      guard let inside = inside(AbsolutePath(argument), roots, fileSystem) else {
        throw .outsideRoot(argument)
      }
      return inside
    }
    let viaCurrent = currentDirectory.appending(argument)
    let explicit =
      argument == "." || argument == ".." || argument.hasPrefix("./") || argument.hasPrefix("../")
    if explicit {
      guard let inside = inside(viaCurrent, roots, fileSystem) else { throw .outsideRoot(argument) }
      return inside
    }
    let logical = LogicalName(normalizing: argument)
    if let relative = inside(viaCurrent, roots, fileSystem) {
      if relative == logical || logical == nil || names(relative, root, fileSystem)
        || !names(logical ?? .root, root, fileSystem)
      {
        return relative
      }
    }
    guard let logical else { throw .outsideRoot(argument) }
    return logical
  }

  /// Resolves every argument, in order (`logicalName(for:…)`).
  public static func logicalNames(
    for arguments: [String], root: AbsolutePath, currentDirectory: AbsolutePath,
    fileSystem: any FileSystem
  ) throws(StorageError) -> [LogicalName] {
    var out: [LogicalName] = []
    for argument in arguments {
      out.append(
        try logicalName(
          for: argument, root: root, currentDirectory: currentDirectory, fileSystem: fileSystem))
    }
    return out
  }

  /// The root's components as given and, when different, with links resolved.
  static func rootForms(_ root: AbsolutePath, _ fileSystem: any FileSystem) -> [[Substring]] {
    var forms = [root.components]
    if let real = try? fileSystem.realPath(root) {
      let form = real.components
      if form != forms[0] { forms.append(form) }
    }
    return forms
  }

  /// The logical name of `path` when it lies inside one of `roots`.
  static func inside(_ path: AbsolutePath, _ roots: [[Substring]], _ fileSystem: any FileSystem)
    -> LogicalName?
  {
    let components = path.components
    for root in roots {
      if let rest = AbsolutePath.remainder(components, after: root) { return rest }
    }
    // Through links: resolve the parent directory (the last component may not exist yet).
    guard let last = components.last,
      let parent = try? fileSystem.realPath(path.normalized.parent)
    else { return nil }
    let resolved = parent.components + [last]
    for root in roots {
      if let rest = AbsolutePath.remainder(resolved, after: root) { return rest }
    }
    return nil
  }

  /// Whether a logical name names a document or something on disk.
  static func names(_ logical: LogicalName, _ root: AbsolutePath, _ fileSystem: any FileSystem)
    -> Bool
  {
    if DocumentName(logicalName: logical.string) != nil { return true }
    return (try? fileSystem.info(root.appending(logical))) != nil
  }
}
