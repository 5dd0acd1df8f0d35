import Platform

// The Darwin sync provider: one Apple call per function, its errors mapped (mn.md §15).
//
// Built into Storage on Darwin. On Linux the DarwinCompileCheck target compiles this very file
// with `-D MN_DARWIN_SHIM` against DarwinShim, a module that declares exactly the Apple
// symbols used here (each with the header or documentation page its signature comes from),
// so that a typo or a type error here fails `make test` rather than a user's Mac.
#if MN_DARWIN_SHIM
  import Storage
  import DarwinShim
#elseif canImport(Darwin)
  import Darwin
  import Foundation
#endif

#if MN_DARWIN_SHIM || canImport(Darwin)
  /// The sync provider of macOS: iCloud Drive (`FileManager`, `URLResourceValues`,
  /// `NSFileVersion`), File Provider folders (`setiopolicy_np`) and `NSFileCoordinator`.
  ///
  /// Thin on purpose: it decides nothing. Which folder is which is
  /// `SyncFolderKind.classify`; when to refuse, wait, list or resolve is for the portable
  /// callers (`SyncReadiness`, `SyncDownload`, `ConflictVersions`, `CoordinatedFileSystem`).
  public struct DarwinSyncProvider: SyncProvider {
    /// The user's home directory, which tells the synced folders apart; nil when `$HOME` is
    /// not set.
    public let home: AbsolutePath?

    /// Creates the provider for the user whose home is `home` (`$HOME`).
    public init(home: AbsolutePath?) { self.home = home }

    /// `SyncFolderKind.classify` with `realpath(3)` and
    /// `URLResourceValues.isUbiquitousItem` (on a new `URL`: a URL caches its values).
    public func folderKind(of path: AbsolutePath) -> SyncFolderKind {
      SyncFolderKind.classify(
        path, home: home, realPath: { try? LiveFileSystem().realPath($0) },
        isUbiquitous: { existing in
          let values = try? Self.url(existing).resourceValues(forKeys: [
            .isUbiquitousItemKey
          ])
          return values?.isUbiquitousItem == true
        })
    }

    /// `URL.resourceValues(forKeys: [.ubiquitousItemDownloadingStatusKey])` on a new `URL`
    /// each time (a URL caches its resource values).
    public func status(of path: AbsolutePath) throws(SyncProviderError) -> SyncItemStatus {
      let values: URLResourceValues
      do {
        values = try Self.url(path).resourceValues(forKeys: [
          .ubiquitousItemDownloadingStatusKey
        ])
      } catch {
        throw .failed(operation: "ask the status of", path: path.string, detail: "\(error)")
      }
      guard let status = values.ubiquitousItemDownloadingStatus else { return .unknown }
      if status == .current { return .current }
      if status == .downloaded { return .stale }
      if status == .notDownloaded { return .notDownloaded }
      return .unknown
    }

    /// `FileManager.startDownloadingUbiquitousItem(at:)`.
    public func startDownloading(_ path: AbsolutePath) throws(SyncProviderError) {
      do {
        try FileManager.default.startDownloadingUbiquitousItem(at: Self.url(path))
      } catch {
        throw .failed(
          operation: "ask the system to download", path: path.string, detail: "\(error)")
      }
    }

    /// `Thread.detachNewThread`, on which `setiopolicy_np` turns materialization on for that
    /// thread and the file is read (the File Provider downloads it to answer the read).
    public func startMaterializing(_ path: AbsolutePath) {
      Thread.detachNewThread {
        _ = setiopolicy_np(
          IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_THREAD,
          IOPOL_MATERIALIZE_DATALESS_FILES_ON)
        _ = try? LiveFileSystem().readFile(path, limit: DocumentName.maxFileSize)
      }
    }

    /// Turns materialization off for the whole process, at start (mn.md §15):
    /// `setiopolicy_np(IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_PROCESS,
    /// IOPOL_MATERIALIZE_DATALESS_FILES_OFF)`. Then no read of a dataless file downloads it by
    /// accident (a replace's look at an arrival, a read inside mn's own coordinated write,
    /// under the lock): it fails with `EDEADLK`, which every reader takes as "not downloaded".
    /// Only `startMaterializing`'s thread turns it on, for itself. Returns nil, or the error
    /// of a refusal, which the caller reports.
    public static func turnOffMaterializationForProcess() -> Errno? {
      let result = setiopolicy_np(
        IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_PROCESS,
        IOPOL_MATERIALIZE_DATALESS_FILES_OFF)
      return result == 0 ? nil : Errno.current
    }

    /// `getiopolicy_np` to keep the thread's policy, `setiopolicy_np(…, OFF)`, then the kept
    /// policy set again.
    public func withoutMaterializing<T>(_ body: () throws -> T) rethrows -> T {
      let previous = getiopolicy_np(IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_THREAD)
      _ = setiopolicy_np(
        IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_THREAD,
        IOPOL_MATERIALIZE_DATALESS_FILES_OFF)
      defer {
        if previous >= 0 {
          _ = setiopolicy_np(
            IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_THREAD, previous)
        }
      }
      return try body()
    }

    /// `NSFileCoordinator.coordinate(readingItemAt:options:error:byAccessor:)` for a read,
    /// `coordinate(writingItemAt:options:error:byAccessor:)` for a write: with no options for
    /// `.replacing`, `.forDeleting` for `.deleting`. `body` works on `path` itself: mn's files
    /// are never moved by another writer while it holds the lock.
    ///
    /// Not `.forReplacing` for `.replacing`: every replace of mn is a new version of the same
    /// document (merged bytes that keep every change), and Apple documents `.forReplacing` as
    /// telling presenters that the item is deleted and a new one put in its place, "not to
    /// be used when simply updating the contents"; the app would close the document. A write
    /// with no options is an edit: presenters save first and reload after.
    public func coordinate<T>(
      _ access: CoordinatedAccess, _ path: AbsolutePath, _ body: () throws -> T
    ) throws -> T {
      let coordinator = NSFileCoordinator(filePresenter: nil)
      let url = Self.url(path)
      var result: Result<T, any Error>?
      var coordinationError: NSError?
      switch access {
      case .reading:
        coordinator.coordinate(readingItemAt: url, options: [], error: &coordinationError) { _ in
          result = Result { try body() }
        }
      case .replacing:
        coordinator.coordinate(writingItemAt: url, options: [], error: &coordinationError) { _ in
          result = Result { try body() }
        }
      case .deleting:
        coordinator.coordinate(
          writingItemAt: url, options: .forDeleting, error: &coordinationError
        ) { _ in result = Result { try body() } }
      }
      if let coordinationError {
        throw SyncProviderError.failed(
          operation: "coordinate \(access.rawValue)", path: path.string,
          detail: "\(coordinationError)")
      }
      guard let result else {
        throw SyncProviderError.failed(
          operation: "coordinate \(access.rawValue)", path: path.string, detail: "not run")
      }
      return try result.get()
    }

    /// `FileManager.setUbiquitous(true, itemAt:destinationURL:)`.
    public func moveIntoUbiquity(_ from: AbsolutePath, to: AbsolutePath)
      throws(SyncProviderError)
    {
      do {
        try FileManager.default.setUbiquitous(
          true, itemAt: Self.url(from), destinationURL: Self.url(to))
      } catch {
        throw .failed(operation: "move into iCloud", path: from.string, detail: "\(error)")
      }
    }

    /// `FileManager.url(for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor:
    /// create: true)`: a new directory on the volume of `path` and outside the synced tree
    /// (the system's temporary items), where a replace writes its temporary. A temporary
    /// there is never synced, so it needs no `.nosync` name inside the folder.
    public func replacementDirectory(appropriateFor path: AbsolutePath) throws(SyncProviderError)
      -> AbsolutePath
    {
      do {
        return AbsolutePath(
          try FileManager.default.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: Self.url(path),
            create: true
          ).path)
      } catch {
        throw .failed(
          operation: "find a replacement directory for", path: path.string, detail: "\(error)")
      }
    }

    /// `FileManager.replaceItemAt(_:withItemAt:backupItemName:options:
    /// .withoutDeletingBackupItem)`.
    ///
    /// Why this call: it is how Apple's own apps save a document in place (NSDocument's
    /// safe save), and the File Provider sees it as a new version of the same item (its
    /// identity, versions and sharing kept), where a swap through a `.nosync` name is, to
    /// it, a deletion and a creation. The original goes to the backup item beside `target`
    /// (Apple: "placed in the same directory as the original item"), which
    /// `.withoutDeletingBackupItem` keeps, so that `Replace` can examine it: it is the
    /// file a swap would have displaced, another device's version when one arrived since
    /// mn read the target. The backup name is not an excluded one for the same reason. The
    /// call may answer a different URL for the item (`resultingItemURL`); mn's documents
    /// keep their name, so the backup's path is what it gives back.
    public func replaceItem(
      at target: AbsolutePath, withItemAt item: AbsolutePath, backupItemName: String
    ) throws(SyncProviderError) -> AbsolutePath {
      do {
        _ = try FileManager.default.replaceItemAt(
          Self.url(target), withItemAt: Self.url(item), backupItemName: backupItemName,
          options: .withoutDeletingBackupItem)
      } catch {
        throw .failed(operation: "replace", path: target.string, detail: "\(error)")
      }
      return target.parent.appending(backupItemName)
    }

    /// The file URL of `path`: where a path meets Foundation.
    static func url(_ path: AbsolutePath) -> URL { URL(fileURLWithPath: path.string) }

    /// The file of `version`, or nil when the system no longer gives one.
    ///
    /// `NSFileVersion.url` is imported as a non-optional `URL`, but a version that another
    /// device resolved meanwhile can answer nil, and bridging that nil to `URL` traps. Key-value
    /// coding returns it as an optional object instead (the property's name is `URL`).
    static func fileURL(of version: NSFileVersion) -> URL? {
      version.value(forKey: "URL") as? URL
    }

    /// `NSFileVersion.unresolvedConflictVersionsOfItem(at:)`, each with its `url`,
    /// `localizedNameOfSavingComputer` and `modificationDate`; a version without a URL is
    /// skipped (it is being resolved elsewhere, and has no bytes to merge).
    public func conflictVersions(of path: AbsolutePath) -> [SyncVersion]? {
      guard let versions = NSFileVersion.unresolvedConflictVersionsOfItem(at: Self.url(path))
      else { return nil }
      return versions.compactMap { version in
        guard let url = Self.fileURL(of: version) else { return nil }
        return SyncVersion(
          documentPath: path, path: AbsolutePath(url.path),
          device: version.localizedNameOfSavingComputer,
          modificationSeconds: version.modificationDate.map {
            Int64($0.timeIntervalSince1970.rounded(.down))
          })
      }
    }

    /// The version's file (`NSFileVersion.url`) read inside a coordinated read.
    public func readVersion(_ version: SyncVersion, limit: Int) throws(SyncProviderError)
      -> [UInt8]
    {
      do {
        return try coordinate(.reading, version.path) {
          try LiveFileSystem().readFile(version.path, limit: limit)
        }
      } catch let error as SyncProviderError {
        throw error
      } catch {
        throw .failed(operation: "read version", path: version.path.string, detail: "\(error)")
      }
    }

    /// `isResolved = true` on each of `versions` (found again by their `url`; one without a
    /// URL now is left alone), then, when `removingOthers`,
    /// `NSFileVersion.removeOtherVersionsOfItem(at:)`; otherwise each of them alone is removed
    /// (`remove()`), so that iCloud stops keeping it. The caller runs this inside a
    /// coordinated write of the document (`ConflictVersions`).
    public func resolve(_ versions: [SyncVersion], of path: AbsolutePath, removingOthers: Bool)
      throws(SyncProviderError)
    {
      let url = Self.url(path)
      let wanted = Set(versions.map(\.path))
      do {
        for version in NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? [] {
          guard let versionURL = Self.fileURL(of: version),
            wanted.contains(AbsolutePath(versionURL.path))
          else { continue }
          version.isResolved = true
          if !removingOthers { try version.remove() }
        }
        if removingOthers { try NSFileVersion.removeOtherVersionsOfItem(at: url) }
      } catch {
        throw .failed(
          operation: "remove the resolved versions of", path: path.string, detail: "\(error)")
      }
    }
  }
#endif
