import Platform
import Storage

/// The documents that a verb's `PATH…` arguments name: `ls`, `log`, `diff`, `fetch` and
/// `repair` select them alike.
enum DocumentSelection {
  /// The documents that `PATH…` arguments name (all of them when there are none).
  ///
  /// - Throws: `StorageError.outsideRoot` (64) for a path outside the root, and a
  ///   `CommandError.noSuchDocument` naming the first argument that selects no document.
  static func select(_ arguments: [String], in listing: FolderListing, _ env: Environment) throws
    -> [DocumentEntry]
  {
    let logical = try arguments.map {
      try DataFolder.logicalName(
        for: $0, root: AbsolutePath(listing.root),
        currentDirectory: AbsolutePath(env.currentDirectory), fileSystem: env.fileSystem)
    }
    let (selected, unmatched) = listing.select(logical)
    if let index = logical.firstIndex(where: { unmatched.contains($0) }) {
      throw CommandError.noSuchDocument(arguments[index])
    }
    return selected
  }
}
