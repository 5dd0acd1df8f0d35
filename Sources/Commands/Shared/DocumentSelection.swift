import Platform
import Storage

/// The documents that a verb's `PATH…` arguments name: `ls`, `log`, `diff`, `fetch` and
/// `repair` select them alike, `compact` and `merge-conflicts` with their own wording of a
/// name that selects nothing.
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

  /// The documents that `PATH…` arguments name (all of them when there are none), as the
  /// writing verbs `compact` and `merge-conflicts` select them: a name that selects nothing
  /// is reported as the logical name it became, not as typed.
  ///
  /// - Throws: `StorageError.outsideRoot` (64) for a path outside the root, and a
  ///   `CommandError.noSuchDocument` naming the first logical name that selects no document.
  static func selectNamed(_ arguments: [String], in listing: FolderListing, _ env: Environment)
    throws -> [DocumentEntry]
  {
    guard !arguments.isEmpty else { return listing.documents }
    let (selected, unmatched) = listing.select(try logicalNames(arguments, in: listing, env))
    if let first = unmatched.first { throw CommandError.noSuchDocument(first.string) }
    return selected
  }

  /// The logical names that `arguments` stand for, inside the listing's root (mn.md §1).
  static func logicalNames(_ arguments: [String], in listing: FolderListing, _ env: Environment)
    throws -> [LogicalName]
  {
    try arguments.map {
      try DataFolder.logicalName(
        for: $0, root: AbsolutePath(listing.root),
        currentDirectory: AbsolutePath(env.currentDirectory), fileSystem: env.fileSystem)
    }
  }
}
