import Platform
import Storage

/// Removes mn's leftover temporaries (mn.md §6: the next write that holds the lock does it).
///
/// A temporary is one of three things: a write that a crash cut short (its content is
/// derived from files that are still there), a file an exchange displaced (the basis, which
/// the document holds, or a version that a sync client brought, which it may not hold yet),
/// or a finished temporary not yet put in place. So a temporary of a document that decodes
/// is merged into its document when it holds a change the document lacks, and removed only
/// once the document holds all of its changes.
public enum TemporaryCleanup {
  /// Cleans every temporary the scan found; call only while holding the write lock, when
  /// no other mn can be writing one.
  ///
  /// - Parameters:
  ///   - listing: A scan of the data folder.
  ///   - fileSystem: Where to merge and remove them.
  /// - Returns: The logical names removed; a temporary that cannot be merged or removed is
  ///   left alone.
  public static func removeStale(_ listing: FolderListing, fileSystem: any FileSystem) -> [String] {
    var removed: [String] = []
    for temporary in listing.temporaries {
      if DocumentName(logicalName: temporary.targetLogicalName) != nil {
        guard
          mergeIntoDocument(
            temporary,
            target: listing.root.appending(temporary.targetLogicalName),
            fileSystem: fileSystem)
        else { continue }
      }
      guard (try? fileSystem.removeFile(temporary.path)) != nil else { continue }
      removed.append(temporary.logicalName)
    }
    return removed
  }

  /// Makes sure the document at `target` holds every change of a temporary of it; false
  /// when it cannot, and the temporary must stay.
  static func mergeIntoDocument(
    _ temporary: TemporaryFile, target: AbsolutePath, fileSystem: any FileSystem
  ) -> Bool {
    guard
      case .success(let leftover) = DocumentReplace.read(temporary.path, fileSystem: fileSystem)
    else {
      // Not a document (a write cut short): nothing in it that is not in another file.
      return true
    }
    switch DocumentReplace.read(target, fileSystem: fileSystem) {
    case .success(let document):
      if leftover.file.changes.allSatisfy({ document.file.contains($0.hash) }) { return true }
      guard
        let merged = try? DocumentTools.merge(existing: document.bytes, incoming: leftover.bytes)
      else { return false }
      return
        (try? DocumentReplace.replace(
          target, with: merged, basis: document.basis, fileSystem: fileSystem)) != nil
    case .failure(.absent):
      return
        (try? DocumentReplace.replace(
          target, with: leftover.bytes, basis: .absent, fileSystem: fileSystem,
          permissions: leftover.info.permissions)) != nil
    case .failure:
      return false
    }
  }
}
