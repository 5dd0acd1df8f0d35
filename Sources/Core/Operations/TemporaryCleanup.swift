/// Removes mn's leftover temporaries (mn.md §6: the next write that holds the lock does it).
public enum TemporaryCleanup {
  /// Removes every temporary the scan found; call only while holding the write lock, when
  /// no other mn can be writing one.
  ///
  /// - Parameters:
  ///   - listing: A scan of the data folder.
  ///   - fileSystem: Where to remove them.
  /// - Returns: The logical names removed; a temporary that cannot be removed is left alone
  ///   (it holds nothing that is not in some other file).
  public static func removeStale(_ listing: FolderListing, fileSystem: any FileSystem) -> [String] {
    var removed: [String] = []
    for temporary in listing.temporaries {
      guard (try? fileSystem.removeFile(temporary.path)) != nil else { continue }
      removed.append(temporary.logicalName)
    }
    return removed
  }
}
