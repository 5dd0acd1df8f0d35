import Platform
import Storage

/// `mn fetch`: makes placeholders real, downloaded files, then verifies them (mn.md §4).
///
/// The workflow is plan → act → verify:
///
/// 1. **Plan** (`plan(root:documents:)`): every placeholder of the chosen documents, and of
///    their conflict copies, is an item: the real file it stands for, its stubs, and whether
///    the real file is present already (a stale placeholder).
/// 2. **Act** (`run`), by source:
///    - `.directory`: the file of the same logical name in another copy of the data folder;
///    - `.archive`: the entry of the same path in an archive written by `mn export`, read and
///      checked against its manifest first;
///    - `.command`: a shell command per item (it puts the file in place), then a wait;
///    - `.sync`: on macOS the system is asked to download, then a wait for the sync client
///      (and, in a synced folder, for the provider to call the file current, mn.md §15).
///
///    Content taken from a directory or an archive must decode as Automerge, or it is never
///    written. It goes through `AtomicFile`; when a real file is present at the moment of
///    writing (a stale placeholder, or one that appeared meanwhile), the two are merged
///    (`DocumentTools.merge`), never overwritten. The check is made immediately before the
///    write, under the write lock that the app also takes; a sync client, which takes no
///    lock, could still land a file in the instant between the check and the rename.
/// 3. **Verify**: the file is read back from disk and decoded, and must hold every change
///    that was fetched; only then are its stubs (`.NAME.icloud`, `NAME.nextcloud`,
///    `NAME.owncloud`) removed. A dataless file (macOS) has no stub: it is the file itself.
///
/// A size that differs from the size the placeholder declared is reported with the item
/// (`FetchedFile.sizeMatches`), not refused: the source then holds another version of the
/// document, which for an Automerge document is no loss (a later sync merges them).
public enum FetchOperation {
  /// The largest document read, from the source or the disk.
  public static let maxDocumentSize = 1 << 31

  /// Builds the plan for `documents` (all of a scan, or those `PATH…` arguments selected).
  ///
  /// - Parameters:
  ///   - root: the data folder.
  ///   - documents: entries from `FolderScan`.
  /// - Returns: one item per real file that has a placeholder, sorted by logical name.
  public static func plan(root: AbsolutePath, documents: [DocumentEntry]) -> FetchPlan {
    var items: [FetchItem] = []
    for document in documents {
      if !document.placeholders.isEmpty {
        items.append(
          FetchItem(
            logicalName: document.logicalName,
            path: document.name.path(root: root),
            placeholders: document.placeholders, isCopy: false,
            fileExists: document.isDownloaded))
      }
      var copies: [String: FetchItem] = [:]
      var present: Set<String> = []
      for copy in document.copies {
        guard let placeholder = copy.placeholder else {
          present.insert(copy.logicalName)
          continue
        }
        copies[
          copy.logicalName,
          default: FetchItem(
            logicalName: copy.logicalName,
            path: root.appending(copy.logicalName), placeholders: [],
            isCopy: true, fileExists: false)
        ].placeholders.append(placeholder)
      }
      for var item in copies.values {
        item.fileExists = present.contains(item.logicalName)
        items.append(item)
      }
    }
    items.sort { $0.logicalName.precedesByBytes($1.logicalName) }
    return FetchPlan(root: root, items: items)
  }

  /// Tells a directory source from an archive source.
  ///
  /// - Parameters:
  ///   - path: the `--from` value, absolute.
  ///   - root: the data folder, which cannot be its own source.
  ///   - fileSystem: used to look.
  /// - Returns: `.directory` or `.archive`.
  /// - Throws: `FetchError.sourceNotFound`, `.sourceNotUsable`, `.sourceIsDataFolder`.
  public static func source(from path: AbsolutePath, root: AbsolutePath, fileSystem: any FileSystem)
    throws(FetchError) -> FetchSource
  {
    let info: FileInfo?
    do {
      info = try fileSystem.infoFollowingLinks(path)
    } catch {
      throw .sourceNotUsable(path.string, "\((error as? FileSystemError)?.errno ?? .ioError)")
    }
    guard let info else { throw .sourceNotFound(path.string) }
    switch info.kind {
    case .directory:
      let real = (try? fileSystem.realPath(path)) ?? path
      let realRoot = (try? fileSystem.realPath(root)) ?? root
      if real == realRoot { throw .sourceIsDataFolder(path.string) }
      return .directory(path)
    case .regular: return .archive(path)
    default: throw .sourceNotUsable(path.string, "not a directory or an archive")
    }
  }

  /// Fetches every item of `plan` and verifies it.
  ///
  /// - Parameters:
  ///   - plan: from `plan(root:documents:)`.
  ///   - source: where the content comes from.
  ///   - options: the timeout and the polling interval.
  ///   - context: the file system, the clock, the process runner and the progress hook.
  /// - Returns: what became of each item.
  /// - Throws: `ArchiveError` when an archive source cannot be read or does not match its
  ///   manifest, `ProcessError` when a command cannot be started. Failures of single items
  ///   (content that does not decode, a write that fails) are in the report instead.
  public static func run(
    _ plan: FetchPlan, source: FetchSource, options: FetchOptions = FetchOptions(),
    context: FetchContext
  ) throws -> FetchReport {
    var run = FetchRun(plan: plan, options: options, context: context)
    try run.execute(source)
    let byName = { (a: String, b: String) in a.precedesByBytes(b) }
    run.report.fetched.sort { byName($0.logicalName, $1.logicalName) }
    run.report.failed.sort { byName($0.logicalName, $1.logicalName) }
    run.report.missing.sort { byName($0.logicalName, $1.logicalName) }
    return run.report
  }
}
