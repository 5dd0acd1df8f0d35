import Platform

/// The state of a document in a listing (mn.md §3). The raw value is the `ls` spelling.
public enum DocumentState: String, Sendable, Hashable, CaseIterable {
  /// The file is present and downloaded, with no conflict copy and no placeholder.
  case local
  /// Only a placeholder is present: not downloaded.
  case placeholder
  /// Both the file and a placeholder for it are present.
  case stalePlaceholder = "stale-placeholder"
  /// The file is present and one or more conflict copies of it exist.
  case conflicted
  /// No file and no placeholder, only conflict copies.
  case copiesOnly = "copies-only"
}

/// One document of a data folder, with everything on disk that belongs to it.
public struct DocumentEntry: Sendable, Hashable {
  /// Which document.
  public var name: DocumentName
  /// The state; see `DocumentState` for the precedence when several apply.
  public var state: DocumentState
  /// Absolute path: of the file when present, else of the placeholder, else (copies only)
  /// where the file belongs.
  public var path: AbsolutePath
  /// Bytes: of the file when present, else the placeholder's declared size; nil if unknown.
  public var size: Int64?
  /// Modification time (seconds since the epoch) of the file or, failing it, the
  /// placeholder; nil for copies only.
  public var modificationSeconds: Int64?
  /// The nanoseconds part of the modification time.
  public var modificationNanoseconds: Int64?
  /// Every placeholder standing for the document, sorted by path (normally one).
  public var placeholders: [Placeholder]
  /// Every conflict copy, sorted by logical name.
  public var copies: [ConflictCopy]

  /// Creates an entry.
  public init(
    name: DocumentName, state: DocumentState, path: AbsolutePath, size: Int64?,
    modificationSeconds: Int64?, modificationNanoseconds: Int64? = nil,
    placeholders: [Placeholder] = [], copies: [ConflictCopy] = []
  ) {
    self.name = name
    self.state = state
    self.path = path
    self.size = size
    self.modificationSeconds = modificationSeconds
    self.modificationNanoseconds = modificationNanoseconds
    self.placeholders = placeholders
    self.copies = copies
  }

  /// The logical name (`records/2026/09.automerge`).
  public var logicalName: String { name.logicalName }
  /// The first placeholder, the one `ls` shows.
  public var placeholder: Placeholder? { placeholders.first }
  /// Whether the document's own file is present and downloaded.
  public var isDownloaded: Bool {
    state == .local || state == .stalePlaceholder || state == .conflicted
  }
  /// Whether the document's file is missing and a placeholder stands for it (`--placeholders`).
  public var isNotDownloaded: Bool { state == .placeholder }
  /// Whether there are conflict copies (`--conflicts`), whatever the state.
  public var hasCopies: Bool { !copies.isEmpty }
}

/// A file in the data folder that is not a document, a copy of one, or local-only.
public struct OtherFile: Sendable, Hashable {
  /// Path relative to the root of what the file is; for a placeholder, of the file it
  /// stands for (`notes.txt` for `.notes.txt.icloud`).
  public var logicalName: String
  /// Where it is on disk.
  public var path: AbsolutePath
  /// Bytes on disk; for a placeholder, its declared size when known.
  public var size: Int64?
  /// Modification time, seconds since the epoch.
  public var modificationSeconds: Int64
  /// Set when the file is a placeholder.
  public var placeholder: Placeholder?

  /// Creates an entry.
  public init(
    logicalName: String, path: AbsolutePath, size: Int64?, modificationSeconds: Int64,
    placeholder: Placeholder? = nil
  ) {
    self.logicalName = logicalName
    self.path = path
    self.size = size
    self.modificationSeconds = modificationSeconds
    self.placeholder = placeholder
  }
}

/// One of mn's temporary files (`.NAME.mn-XXXXXX.nosync`), left by an interrupted write.
public struct TemporaryFile: Sendable, Hashable {
  /// Path relative to the root.
  public var logicalName: String
  /// Where it is on disk.
  public var path: AbsolutePath
  /// The logical name of the file it was to replace.
  public var targetLogicalName: String
  /// Bytes.
  public var size: Int64
  /// Modification time, seconds since the epoch.
  public var modificationSeconds: Int64

  /// Creates an entry.
  public init(
    logicalName: String, path: AbsolutePath, targetLogicalName: String, size: Int64,
    modificationSeconds: Int64
  ) {
    self.logicalName = logicalName
    self.path = path
    self.targetLogicalName = targetLogicalName
    self.size = size
    self.modificationSeconds = modificationSeconds
  }
}

/// Everything a scan of a data folder found.
public struct FolderListing: Sendable, Hashable {
  /// The root as given to the scan.
  public var root: AbsolutePath
  /// Every document, sorted by logical name (bytes of its UTF-8).
  public var documents: [DocumentEntry]
  /// Every other file (not `.nosync`), sorted by logical name.
  public var others: [OtherFile]
  /// mn's temporaries left behind, sorted by logical name.
  public var temporaries: [TemporaryFile]
  /// What could not be read or is out of place, sorted by subject.
  public var problems: [StorageError]

  /// Creates a listing.
  public init(
    root: AbsolutePath, documents: [DocumentEntry] = [], others: [OtherFile] = [],
    temporaries: [TemporaryFile] = [], problems: [StorageError] = []
  ) {
    self.root = root
    self.documents = documents
    self.others = others
    self.temporaries = temporaries
    self.problems = problems
  }

  /// The entry of a document, if anything of it is on disk.
  public func document(_ name: DocumentName) -> DocumentEntry? {
    var low = 0
    var high = documents.count
    while low < high {
      let mid = (low + high) / 2
      if documents[mid].name < name { low = mid + 1 } else { high = mid }
    }
    return low < documents.count && documents[low].name == name ? documents[low] : nil
  }

  /// The documents that `PATH…` arguments name, for verbs that take them.
  ///
  /// A logical name (from `DataFolder.logicalName(for:…)`) selects a document when it is the
  /// document's logical name, a directory above it (`records/2026`, or `""` for the root),
  /// the logical path of one of its conflict copies, or the path of one of its placeholders
  /// (`records/2026/.09.automerge.icloud`). With no paths, every document is selected.
  ///
  /// - Parameter logicalNames: resolved arguments.
  /// - Returns: the selected documents in listing order, and the names that selected none
  ///   (in argument order; a verb reports them as "no such document").
  public func select(_ logicalNames: [LogicalName])
    -> (documents: [DocumentEntry], unmatched: [LogicalName])
  {
    if logicalNames.isEmpty { return (documents, []) }
    func selects(_ logical: LogicalName, _ entry: DocumentEntry) -> Bool {
      let path = logical.string
      if LogicalName(entry.logicalName)?.isInside(logical) == true { return true }
      if entry.copies.contains(where: { $0.logicalName == path }) { return true }
      let absolute = root.appending(logical)
      return entry.placeholders.contains { $0.path == absolute }
        || entry.copies.contains { $0.path == absolute }
    }
    let selected = documents.filter { entry in logicalNames.contains { selects($0, entry) } }
    let unmatched = logicalNames.filter { name in !documents.contains { selects(name, $0) } }
    return (selected, unmatched)
  }

  /// Documents that are not downloaded (state `placeholder`).
  public var notDownloaded: [DocumentEntry] { documents.filter(\.isNotDownloaded) }
  /// Documents with conflict copies.
  public var withCopies: [DocumentEntry] { documents.filter(\.hasCopies) }
}
