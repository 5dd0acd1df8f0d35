import Platform

/// What a sync provider (iCloud Drive, a File Provider folder) tells about a file and does
/// for it: the portable interface of mn.md §15.
///
/// The interface only asks and acts; every decision (when to refuse, when to wait, what is
/// listed as a copy, when a version may be resolved) is made by the portable code that calls
/// it (`SyncReadiness`, `SyncDownload`, `ConflictVersions`, `CoordinatedFileSystem`), so that
/// it is tested on Linux with a simulated File Provider. `NoSyncProvider` is the provider of
/// systems without one; `DarwinSyncProvider` (macOS only) wraps one Apple call per function.
/// The provider is passed in (Environment, then the library targets), never found through a global.
public protocol SyncProvider: Sendable {
  /// What kind of synced folder `path` is in (decided by `SyncFolderKind.classify`).
  func folderKind(of path: AbsolutePath) -> SyncFolderKind

  /// Where the item at `path` stands. Asked afresh at every call (resource values are cached
  /// per `URL`, so the Darwin provider makes a new one each time).
  ///
  /// - Throws: `SyncProviderError` when the system cannot say.
  func status(of path: AbsolutePath) throws(SyncProviderError) -> SyncItemStatus

  /// Asks the system to download the item at `path` (iCloud Drive); returns at once.
  ///
  /// - Throws: `SyncProviderError` when the system refuses.
  func startDownloading(_ path: AbsolutePath) throws(SyncProviderError)

  /// Reads the file at `path` on a worker thread with materialization on, so that a File
  /// Provider that is not iCloud Drive downloads it; returns at once.
  func startMaterializing(_ path: AbsolutePath)

  /// Runs `body` with the materialization of dataless files turned off on this thread
  /// (reading one then fails with `EDEADLK` instead of downloading it), then restores the
  /// thread's policy as it was.
  func withoutMaterializing<T>(_ body: () throws -> T) rethrows -> T

  /// Runs `body` as a coordinated access to `path` (`NSFileCoordinator` on Darwin): the
  /// system's other writers (the File Provider, the app) wait while it runs.
  ///
  /// - Throws: `SyncProviderError` when coordination fails, or what `body` throws.
  func coordinate<T>(
    _ access: CoordinatedAccess, _ path: AbsolutePath, _ body: () throws -> T
  ) throws -> T

  /// The unresolved conflict versions of the file at `path` (`NSFileVersion`); nil when the
  /// system shows this process none at all (not even an empty list).
  func conflictVersions(of path: AbsolutePath) -> [SyncVersion]?

  /// The bytes of a conflict version, read inside a coordinated read; at most `limit`.
  ///
  /// - Throws: `SyncProviderError` when they cannot be read (the version is then kept).
  func readVersion(_ version: SyncVersion, limit: Int) throws(SyncProviderError) -> [UInt8]

  /// Moves the file at `from` (outside iCloud Drive) to `to` in an iCloud Drive container,
  /// the system's own move into iCloud (`FileManager.setUbiquitous(true, itemAt:
  /// destinationURL:)`); `from` is gone afterwards.
  ///
  /// - Throws: `SyncProviderError` when the system refuses (`from` is then where it was).
  func moveIntoUbiquity(_ from: AbsolutePath, to: AbsolutePath) throws(SyncProviderError)

  /// A new directory outside the synced tree and on the volume of `path`, for the
  /// temporary of a replace of `path` (`FileManager.url(for: .itemReplacementDirectory, in:
  /// .userDomainMask, appropriateFor:create: true)`).
  ///
  /// - Throws: `SyncProviderError` when the system gives none.
  func replacementDirectory(appropriateFor path: AbsolutePath) throws(SyncProviderError)
    -> AbsolutePath

  /// Puts the file `item` at `target` as a new version of the same item, keeping the
  /// original beside `target` as `backupItemName`
  /// (`FileManager.replaceItemAt(_:withItemAt:backupItemName:options:
  /// .withoutDeletingBackupItem)`); `item` is gone afterwards. The caller runs it inside a
  /// coordinated write of `target` and has made sure `target` is a file that is not
  /// dataless (`CoordinatedFileSystem.replaceItem`).
  ///
  /// - Returns: The backup item's path.
  /// - Throws: `SyncProviderError` when the system refuses (`target` is then as it was).
  func replaceItem(at target: AbsolutePath, withItemAt item: AbsolutePath, backupItemName: String)
    throws(SyncProviderError) -> AbsolutePath

