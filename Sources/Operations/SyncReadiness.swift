import Platform
import Storage

/// Whether the files of a document are downloaded and current, so that they may be merged
/// (mn.md §15: only current inputs are merged).
///
/// A file is current when it is not dataless and its provider does not call it stale or not
/// downloaded. A provider that says nothing (`.unknown`: a plain folder, a File Provider that
/// keeps no status, or a status the system could not give) leaves the dataless flag to
/// decide. The merge then refuses a document with an input that is not current (69), naming
/// that file, and `mn fetch` brings it down first.
public enum SyncReadiness {
  /// An input that is not current: which file, and what the provider or its flags say.
  public struct NotCurrent: Sendable, Equatable {
    /// The file's absolute path.
    public var path: AbsolutePath
    /// `.notDownloaded` for a dataless file, else the provider's status.
    public var status: SyncItemStatus
  }

  /// Whether the file at `path` (as `info` describes it) may be merged now.
  ///
  /// - Returns: nil when it is current; what is wrong otherwise.
  public static func check(
    _ path: AbsolutePath, info: FileInfo?, provider: any SyncProvider
  ) -> NotCurrent? {
    if let info, DatalessFiles.isDataless(info) {
      return NotCurrent(path: path, status: .notDownloaded)
    }
    guard provider.folderKind(of: path) != .plain else { return nil }
    let status = (try? provider.status(of: path)) ?? .unknown
    switch status {
    case .current, .unknown: return nil
    case .stale, .notDownloaded: return NotCurrent(path: path, status: status)
    }
  }

  /// The first input of `document` (its file, then its downloaded copies) that is not
  /// current; nil when every one is. Placeholders are not looked at: the merge keeps them.
  public static func firstNotCurrent(
    _ document: DocumentEntry, root: AbsolutePath, provider: any SyncProvider,
    fileSystem: any FileSystem
  ) -> NotCurrent? {
    var paths: [AbsolutePath] = []
    if document.isDownloaded { paths.append(document.name.path(root: root)) }
    for copy in document.copies where copy.placeholder == nil {
      paths.append(copy.path)
    }
    for path in paths {
      let info = try? fileSystem.info(path)
      if let problem = check(path, info: info ?? nil, provider: provider) { return problem }
    }
    return nil
  }

  /// Splits documents into those whose inputs are all current and those refused, before
  /// anything of them is read (reading a dataless file would download it).
  ///
  /// - Returns: the documents to plan, and a refused plan entry (`.notCurrent`) for each
  ///   of the others that has conflict copies.
  public static func split(
    _ documents: [DocumentEntry], root: AbsolutePath, provider: any SyncProvider,
    fileSystem: any FileSystem
  ) -> (ready: [DocumentEntry], refused: [ConflictMergeDocument]) {
    var ready: [DocumentEntry] = []
    var refused: [ConflictMergeDocument] = []
    for document in documents {
      guard document.hasCopies,
        let problem = firstNotCurrent(
          document, root: root, provider: provider, fileSystem: fileSystem)
      else {
        ready.append(document)
        continue
      }
      refused.append(
        ConflictMergeDocument(
          entry: document, canonicalPath: document.name.path(root: root),
          copies: document.copies.map { ConflictMergeCopy(copy: $0) },
          refusal: .notCurrent(path: problem.path, problem.status)))
    }
    return (ready, refused)
  }

  /// The downloaded documents and conflict copies that the provider calls stale, as fetch
  /// items: `mn fetch` (and `migrate --fetch`, `watch --fetch`) waits for them to become
  /// current (an iCloud Drive container asks for the download).
  public static func staleItems(
    _ documents: [DocumentEntry], root: AbsolutePath, provider: any SyncProvider
  ) -> [FetchItem] {
    func isStale(_ path: AbsolutePath) -> Bool {
      provider.folderKind(of: path) != .plain && (try? provider.status(of: path)) == .stale
    }
    var items: [FetchItem] = []
    for document in documents {
      let path = document.name.path(root: root)
      if document.isDownloaded, isStale(path) {
        items.append(
          FetchItem(
            logicalName: document.logicalName, path: path, placeholders: [],
            isCopy: false, fileExists: true, isStale: true))
      }
      for copy in document.copies where copy.placeholder == nil && isStale(copy.path) {
        items.append(
          FetchItem(
            logicalName: copy.logicalName, path: copy.path, placeholders: [], isCopy: true,
            fileExists: true, isStale: true))
      }
    }
    return items
  }
}

/// Asking for a download the way each kind of folder wants it (mn.md §15).
public enum SyncDownload {
  /// In an iCloud Drive container: `startDownloading` (the system's own download). In
  /// another File Provider folder: a read on a worker thread with materialization on. In a
  /// plain folder there is nobody to ask.
  ///
  /// - Throws: `SyncProviderError` when the system refuses, or for a plain folder.
  public static func request(_ path: AbsolutePath, provider: any SyncProvider)
    throws(SyncProviderError)
  {
    switch provider.folderKind(of: path) {
    case .ubiquityContainer: try provider.startDownloading(path)
    case .fileProvider: provider.startMaterializing(path)
    case .plain: throw .unavailable(operation: "download", path: path.string)
    }
  }

  /// Whether a file that is on disk (as `info` describes it) is downloaded and current,
  /// asking the provider afresh.
  public static func isCurrent(_ path: AbsolutePath, info: FileInfo, provider: any SyncProvider)
    -> Bool
  {
    SyncReadiness.check(path, info: info, provider: provider) == nil
  }
}
