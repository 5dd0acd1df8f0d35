import Archive
import Platform
import Storage

/// The files of a scanned data folder, as the archive layer takes them (mn.md §8).
public enum FolderFiles {
  /// Every file of `listing` that an export or a backup holds: documents, their conflict
  /// copies (as documents: they are Automerge files too), placeholders (listed, not read),
  /// and other files. mn's temporaries, the lock and other `.nosync` files are never in a
  /// listing, so never archived.
  ///
  /// - Parameters:
  ///   - listing: A scan of the folder.
  ///   - includeCopies: Whether conflict copies are included (backups: yes).
  /// - Returns: The files, relative to the listing's root.
  public static func exportFiles(_ listing: FolderListing, includeCopies: Bool) -> [ExportFile] {
    var files: [ExportFile] = []
    for document in listing.documents {
      if document.isDownloaded {
        files.append(
          ExportFile(
            relativePath: document.logicalName, absolutePath: document.path,
            kind: .document))
      }
      for placeholder in document.placeholders {
        if let relative = placeholder.path.logicalName(in: listing.root) {
          files.append(
            ExportFile(
              relativePath: relative.string, absolutePath: placeholder.path, kind: .placeholder))
        }
      }
      guard includeCopies else { continue }
      for copy in document.copies {
        files.append(
          ExportFile(
            relativePath: copy.logicalName, absolutePath: copy.path,
            kind: copy.placeholder == nil ? .document : .placeholder))
      }
    }
    for other in listing.others {
      files.append(
        ExportFile(
          relativePath: other.logicalName, absolutePath: other.path,
          kind: other.placeholder == nil ? .other : .placeholder))
    }
    return files.sorted {
      $0.relativePath.precedesByBytes($1.relativePath)
    }
  }
}