  /// Marks `versions` of the file at `path` resolved and removes them: when
  /// `removingOthers`, with every other version of the file
  /// (`NSFileVersion.removeOtherVersionsOfItem(at:)`), otherwise each alone.
  ///
  /// - Throws: `SyncProviderError` when the system refuses.
  func resolve(_ versions: [SyncVersion], of path: AbsolutePath, removingOthers: Bool)
    throws(SyncProviderError)
}

/// The kind of folder a path is in, as mn.md §15 tells them apart.
public enum SyncFolderKind: String, Sendable, Equatable {
  /// Not a synced folder the system manages (Linux; a plain folder on a Mac).
  case plain
  /// An iCloud Drive ubiquity container (`~/Library/Mobile Documents/…`).
  case ubiquityContainer = "icloud"
  /// Another File Provider folder (`~/Library/CloudStorage/…`: Dropbox, OneDrive, Google
  /// Drive, Nextcloud virtual files).
  case fileProvider = "file-provider"

  /// The kind of folder `path` is in, told by where it is below `home`.
  ///
  /// - Parameters:
  ///   - path: an absolute path.
  ///   - home: the user's home directory (`$HOME`); nil when it is not set.
  /// - Returns: `.ubiquityContainer` under `~/Library/Mobile Documents/`, `.fileProvider`
  ///   under `~/Library/CloudStorage/`, `.plain` elsewhere.
  public static func classify(_ path: AbsolutePath, home: AbsolutePath?) -> SyncFolderKind {
    guard let library = home?.appending("Library") else { return .plain }
    // Below the folder, not the folder itself; component by component.
    func below(_ folder: String) -> Bool {
      path.logicalName(in: library.appending(folder)).map { !$0.isRoot } ?? false
    }
    if below("Mobile Documents") { return .ubiquityContainer }
    if below("CloudStorage") { return .fileProvider }
    return .plain
  }

  /// The kind of folder `path` is in, told by what the system says of it (mn.md §15): by
  /// where it is, as given or on its real path (through links, and without the
  /// `/System/Volumes/Data` firmlink prefix), else an iCloud Drive folder when the system
  /// calls its nearest existing ancestor ubiquitous (iCloud's "Desktop & Documents" makes
  /// `~/Documents/Minuta` one).
  ///
  /// - Parameters:
  ///   - path: an absolute path; it need not exist yet.
  ///   - home: the user's home directory (`$HOME`); nil when it is not set.
  ///   - realPath: `realpath(3)` of an existing path, nil when it does not resolve.
  ///   - isUbiquitous: what the system says of an existing path (`isUbiquitousItem`).
  /// - Returns: the kind by place (as given, then real), else `.ubiquityContainer` when the
  ///   system calls the folder ubiquitous, else `.plain`.
  public static func classify(
    _ path: AbsolutePath, home: AbsolutePath?, realPath: (AbsolutePath) -> AbsolutePath?,
    isUbiquitous: (AbsolutePath) -> Bool
  ) -> SyncFolderKind {
    let given = classify(path, home: home)
    guard given == .plain, let home else { return given }
    let (real, existing) = resolved(path, realPath: realPath)
    let realHome = resolved(home, realPath: realPath).path
    for candidate in [home, realHome] {
      let kind = classify(real, home: candidate)
      if kind != .plain { return kind }
    }
    return isUbiquitous(existing) ? .ubiquityContainer : .plain
  }

  /// `path` with its nearest existing ancestor resolved by `realPath` and the rest appended,
  /// without a leading `/System/Volumes/Data`; and that ancestor, resolved.
  static func resolved(_ path: AbsolutePath, realPath: (AbsolutePath) -> AbsolutePath?) -> (
    path: AbsolutePath, existing: AbsolutePath
  ) {
    var head = path
    var rest: [String] = []
    while true {
      if let real = realPath(head) {
        let existing = withoutDataVolume(real)
        return (existing.appending(rest.reversed().joined(separator: "/")), existing)
      }
      guard head != .root, head.string.contains("/") else {
        return (withoutDataVolume(path), withoutDataVolume(path))
      }
      rest.append(head.lastComponent)
      head = head.parent
    }
  }

  /// macOS's data volume is firmlinked at `/`: `/System/Volumes/Data/Users/ada` is
  /// `/Users/ada`.
  static func withoutDataVolume(_ path: AbsolutePath) -> AbsolutePath {
    guard let rest = path.logicalName(in: AbsolutePath("/System/Volumes/Data")), !rest.isRoot
    else { return path }
    return AbsolutePath.root.appending(rest)
  }
}

