import Archive
import AutomergeCodec
import Platform
import Storage

/// Merging conflict copies into their documents: the workflow behind `mn merge-conflicts`
/// and the first step of `mn migrate` (mn.md §5, §6).
///
/// `plan` reads and decodes every canonical file and copy and says what a merge would do;
/// it changes nothing. `execute` does it, one document at a time:
///
/// 1. before the first removal, one backup of every canonical file and copy involved
///    (through the caller's `backup` closure, so Operations stays free of clocks and paths);
/// 2. read the canonical file and every copy again, merge them (the bytes of the input that
///    holds the most changes, the same input on every device, then the change chunks only
///    the others have: mn.md §6 "Merged output", docs/merged-output.md; a canonical file
///    that is that input and holds every change is not rewritten; a `copies-only` document
///    gets a new file);
/// 3. replace the canonical file with the result (`DocumentReplace.replace`: swap, then merge
///    back any version a sync client brought meanwhile), read it back, and check that it
///    holds every change of every input;
/// 4. only then remove the copies, each read once more and removed only when the canonical
///    file, looked at right then, holds every one of its changes.
///
/// A `kill -9` at any moment leaves every change in at least one file (the canonical file
/// is replaced with a superset of itself, a displaced version stays as a temporary until the
/// canonical file holds it, and a copy goes only after that), so a rerun finishes the job.
/// A canonical path that is a link, a directory or any other non-regular file refuses its
/// document, and nothing of it or its copies is touched. A copy that does not parse, is not downloaded or cannot be read is
/// kept and reported; an `(actor, seq)` collision refuses its whole document. Callers hold
/// the write lock for the whole run.
public enum ConflictMerge {

  /// Reads every document with copies and says what merging would do; changes nothing.
  ///
  /// - Parameters:
  ///   - listing: A scan of the data folder (`FolderScan.scan`).
  ///   - documents: The documents to consider (from `listing.select`); nil for all. Those
  ///     without conflict copies are left out of the plan.
  ///   - fileSystem: Where to read.
  /// - Returns: One entry per document with copies: change counts, each copy's
  ///   contribution or problem, and the refusal when the document cannot be merged.
  /// - Throws: Only for a bug (an error type the merge does not document).
  public static func plan(
    listing: FolderListing, documents: [DocumentEntry]? = nil, fileSystem: any FileSystem
  ) throws -> ConflictMergePlan {
    var plan = ConflictMergePlan(root: listing.root, documents: [])
    for entry in (documents ?? listing.documents) where entry.hasCopies {
      let prepared = try prepare(entry, root: listing.root, fileSystem: fileSystem)
      plan.documents.append(prepared.document)
      plan.decoded.merge(prepared.loaded) { new, _ in new }
    }
    return plan
  }

