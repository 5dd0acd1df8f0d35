import Platform
import Storage

/// The documents that a verb's `PATH…` arguments name, selected alike by every verb that
/// takes them (`ls`, `log`, `diff`, `fetch`, `repair`, `compact`, `merge-conflicts`): an
/// argument that selects nothing is named as typed, as git names a pathspec.
enum DocumentSelection {
  /// The documents that `PATH…` arguments name (all of them when there are none).
  ///
  /// - Throws: `StorageError.outsideRoot` (64) for a path outside the root, and a
  ///   `CommandError.noSuchDocument` naming the first argument that selects no document.
  static func select(_ arguments: [String], in listing: FolderListing, _ env: Environment) throws
    -> [DocumentEntry]
  {
    let logical = try logicalNames(arguments, in: listing, env)
    let (selected, unmatched) = listing.select(logical)
    if let index = logical.firstIndex(where: { unmatched.contains($0) }) {
      throw CommandError.noSuchDocument(arguments[index])
    }
    return selected
  }

  /// The logical names that `arguments` stand for, inside the listing's root (mn.md §1).
  static func logicalNames(_ arguments: [String], in listing: FolderListing, _ env: Environment)
    throws -> [LogicalName]
  {
    try arguments.map {
      try DataFolder.logicalName(
        for: $0, root: listing.root,
        currentDirectory: env.currentDirectory, fileSystem: env.fileSystem)
    }
  }
}
