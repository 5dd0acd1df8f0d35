import Platform

/// What can go wrong with a data folder: while scanning it (fatal for the root, a problem
/// in `FolderListing.problems` below it) or resolving a path into it.
///
/// Paths below the root are logical (relative to the root, `records/2026`); the root and
/// paths given by the user are shown as given.
public enum StorageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The data folder does not exist.
  case noSuchFolder(String)
  /// The data folder (or a path that must be a directory) is something else.
  case notADirectory(String)
  /// A directory could not be listed.
  case cannotReadDirectory(String, Errno)
  /// An entry could not be examined (`lstat` failed).
  case cannotReadEntry(String, Errno)
  /// A document's path holds a directory.
  case documentIsDirectory(String)
  /// A symbolic link, never followed; `outsideRoot` when its target leaves the data folder.
  case symbolicLink(String, target: String, outsideRoot: Bool)
  /// A FIFO, socket or device.
  case unsupportedFileType(String)
  /// A directory nested deeper than the scan goes.
  case tooDeep(String)
  /// A dataless directory (macOS File Provider, mn.md §15): not downloaded, so not entered.
  case notDownloadedDirectory(String)
  /// Two names in one directory that differ only in Unicode normalization (NFC/NFD): a
  /// normalization-insensitive file system (macOS) cannot hold both.
  case equivalentNames(String, String)
  /// A path given by the user that is outside the data folder.
  case outsideRoot(String)
  /// A path given by the user that is empty or contains NUL.
  case invalidPath(String)

  /// What to grant when macOS's privacy controls refuse mn a folder (mn.md §15).
  public static let privacyHint =
    "on macOS, allow the app that runs mn (the terminal, or mn itself for its LaunchAgent) in "
    + "System Settings > Privacy & Security > Files and Folders, or give it Full Disk Access"

  /// `error` as the system's privacy controls refusing the folder `root` (`EPERM` listing or
  /// examining it: on macOS, ~/Documents, ~/Desktop and iCloud Drive are guarded so; a plain
  /// permission is `EACCES`), or nil when it is something else.
  public static func privacyDenial(_ error: any Error, root: AbsolutePath) -> StorageError? {
    switch error {
    case let storage as StorageError:
      switch storage {
      case .cannotReadDirectory(_, let errno), .cannotReadEntry(_, let errno):
        return errno == .notPermitted ? storage : nil
      default: return nil
      }
    case let fileSystem as FileSystemError where fileSystem.errno == .notPermitted:
      return .cannotReadDirectory(root.string, .notPermitted)
    default: return nil
    }
  }

  /// The path the error is about.
  public var subject: String {
    switch self {
    case .noSuchFolder(let p), .notADirectory(let p), .cannotReadDirectory(let p, _),
      .cannotReadEntry(let p, _), .documentIsDirectory(let p), .symbolicLink(let p, _, _),
      .unsupportedFileType(let p), .tooDeep(let p), .equivalentNames(let p, _), .outsideRoot(let p),
      .invalidPath(let p), .notDownloadedDirectory(let p):
      return p
    }
  }

  public var description: String {
    switch self {
    case .noSuchFolder(let p): return "no such data folder '\(p)'"
    case .notADirectory(let p): return "'\(p)' is not a directory"
    case .cannotReadDirectory(let p, let e):
      return
        "cannot read directory '\(p)': \(e)\(e == .notPermitted ? "; " + Self.privacyHint : "")"
    case .cannotReadEntry(let p, let e):
      return "cannot stat '\(p)': \(e)\(e == .notPermitted ? "; " + Self.privacyHint : "")"
    case .documentIsDirectory(let p): return "document '\(p)' is a directory"
    case .symbolicLink(let p, let target, let outside):
      return outside
        ? "'\(p)' is a symbolic link to '\(target)', outside the data folder; not followed"
        : "'\(p)' is a symbolic link to '\(target)'; not followed"
    case .unsupportedFileType(let p): return "'\(p)' is not a regular file or directory"
    case .tooDeep(let p): return "directory '\(p)' is nested too deep; not scanned"
    case .notDownloadedDirectory(let p):
      return "directory '\(p)' is not downloaded (dataless); not scanned"
    case .equivalentNames(let a, let b):
      return "'\(a)' and '\(b)' differ only in unicode normalization"
    case .outsideRoot(let p): return "'\(p)' is outside the data folder"
    case .invalidPath(let p): return "invalid path '\(p)'"
    }
  }
}
