import Platform

/// Resolves the `PATH…` arguments of a command to logical paths in the data folder.
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
/// The result is a logical path: `""` for the root itself, no `.`, `..` or trailing `/`.
/// Whether it names a document is for the caller (`DocumentName(logicalName:)`).
public enum FolderPaths {
  /// Resolves one argument.
  ///
  /// - Parameters:
  ///   - argument: the path as the user typed it.
  ///   - root: absolute path of the data folder.
  ///   - currentDirectory: the absolute current directory (passed in; no library target reads it).
  ///   - fileSystem: used to resolve links and test existence.
  /// - Returns: the logical path.
  /// - Throws: `StorageError.outsideRoot(argument)` or `.invalidPath(argument)`.
  public static func logicalPath(
    for argument: String, root: String, currentDirectory: String, fileSystem: any FileSystem
  ) throws(StorageError) -> String {
    guard !argument.isEmpty, !argument.utf8.contains(0) else { throw .invalidPath(argument) }
    let roots = rootForms(root, fileSystem)
    if argument.hasPrefix("/") {
      guard let inside = inside(argument, roots, fileSystem) else { throw .outsideRoot(argument) }
      return inside
    }
    let viaCurrent =
      currentDirectory.hasSuffix("/")
      ? currentDirectory + argument : currentDirectory + "/" + argument
    let explicit =
      argument == "." || argument == ".." || argument.hasPrefix("./") || argument.hasPrefix("../")
    if explicit {
      guard let inside = inside(viaCurrent, roots, fileSystem) else { throw .outsideRoot(argument) }
      return inside
    }
    let logical = PathComponents.normalizedRelative(argument).map { PathComponents.join($0) }
    if let relative = inside(viaCurrent, roots, fileSystem) {
      if relative == logical || logical == nil || names(relative, root, fileSystem)
        || !names(logical ?? "", root, fileSystem)
      {
        return relative
      }
    }
    guard let logical else { throw .outsideRoot(argument) }
    return logical
  }

  /// Resolves every argument, in order.
  public static func logicalPaths(
    for arguments: [String], root: String, currentDirectory: String, fileSystem: any FileSystem
  ) throws(StorageError) -> [String] {
    var out: [String] = []
    for argument in arguments {
      out.append(
        try logicalPath(
          for: argument, root: root, currentDirectory: currentDirectory, fileSystem: fileSystem))
    }
    return out
  }

  /// The root's components as given and, when different, with links resolved.
  static func rootForms(_ root: String, _ fileSystem: any FileSystem) -> [[Substring]] {
    var forms = [PathComponents.normalizedAbsolute(root)]
    if let real = try? fileSystem.realPath(root) {
      let form = PathComponents.normalizedAbsolute(real)
      if form != forms[0] { forms.append(form) }
    }
    return forms
  }

  /// The logical path of the absolute `path` when it lies inside one of `roots`.
  static func inside(_ path: String, _ roots: [[Substring]], _ fileSystem: any FileSystem)
    -> String?
  {
    let components = PathComponents.normalizedAbsolute(path)
    for root in roots {
      if let rest = PathComponents.remainder(components, after: root) {
        return PathComponents.join(rest)
      }
    }
    // Through links: resolve the parent directory (the last component may not exist yet).
    guard let last = components.last,
      let parent = try? fileSystem.realPath("/" + PathComponents.join(components.dropLast()))
    else { return nil }
    let resolved = PathComponents.normalizedAbsolute(parent) + [last]
    for root in roots {
      if let rest = PathComponents.remainder(resolved, after: root) {
        return PathComponents.join(rest)
      }
    }
    return nil
  }

  /// Whether a logical path names a document or something on disk.
  static func names(_ logical: String, _ root: String, _ fileSystem: any FileSystem) -> Bool {
    if DocumentName(logicalName: logical) != nil { return true }
    return (try? fileSystem.info(FolderLayout.path(root: root, logicalName: logical))) != nil
  }
}
