/// What a change notifier saw (mn.md §12). Paths are absolute, as the notifier was given them.
public enum ChangeEvent: Sendable, Equatable {
  /// A file was created, written, renamed into place, or had its attributes changed.
  case changed(AbsolutePath)
  /// A file was removed or renamed away.
  case removed(AbsolutePath)
  /// A directory appeared below the root; it is watched already (and so is everything in it).
  case directoryAdded(AbsolutePath)
  /// Something changed in a directory and the notifier cannot say what: look at it again.
  case directoryChanged(AbsolutePath)
  /// Events were lost (the kernel's queue overflowed): everything must be looked at again.
  case overflow
  /// The watched root was removed, renamed away or unmounted.
  case rootGone
  /// Something changed next to where the missing root would be (after `watchForAppearance`).
  case ancestorChanged
  /// The wake descriptor became readable (a signal arrived).
  case woken
}

/// Why a change notifier cannot work.
public enum ChangeNotifierError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The system call failed (`inotify_init1`, `inotify_add_watch`, `kqueue`, `poll`, `read`).
  case systemCall(String, Errno)
  /// The system has no change notifications that mn knows.
  case unsupported

  public var description: String {
    switch self {
    case .systemCall(let call, let errno): return "cannot watch for changes: \(call): \(errno)"
    case .unsupported: return "cannot watch for changes on this system"
    }
  }
}

/// The system's change notifications for a data folder, behind one small interface: inotify
/// on Linux (`LinuxInotify`), one FSEvents stream on Darwin (`DarwinFSEvents`). `WatchRunner`
/// sees only this.
///
/// A notifier watches a root and every directory below it; directories that appear are
/// watched as they appear. `wait` blocks (no polling) until something happens, the wake
/// descriptor given at creation becomes readable, or the timeout passes.
public protocol ChangeNotifier: AnyObject {
  /// Drops every watch, then watches `root` and every directory below it.
  ///
  /// A directory the system refuses to watch for want of resources (Linux: the inotify
  /// watch limit, `ENOSPC`), the root included, is listed in `unwatched` instead.
  ///
  /// - Throws: `ChangeNotifierError` when the root cannot be watched for another reason.
  ///   A subdirectory that cannot be watched for another reason (it vanished, it cannot be
  ///   read) is skipped.
  func watchTree(root: AbsolutePath) throws(ChangeNotifierError)

  /// The directories that the system refused to watch for want of resources (watched as
  /// they appear, or by `watchTree`), sorted: the caller covers them by periodic rescans
  /// (mn.md §12, "never silently blind"). Empty when every directory is watched.
  var unwatched: [AbsolutePath] { get }

  /// Drops every watch, then watches the nearest existing ancestor of `root`, so that
  /// `wait` returns `.ancestorChanged` when something there changes (the root may be back).
  func watchForAppearance(of root: AbsolutePath) throws(ChangeNotifierError)

  /// Waits until there are events, the wake descriptor is readable, or `timeout` seconds
  /// have passed (nil: no limit). Returns the events, in order; empty after a timeout.
  func wait(timeout: Double?) throws(ChangeNotifierError) -> [ChangeEvent]
}

extension ChangeNotifier {
  /// A notifier that the system never refuses (or that does not say so yet) watches all.
  public var unwatched: [AbsolutePath] { [] }
}

/// The system settings that bound change notifications, named when a watch is refused.
public enum ChangeNotifierLimit {
  /// The setting to raise when `unwatched` is not empty (mn.md §12).
  public static var setting: String {
    #if os(Linux)
      return "fs.inotify.max_user_watches"
    #else
      return "the open files limit (ulimit -n)"
    #endif
  }
}

/// How deep mn walks a folder tree: the data folder's scan and the notifiers' directory walk
/// both stop here (the root is depth 0), so a deep or looping tree cannot run them away.
public enum FolderWalk {
  public static let maxDepth = 32
}

/// Makes the live notifier of this system.
public enum ChangeNotifiers {
  /// The system's notifier, woken by `wakeDescriptor` (a pipe's read end) when it is given.
  ///
  /// - Parameters:
  ///   - fileSystem: Lists directories to watch each one.
  ///   - wakeDescriptor: A descriptor whose readability ends a `wait` with `.woken`.
  /// - Returns: The notifier, watching nothing yet.
  /// - Throws: `ChangeNotifierError` when the system refuses.
  public static func live(fileSystem: any FileSystem, wakeDescriptor: Int32?)
    throws(ChangeNotifierError) -> any ChangeNotifier
  {
    // Linux's is in LinuxInotify.swift, Darwin's in DarwinFSEvents.swift (compiled on Linux
    // by the Storage check): a system with neither does not build.
    try systemNotifier(fileSystem: fileSystem, wakeDescriptor: wakeDescriptor)
  }

  /// The directories below `root` (not the root), walked to `FolderWalk.maxDepth`, links
  /// not followed; a directory that cannot be listed is left out.
  static func subdirectories(of root: AbsolutePath, fileSystem: any FileSystem)
    -> [AbsolutePath]
  {
    var found: [AbsolutePath] = []
    var stack: [(AbsolutePath, Int)] = [(root, 0)]
    while let (directory, depth) = stack.popLast() {
      guard depth < FolderWalk.maxDepth,
        let entries = try? fileSystem.directoryItemsWithKinds(directory)
      else { continue }
      for entry in entries where entry.kind == .directory {
        let path = directory.appending(entry.name)
        found.append(path)
        stack.append((path, depth + 1))
      }
    }
    return found
  }

  /// The nearest existing ancestor directory of `path` ("/" at worst).
  public static func nearestAncestor(of path: AbsolutePath, fileSystem: any FileSystem)
    -> AbsolutePath
  {
    var current = path.parent
    while current != .root && !current.string.isEmpty {
      if let info = try? fileSystem.infoFollowingLinks(current), info.kind == .directory {
        return current
      }
      current = current.parent
    }
    return .root
  }
}
