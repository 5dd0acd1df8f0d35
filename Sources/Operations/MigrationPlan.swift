import Archive
import Platform
import Storage

/// What a migration will do with each document (mn.md §7, step 1).
public enum MigrationAction: String, Sendable, Equatable {
  /// Absent at the destination: copied there, then removed from the source.
  case move
  /// Present on both sides with different changes: merged into the destination.
  case merge
  /// Present on both sides with the same changes: only removed from the source.
  case same
}

/// What a migration does with a file that is not a document.
public enum MigrationFileAction: String, Sendable, Equatable {
  /// Absent at the destination: copied (and the source's kept, except `.minuta-version`).
  case copy
  /// Present at the destination with the same bytes: nothing to copy.
  case same
  /// Present at the destination with other content: left alone on both sides.
  case differs
}

/// Something the user should know that does not stop the migration.
public enum MigrationWarning: Sendable, Equatable, CustomStringConvertible {
  /// The two folders carry different `.minuta-version` files; the destination's is kept.
  case versionDiffers
  /// A scan problem (link, unreadable directory, ...) on one side.
  case scanProblem(side: MigrationSide, StorageError)

  public var description: String {
    switch self {
    case .versionDiffers:
      return "the folders' .minuta-version files differ; the destination's is kept"
    case .scanProblem(let side, let problem): return "\(side.rawValue): \(problem)"
    }
  }
}

/// One of the two folders of a migration.
public enum MigrationSide: String, Sendable, Equatable {
  case source
  case destination
}

/// The plan of a migration: every document and file of the source with what happens to it,
/// and what stops the migration from starting.
///
/// A plan is computed under both write locks by `Migration.plan` and executed by
/// `Migration.execute`; it is a value, so a verb can print it (and `--dry-run` stop there).
public struct MigrationPlan: Sendable {
  /// A document of the source and its action.
  public struct Document: Sendable, Equatable {
    public var name: DocumentName
    public var action: MigrationAction
    /// Absolute path in the source.
    public var sourcePath: AbsolutePath
    /// Absolute path in the destination.
    public var destinationPath: AbsolutePath
    /// The number of changes in the source file.
    public var sourceChanges: Int
    /// The number of changes that only the source has (0 for `same`).
    public var newChanges: Int
  }

  /// A file of the source that is not a document, and its action.
  public struct File: Sendable, Equatable {
    /// The path relative to the root.
    public var logicalName: String
    public var action: MigrationFileAction
    public var sourcePath: AbsolutePath
    public var destinationPath: AbsolutePath
  }

  /// A document or conflict copy that cannot be read or decoded.
  public struct Unreadable: Sendable, Equatable, CustomStringConvertible {
    public var path: AbsolutePath
    /// Why, in words.
    public var reason: String

    public var description: String { "'\(path)': \(reason)" }
  }

  /// The source root, absolute.
  public var source: AbsolutePath
  /// The destination root, absolute.
  public var destination: AbsolutePath
  /// Whether the destination exists (when not, `execute` creates it).
  public var destinationExists: Bool
  /// Every document of the source, by logical name.
  public var documents: [Document]
  /// Every other file of the source, by logical name.
  public var files: [File]
  /// Placeholders on either side: the migration waits for downloads.
  public var placeholders: [AbsolutePath]
  /// Documents and conflict copies on either side that do not read or parse.
  public var unreadable: [Unreadable]
  /// Conflict copies on either side, merged into their documents first.
  public var conflictCopies: [AbsolutePath]
  /// The conflict merges to do first: one plan per side that has copies (mn.md §7, step 2).
  public var conflicts: [ConflictMergePlan] = []
  /// The unresolved iCloud conflict versions of each folder's documents (mn.md §15), merged
  /// after the copies.
  public var versions: [VersionMergePlan] = []
  /// Documents whose copies cannot be merged (`path: reason`), which stops the migration.
  public var refusedConflicts: [String] = []
  public var warnings: [MigrationWarning]
  /// The scans the plan was made from (for the backup).
  public var sourceListing: FolderListing
  public var destinationListing: FolderListing?

  /// An empty plan: nothing to migrate from `source` into `destination`.
  public init(source: AbsolutePath, destination: AbsolutePath, destinationExists: Bool) {
    self.init(
      source: source, destination: destination, destinationExists: destinationExists,
      documents: [], files: [], placeholders: [], unreadable: [], conflictCopies: [], warnings: [],
      sourceListing: FolderListing(root: source), destinationListing: nil)
  }

  init(
    source: AbsolutePath, destination: AbsolutePath, destinationExists: Bool, documents: [Document],
    files: [File], placeholders: [AbsolutePath], unreadable: [Unreadable],
    conflictCopies: [AbsolutePath],
    warnings: [MigrationWarning], sourceListing: FolderListing, destinationListing: FolderListing?
  ) {
    self.source = source
    self.destination = destination
    self.destinationExists = destinationExists
    self.documents = documents
    self.files = files
    self.placeholders = placeholders
    self.unreadable = unreadable
    self.conflictCopies = conflictCopies
    self.warnings = warnings
    self.sourceListing = sourceListing
    self.destinationListing = destinationListing
  }

  /// The first reason the migration cannot start, in the order of mn.md §7: placeholders
  /// (69), unreadable documents or copies (65), copies that cannot be merged (65); nil
  /// when it can start.
  public var blocker: MigrationError? {
    if !placeholders.isEmpty { return .placeholders(placeholders.map(\.string)) }
    if !unreadable.isEmpty { return .unreadable(unreadable) }
    if !refusedConflicts.isEmpty { return .conflictsRefused(refusedConflicts) }
    return nil
  }

  /// The documents with the given action.
  public func documents(_ action: MigrationAction) -> [Document] {
    documents.filter { $0.action == action }
  }

  /// Whether executing the plan would change anything on disk.
  ///
  /// - Parameter keepSource: whether the source files are kept (then `same` does nothing).
  /// - Returns: false when every document is `same` and kept, no file is copied and no
  ///   conflict copy merged.
  public func hasWork(keepSource: Bool) -> Bool {
    documents.contains { $0.action != .same || !keepSource }
      || files.contains { $0.action == .copy } || !conflictCopies.isEmpty
      || versions.contains(where: \.mergesVersions)
  }
}