/// Where an item stands with its provider.
public enum SyncItemStatus: String, Sendable, Equatable {
  /// Downloaded, and the latest version (`.current`).
  case current
  /// Downloaded, but a newer version exists that is not (`.downloaded`): a stale copy.
  case stale
  /// Not downloaded (`.notDownloaded`).
  case notDownloaded = "not-downloaded"
  /// The system says nothing (not a synced item, or no provider).
  case unknown
}

/// The kinds of coordinated access: `NSFileCoordinator` reading; writing a new version of
/// a file (no options on Darwin: an edit of the same item, never `.forReplacing`, which tells
/// presenters the item was deleted); writing `.forDeleting` for a removal.
public enum CoordinatedAccess: String, Sendable, Equatable {
  case reading
  case replacing
  case deleting
}

/// An unresolved conflict version of a file (`NSFileVersion`), as mn keeps it: a copy.
public struct SyncVersion: Sendable, Hashable {
  /// The file it is a version of.
  public var documentPath: AbsolutePath
  /// Where its bytes are (`NSFileVersion.url`), which also tells it from the others.
  public var path: AbsolutePath
  /// The name of the device that saved it, when the system gives it.
  public var device: String?
  /// When it was saved, seconds since the epoch, when the system gives it.
  public var modificationSeconds: Int64?

  /// Creates a version value.
  public init(
    documentPath: AbsolutePath, path: AbsolutePath, device: String? = nil,
    modificationSeconds: Int64? = nil
  ) {
    self.documentPath = documentPath
    self.path = path
    self.device = device
    self.modificationSeconds = modificationSeconds
  }

  /// The service spelling of versions in `ls --json` (`"service": "icloud-version"`).
  public static let service = "icloud-version"

  /// The date of `modificationSeconds` in ISO 8601, UTC (`2026-09-06T15:45:12Z`).
  public var date: String? {
    modificationSeconds.map { UTCDateTime(secondsSinceEpoch: $0).iso8601 }
  }
}

/// A provider call that failed: which, on what, and the system's words.
public enum SyncProviderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The system refused or failed `operation` on `path` (the path's text, as messages and
  /// JSON show it, as `FileSystemError` keeps it).
  case failed(operation: String, path: String, detail: String)
  /// The system has no provider to ask (`NoSyncProvider`).
  case unavailable(operation: String, path: String)

  public var description: String {
    switch self {
    case .failed(let operation, let path, let detail):
      return "cannot \(operation) '\(path)': \(detail)"
    case .unavailable(let operation, let path):
      return "cannot \(operation) '\(path)': no sync provider on this system"
    }
  }
}

/// The provider of systems without one (Linux): nothing is synced, nothing is coordinated,
/// there are no versions. Every function does nothing or says so.
public struct NoSyncProvider: SyncProvider {
  public init() {}

  public func folderKind(of path: AbsolutePath) -> SyncFolderKind { .plain }

  public func status(of path: AbsolutePath) throws(SyncProviderError) -> SyncItemStatus { .unknown }

  public func startDownloading(_ path: AbsolutePath) throws(SyncProviderError) {
    throw .unavailable(operation: "download", path: path.string)
  }

  public func startMaterializing(_ path: AbsolutePath) {}

  public func withoutMaterializing<T>(_ body: () throws -> T) rethrows -> T { try body() }

  public func coordinate<T>(
    _ access: CoordinatedAccess, _ path: AbsolutePath, _ body: () throws -> T
  )
    throws -> T
  { try body() }

  public func conflictVersions(of path: AbsolutePath) -> [SyncVersion]? { [] }

  public func readVersion(_ version: SyncVersion, limit: Int) throws(SyncProviderError) -> [UInt8] {
    throw .unavailable(operation: "read version", path: version.path.string)
  }

  public func moveIntoUbiquity(_ from: AbsolutePath, to: AbsolutePath) throws(SyncProviderError) {
    throw .unavailable(operation: "move into iCloud", path: from.string)
  }

  public func resolve(_ versions: [SyncVersion], of path: AbsolutePath, removingOthers: Bool)
    throws(SyncProviderError)
  {
    throw .unavailable(operation: "resolve versions of", path: path.string)
  }

  public func replacementDirectory(appropriateFor path: AbsolutePath) throws(SyncProviderError)
    -> AbsolutePath
  {
    throw .unavailable(operation: "find a replacement directory for", path: path.string)
  }

  public func replaceItem(
    at target: AbsolutePath, withItemAt item: AbsolutePath, backupItemName: String
  )
    throws(SyncProviderError) -> AbsolutePath
  {
    throw .unavailable(operation: "replace", path: target.string)
  }
}