  /// Merges the planned documents, then removes the copies that the merged files hold.
  ///
  /// Documents refused in the plan are left alone. Only copies that the plan found
  /// readable are ever removed (they are the ones in the backup), and only when
  /// `keepCopies` is false.
  ///
  /// - Parameters:
  ///   - plan: From `plan`, made under the same write lock.
  ///   - keepCopies: Merge, but remove nothing (and make no backup).
  ///   - fileSystem: Where to read and write.
  ///   - backup: Called once, before anything is written, when copies are to be removed;
  ///     gets `backupFiles(plan)` and returns the verified archive's path (or nil when the
  ///     caller chose not to back up). An error stops the run before any change.
  ///   - progress: Told about each step as it happens.
  ///   - isCancelled: Asked before each document; true stops the run there
  ///     (`report.interrupted`), leaving the folder consistent.
  ///   - random: The random part of temporary names.
  /// - Returns: The plan's documents with what happened to each.
  /// - Throws: The backup closure's error (nothing changed); `FileSystemError` when a
  ///   write or the read-back fails (the canonical file is unchanged or holds the merge,
  ///   and no copy of that document is removed); `ConflictMergeError.verificationFailed`.
  public static func execute(
    _ plan: ConflictMergePlan, keepCopies: Bool = false, fileSystem: any FileSystem,
    backup: ([ExportFile]) throws -> AbsolutePath?,
    progress: (ConflictMergeProgress) -> Void = { _ in },
    isCancelled: () -> Bool = { false },
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> ConflictMergeReport {
    var report = ConflictMergeReport(root: plan.root, documents: plan.documents)
    var removable = Set<AbsolutePath>()
    if !keepCopies {
      for document in plan.documents where document.refusal == nil {
        for copy in document.copies where copy.problem == nil { removable.insert(copy.copy.path) }
      }
    }
    if !removable.isEmpty {
      if isCancelled() {
        report.interrupted = true
        return report
      }
      report.backupPath = try backup(backupFiles(plan))
      if let path = report.backupPath { progress(.backedUp(path: path)) }
    }
    for (index, planned) in plan.documents.enumerated() where planned.refusal == nil {
      if isCancelled() {
        report.interrupted = true
        break
      }
      progress(
        .started(index: index, total: plan.documents.count, logicalName: planned.logicalName))
      report.documents[index] = try mergeDocument(
        planned.entry, root: plan.root, removable: removable, cache: plan.decoded,
        fileSystem: fileSystem, random: random)
      progress(.finished(report.documents[index]))
    }
    return report
  }

  /// The files a backup before `execute` must hold: the canonical file (or placeholder) and
  /// every copy of each document that has a copy to remove.
  public static func backupFiles(_ plan: ConflictMergePlan) -> [ExportFile] {
    let entries = plan.documents.filter { document in
      document.refusal == nil && document.copies.contains { $0.problem == nil }
    }.map(\.entry)
    return FolderFiles.exportFiles(
      FolderListing(root: plan.root, documents: entries), includeCopies: true)
  }

  /// One input file, read and decoded.
  struct Loaded: Sendable {
    var bytes: [UInt8]
    var file: AutomergeFile
    var info: FileInfo?
  }

  /// A document read and merged in memory, not yet written.
  struct Prepared {
    var document: ConflictMergeDocument
    /// The canonical file as read (`lstat`), to notice a replacement before writing.
    var canonicalInfo: FileInfo?
    /// The bytes of each readable copy, by the copy's index; nil for the others.
    var copyBytes: [[UInt8]?] = []
    /// The change hashes of each readable copy, by the copy's index.
    var copyHashes: [Set<ChangeHash>?] = []
    var merged: MergeResult?
    /// Every change of every readable input.
    var union = Set<ChangeHash>()
    /// The mode of a new canonical file: the first readable copy's.
    var permissions: FilePermissions = 0o644
    /// Every input read, by path.
    var loaded: [AbsolutePath: Loaded] = [:]
  }

  /// Reads and decodes one file (`DocumentReplace.read`: a file that changed while it was
  /// read is read again); a failure is the reason to keep it. A file whose bytes are those
  /// of its entry in `cache` is not decoded again.
  static func load(
    _ path: AbsolutePath, _ fileSystem: any FileSystem, cache: [AbsolutePath: Loaded]
  ) -> Result<
    Loaded, ConflictCopyProblem
  > {
    let known = cache[path].map { (bytes: $0.bytes, file: $0.file) }
    switch DocumentReplace.read(path, fileSystem: fileSystem, known: known) {
    case .success(let read):
      return .success(Loaded(bytes: read.bytes, file: read.file, info: read.info))
    case .failure(.absent):
      return .failure(.cannotRead(FileSystemError("open", path, .noSuchFileOrDirectory)))
    case .failure(.notRegularFile):
      return .failure(.cannotRead(FileSystemError("open", path, .invalidArgument)))
    case .failure(.notDownloaded):
      return .failure(.notDownloaded)
    case .failure(.cannotRead(let error)):
      return .failure(.cannotRead(error))
    case .failure(.notAutomerge(let error)):
      return .failure(.notAutomerge(error))
    }
  }

  /// Reads a document's canonical file and copies and merges them in memory.
  static func prepare(
    _ entry: DocumentEntry, root: AbsolutePath, cache: [AbsolutePath: Loaded] = [:],
    fileSystem: any FileSystem
  ) throws -> Prepared {
    var prepared = Prepared(
      document: ConflictMergeDocument(
        entry: entry, canonicalPath: entry.name.path(root: root)))
    var inputs: [[UInt8]] = []
    var decoded: [AutomergeFile] = []
    var canonical: AutomergeFile?
    let canonicalPath = prepared.document.canonicalPath
    if entry.state == .placeholder {
      prepared.document.refusal = .notDownloaded
    } else if let info = try fileSystem.info(canonicalPath), info.kind != .regular {
      // A link (even to a file inside the root), a directory, a FIFO: never replaced.
      prepared.document.refusal = .canonicalNotRegularFile(info.kind)
      return prepared
    } else if entry.state != .copiesOnly {
      switch load(canonicalPath, fileSystem, cache: cache) {
      case .success(let loaded):
        prepared.loaded[prepared.document.canonicalPath] = loaded
        canonical = loaded.file
        prepared.canonicalInfo = loaded.info
        prepared.document.canonicalChanges = loaded.file.changes.count
        inputs.append(loaded.bytes)
        decoded.append(loaded.file)
      case .failure(.notAutomerge(let error)):
        prepared.document.refusal = .canonicalNotAutomerge(error)
      case .failure(.notDownloaded):
        // EDEADLK: the file went dataless since the scan (mn.md §15).
        prepared.document.refusal = .notCurrent(path: canonicalPath, .notDownloaded)
      case .failure(.cannotRead(let error)):
        prepared.document.refusal = .canonicalCannotRead(error)
      case .failure:
        prepared.document.refusal = .canonicalCannotRead(
          FileSystemError("read", prepared.document.canonicalPath, .ioError))
      }
    }
    for copy in entry.copies {
      var item = ConflictMergeCopy(copy: copy)
      var bytes: [UInt8]?
      if copy.placeholder != nil {
        item.problem = .notDownloaded
      } else {
        switch load(copy.path, fileSystem, cache: cache) {
        case .success(let loaded):
          prepared.loaded[copy.path] = loaded
          item.changes = loaded.file.changes.count
          item.adds = loaded.file.changes.count(where: { !(canonical?.contains($0.hash) ?? false) })
          if decoded.isEmpty, let info = loaded.info { prepared.permissions = info.permissions }
          bytes = loaded.bytes
          inputs.append(loaded.bytes)
          decoded.append(loaded.file)
        case .failure(let problem):
          item.problem = problem
        }
      }
      prepared.copyBytes.append(bytes)
      prepared.copyHashes.append(
        bytes == nil
          ? nil : prepared.loaded[copy.path].map { Set($0.file.changes.map(\.hash)) })
      prepared.document.copies.append(item)
    }
    guard prepared.document.refusal == nil else { return prepared }
    guard !inputs.isEmpty else {
      prepared.document.refusal = .noReadableCopy
      return prepared
    }
    do {
      let merged = try AutomergeMerge.merge(inputs, decoded: decoded)
      prepared.merged = merged
      prepared.document.mergedChanges = merged.changeCount
    } catch AutomergeMergeError.duplicateSeq(let actor, let seq, _, _) {
      prepared.document.refusal = .collision(actor: actor, seq: seq)
      return prepared
    }
    for file in decoded {
      for change in file.changes { prepared.union.insert(change.hash) }
    }
    return prepared
  }

  /// The change hashes of the document at `path`, read now.
  ///
  /// - Throws: `FileSystemError` when it cannot be read; `verificationFailed` when it is
  ///   absent or does not decode.
  static func heldChanges(_ path: AbsolutePath, fileSystem: any FileSystem) throws -> Set<
    ChangeHash
  > {
    switch DocumentReplace.read(path, fileSystem: fileSystem) {
    case .success(let read): return Set(read.file.changes.map(\.hash))
    case .failure(.cannotRead(let error)), .failure(.notDownloaded(let error)): throw error
    case .failure: throw ConflictMergeError.verificationFailed(path: path.string)
    }
  }

  /// Merges one document: replace (mn.md §6), read back and check, then remove its copies.
  static func mergeDocument(
    _ entry: DocumentEntry, root: AbsolutePath, removable: Set<AbsolutePath>,
    cache: [AbsolutePath: Loaded],
    fileSystem: any FileSystem, random: () -> String
  ) throws -> ConflictMergeDocument {
    var entry = entry
    if entry.state != .copiesOnly,
      (try? fileSystem.info(entry.name.path(root: root))) == nil
    {
      // The canonical file went away since the scan: the copies make a new one.
      entry.state = .copiesOnly
    }
    let prepared = try prepare(entry, root: root, cache: cache, fileSystem: fileSystem)
    var document = prepared.document
    document.completed = true
    guard document.refusal == nil, let merged = prepared.merged else { return document }
    let path = document.canonicalPath
    var verified: (info: FileInfo?, held: Set<ChangeHash>)
    // Written unless the canonical file (input 0) is the merge's base and holds every
    // change: a copy may be the base (mn.md §6 "Merged output").
    if prepared.canonicalInfo == nil || merged.base != 0 || !merged.added.isEmpty {
      let basis = prepared.canonicalInfo.map {
        ReplaceBasis(info: $0, bytes: prepared.loaded[path]?.bytes)
      }
      let outcome: ReplaceOutcome
      do {
        outcome = try DocumentReplace.replace(
          path, with: merged.bytes, basis: basis ?? .absent, fileSystem: fileSystem,
          permissions: prepared.permissions, random: random)
      } catch let error as ReplaceError {
        if case .notRegularFile(_, let kind) = error {
          document.refusal = .canonicalNotRegularFile(kind)
        } else {
          document.refusal = .changedDuringRun
        }
        return document
      }
      document.written = true
      document.replace = outcome.summary
      verified = (outcome.placed, try heldChanges(path, fileSystem: fileSystem))
    } else if let canonical = prepared.loaded[path] {
      // Not rewritten: the file just read (and found to hold everything) is the one on disk.
      verified = (canonical.info, Set(canonical.file.changes.map(\.hash)))
    } else {
      verified = (nil, try heldChanges(path, fileSystem: fileSystem))
    }
    guard prepared.union.isSubset(of: verified.held) else {
      // Replaced again by a sync client after our write: its copies stay for a rerun.
      let now = try fileSystem.info(path)
      if let placed = verified.info, now.map({ !$0.isSameFile(as: placed) }) ?? true {
        document.refusal = .changedDuringRun
        return document
      }
      throw ConflictMergeError.verificationFailed(path: path.string)
    }
    var directories: [AbsolutePath] = []
    for (k, item) in document.copies.enumerated() where item.problem == nil {
      guard removable.contains(item.copy.path), let original = prepared.copyBytes[k] else {
        continue
      }
      let current: [UInt8]
      do {
        current = try fileSystem.readFile(
          item.copy.path, limit: DocumentName.maxFileSize)
      } catch let error as FileSystemError {
        if error.meansNotDownloaded {
          document.copies[k].problem = .notDownloaded  // EDEADLK: evicted meanwhile
        } else if error.errno != .noSuchFileOrDirectory {
          document.copies[k].problem = .cannotRead(error)
        }
        continue
      }
      // The canonical file, looked at right now, must hold every change of the copy.
      let now = try fileSystem.info(path)
      if verified.info.flatMap({ known in now.map { $0.isSameFile(as: known) } }) != true {
        verified = (now, now == nil ? [] : (try? heldChanges(path, fileSystem: fileSystem)) ?? [])
      }
      let copyChanges =
        current == original
        ? prepared.copyHashes[k]
        : (try? AutomergeFile.decode(current)).map { Set($0.changes.map(\.hash)) }
      guard let copyChanges, copyChanges.isSubset(of: verified.held) else {
        document.copies[k].problem = .changedDuringRun
        continue
      }
      do {
        try fileSystem.removeFile(item.copy.path)
        document.copies[k].removed = true
        let directory = item.copy.path.parent
        if !directories.contains(directory) { directories.append(directory) }
      } catch let error as FileSystemError {
        document.copies[k].problem = .cannotRemove(error)
      }
    }
    for directory in directories { try? fileSystem.syncDirectory(directory) }
    return document
  }
}
