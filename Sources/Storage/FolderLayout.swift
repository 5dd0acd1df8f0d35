import Platform

/// The fixed names of a data folder (mn.md §1) and how paths in it are built.
public enum FolderLayout {
  /// The small synced text file that records the folder's format; kept as is.
  public static let versionFileName = ".minuta-version"
  /// The lock file that writers `flock` (mn.md §6); never synced, never exported.
  public static let lockFileName = ".minuta.writelock.nosync"
  /// The directory of monthly records.
  public static let recordsDirectory = "records"
  /// The suffix of local-only files (iCloud never uploads them); never listed or exported.
  public static let noSyncSuffix = ".nosync"

  /// Whether a file name ends in `.nosync` (local-only by convention).
  public static func isNoSync(_ fileName: String) -> Bool {
    NameBytes.withBytes(fileName) { NameBytes.hasSuffix($0, ".nosync") }
  }

  /// The absolute path of the lock file of the data folder at `root`.
  public static func lockPath(root: String) -> String {
    path(root: root, logicalName: lockFileName)
  }

  /// The absolute path of `logicalName` (relative to `root`; `""` is the root itself).
  public static func path(root: String, logicalName: String) -> String {
    if logicalName.isEmpty { return root }
    let endsInSlash = NameBytes.withBytes(root) { $0.last == 0x2F }
    return endsInSlash ? root + logicalName : joined(root, logicalName)
  }

  /// The logical path of `name` inside the directory `directory` (`""` is the root).
  public static func join(_ directory: String, _ name: String) -> String {
    directory.isEmpty ? name : joined(directory, name)
  }

  /// `a/b` (the scan builds two paths per file it keeps).
  static func joined(_ a: String, _ b: String) -> String { NameBytes.joined(a, 0x2F, b) }
}
