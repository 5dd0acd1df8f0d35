/// A file system some of whose folders belong to a sync provider (iCloud Drive, a File
/// Provider folder) that must see a replace as an edit of the same item (mn.md §6, §15).
///
/// There, `Replace.replace` does not swap through a `.nosync` temporary beside the target:
/// the provider reports a swap as renames, and an item renamed to an excluded name is, to
/// it, an item deleted (its versions lost, the app told of a deletion, churn on every
/// device). Instead the temporary is written in `replacementDirectory(for:)`, outside the
/// synced tree, and put in place by `replaceItem(at:withItemAt:backupName:)`, which keeps the
/// displaced original as the backup item beside the target; `Replace` examines that backup
/// exactly as it examines the file a swap displaced, and removes it only once the target
/// holds its changes.
public protocol ItemReplacingFileSystem: FileSystem {
  /// Where the temporary of a replace of `target` is written: nil where the swap is right
  /// (a plain folder); otherwise a new directory outside the synced tree, on the target's
  /// volume, that `Replace` removes (when empty) at the end.
  ///
  /// - Throws: `FileSystemError` or another error when the system gives none.
  func replacementDirectory(for target: AbsolutePath) throws -> AbsolutePath?

  /// Puts the file `item` (in the replacement directory) at `target` as a new version of
  /// the same item; `item` is gone afterwards, and the original is kept beside `target`
  /// under `backupName`.
  ///
  /// - Returns: The backup item's path.
  /// - Throws: `FileSystemError` (`ENOENT` when `target` is gone, `EDEADLK` when it is a
  ///   dataless file, which is never displaced), or another error; `target` then holds the
  ///   original and no backup item remains.
  func replaceItem(at target: AbsolutePath, withItemAt item: AbsolutePath, backupName: String)
    throws -> AbsolutePath
}
