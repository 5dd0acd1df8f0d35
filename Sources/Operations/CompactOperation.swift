import Archive
import AutomergeCodec
import Platform
import Storage

/// One document of `mn compact`: its sizes and what was done.
public struct CompactDocument: Sendable {
  public enum Outcome: Sendable, Equatable {
    /// Not done yet (a plan), or done: rewritten as one document chunk.
    case planned, compacted
    /// Already one document chunk (and its orphans), or the rewrite would not be smaller.
    case alreadyCompact
    /// Not read or not rewritten: the reason. Nothing of it was changed.
    case refused(String)
    /// Replaced by another writer between the read and the write, or after it: left as the
    /// other writer made it, for a rerun.
    case changedDuringRun
  }

  public var logicalName: String
  public var path: AbsolutePath
  public var sizeBefore: Int
  /// The size as one document chunk (nil when it could not be computed).
  public var sizeAfter: Int?
  public var changes: Int
  public var outcome: Outcome
  /// The replace, when the document was written.
  public var replace: ReplaceOutcome.Summary?
}

/// `mn compact`: rewrites documents as one document chunk each (what Automerge's `save()`
/// writes), through the replace protocol (mn.md §6), after a backup. A document's changes
/// are all verified when it is read (every hash, DocumentEncoder.save), the rewrite is
/// read back before it is written, and the written file is read again: it must hold every
/// change it held before.
public enum CompactOperation {
  /// What compacting `bytes` would give: its compacted size, or why it cannot.
  public static func estimate(_ bytes: [UInt8]) -> Result<SavedDocument, AutomergeSaveError> {
    Result { try DocumentEncoder.save(bytes) }.mapError {
      $0 as? AutomergeSaveError ?? .verificationFailed("\($0)")
    }
  }

  /// Whether a document is worth compacting: it is not already one document chunk (with
  /// its orphans after it), and the rewrite is smaller.
  static func worthCompacting(_ file: AutomergeFile, size: Int, saved: SavedDocument) -> Bool {
    let oneDocument =
      file.chunks.first?.type == .document && file.chunks.count == 1 + file.orphans.count
    return !oneDocument && saved.bytes.count < size
  }

  /// Reads each document and computes its compacted form, writing nothing.
  public static func plan(_ documents: [DocumentEntry], fileSystem: any FileSystem)
    -> [CompactDocument]
  {
    documents.map { entry in
      var doc = CompactDocument(
        logicalName: entry.name.logicalName, path: entry.path,
        sizeBefore: Int(entry.size ?? 0),
        sizeAfter: nil, changes: 0, outcome: .planned, replace: nil)
      guard entry.isDownloaded else {
        doc.outcome = .refused("not downloaded")
        return doc
      }
      switch prepare(entry.path, fileSystem: fileSystem) {
      case .failure(let refusal): doc.outcome = .refused(refusal.reason)
      case .success(let (read, saved)):
        doc.sizeBefore = read.bytes.count
        doc.sizeAfter = saved.bytes.count
        doc.changes = read.file.changes.count
        if !worthCompacting(read.file, size: read.bytes.count, saved: saved) {
          doc.outcome = .alreadyCompact
        }
      }
      return doc
    }
  }

  /// Reads and verifies a document and saves it as one document chunk (in memory).
  static func prepare(_ path: AbsolutePath, fileSystem: any FileSystem) -> Result<
    (DocumentReplace.Read, SavedDocument), Refusal
  > {
    switch DocumentReplace.read(path, fileSystem: fileSystem) {
    case .failure(.absent): return .failure(Refusal(reason: "gone"))
    case .failure(.notRegularFile(let kind)):
      return .failure(Refusal(reason: "not a regular file (\(kind))"))
    case .failure(.notDownloaded): return .failure(Refusal(reason: "not downloaded"))
    case .failure(.cannotRead(let error)):
      return .failure(Refusal(reason: "cannot be read: \(error)"))
    case .failure(.notAutomerge(let error)):
      return .failure(Refusal(reason: "not a valid document: \(error)"))
    case .success(let read):
      switch estimate(read.bytes) {
      // The save's own words ("op 314@… is a deletion with a value…"): after "not
      // compacted: ", a "cannot be compacted" would only repeat it.
      case .failure(let error): return .failure(Refusal(reason: "\(error)"))
      case .success(let saved): return .success((read, saved))
      }
    }
  }

  /// Why a document is not compacted, in words.
  public struct Refusal: Error, Sendable {
    public var reason: String
  }

  /// The backup's files: those of the planned documents.
  public static func backupFiles(_ plan: [CompactDocument], root: AbsolutePath) -> [ExportFile] {
    plan.filter { $0.outcome == .planned }.map {
      ExportFile(relativePath: $0.logicalName, absolutePath: $0.path, kind: .document)
    }
  }

  /// Compacts the planned documents: the backup first (`backup` is called once, before the
  /// first write, when there is anything to write), then each document read again, saved,
  /// put in place with `DocumentReplace.replace` (a version that arrives meanwhile is merged
  /// in) and read back.
  ///
  /// - Returns: the documents with their outcomes, and the backup's path.
  /// - Throws: what `backup` throws (then nothing was written); `CompactError` when a
  ///   written document does not read back with every change it held.
  public static func execute(
    _ plan: [CompactDocument], fileSystem: any FileSystem,
    backup: ([ExportFile]) throws -> AbsolutePath?,
    progress: (CompactDocument) -> Void = { _ in },
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> (documents: [CompactDocument], backupPath: AbsolutePath?) {
    var documents = plan
    let files = backupFiles(plan, root: "")
    let backupPath = files.isEmpty ? nil : try backup(files)
    for k in documents.indices where documents[k].outcome == .planned {
      var doc = documents[k]
      switch prepare(doc.path, fileSystem: fileSystem) {
      case .failure(let refusal): doc.outcome = .refused(refusal.reason)
      case .success(let (read, saved)):
        doc.sizeBefore = read.bytes.count
        doc.sizeAfter = saved.bytes.count
        doc.changes = read.file.changes.count
        if !worthCompacting(read.file, size: read.bytes.count, saved: saved) {
          doc.outcome = .alreadyCompact
          break
        }
        let outcome: ReplaceOutcome
        do {
          outcome = try DocumentReplace.replace(
            doc.path, with: saved.bytes, basis: read.basis, fileSystem: fileSystem,
            permissions: read.info.permissions, random: random)
        } catch is ReplaceError {
          doc.outcome = .changedDuringRun
          break
        }
        doc.replace = outcome.summary
        doc.outcome = .compacted
        if outcome.arrivals.total > 0 { doc.sizeAfter = outcome.content.count }
        // The written file must hold every change the document held (and those that
        // arrived meanwhile, which the replace merged in).
        guard case .success(let back) = DocumentReplace.read(doc.path, fileSystem: fileSystem),
          read.file.changes.allSatisfy({ back.file.contains($0.hash) })
        else {
          if let now = try? fileSystem.info(doc.path),
            !now.isSameFile(as: outcome.placed)
          {
            doc.outcome = .changedDuringRun
            break
          }
          throw CompactError.verificationFailed(path: doc.path.string, backup: backupPath)
        }
      }
      documents[k] = doc
      progress(doc)
    }
    return (documents, backupPath)
  }
}

/// Why `mn compact` stopped.
public enum CompactError: Error, Sendable {
  /// A compacted document read back without a change it held: restore it from the backup.
  case verificationFailed(path: String, backup: AbsolutePath?)
}
