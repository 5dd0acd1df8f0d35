/// What an FSEvents event means for `watch` (mn.md §12, §15): the portable decision of the
/// Darwin notifier (`DarwinFSEvents`), tested on Linux.
///
/// The stream is one for the whole folder, with file-level events
/// (`kFSEventStreamCreateFlagFileEvents`) and the root watched (`…WatchRoot`). Each event is a
/// path and flags; the flags' values are those of `<CoreServices/FSEvents.h>`
/// (`FSEventStreamEventFlags`), spelled out so that this file is plain Swift.
public enum FileEvents {
  /// `kFSEventStreamEventFlagMustScanSubDirs`: the system lost track below the path.
  public static let mustScanSubDirs: UInt32 = 0x0000_0001
  /// `kFSEventStreamEventFlagUserDropped`: events were dropped in this process.
  public static let userDropped: UInt32 = 0x0000_0002
  /// `kFSEventStreamEventFlagKernelDropped`: events were dropped in the kernel.
  public static let kernelDropped: UInt32 = 0x0000_0004
  /// `kFSEventStreamEventFlagRootChanged`: the watched root moved or was removed.
  public static let rootChanged: UInt32 = 0x0000_0020
  /// `kFSEventStreamEventFlagUnmount`: a volume at or above the path was unmounted.
  public static let unmount: UInt32 = 0x0000_0080
  /// `kFSEventStreamEventFlagItemCreated`.
  public static let itemCreated: UInt32 = 0x0000_0100
  /// `kFSEventStreamEventFlagItemRemoved`.
  public static let itemRemoved: UInt32 = 0x0000_0200
  /// `kFSEventStreamEventFlagItemRenamed` (given for both the old and the new path).
  public static let itemRenamed: UInt32 = 0x0000_0800
  /// `kFSEventStreamEventFlagItemIsDir`.
  public static let itemIsDir: UInt32 = 0x0002_0000

  /// `kFSEventStreamCreateFlagNoDefer | kFSEventStreamCreateFlagWatchRoot |
  /// kFSEventStreamCreateFlagFileEvents` (0x02, 0x04, 0x10): paths as C strings, one event
  /// per file, the first event of a burst at once, and the root's own moves reported.
  public static let streamFlags: UInt32 = 0x02 | 0x04 | 0x10

  /// What one event (`path`, `flags`) under `root` says, as the notifier interface puts it.
  ///
  /// - A lost or dropped history (`MustScanSubDirs`, `UserDropped`, `KernelDropped`) is
  ///   `.overflow`: everything is scanned again (mn.md §12: never silently blind).
  /// - The root moved, removed or unmounted is `.rootGone`.
  /// - A path outside the root says nothing (the stream's own events about its parents).
  /// - A directory created, removed or renamed, and any rename (which FSEvents gives for
  ///   both names, without saying which is which), is `.directoryChanged` of its folder:
  ///   look at it again, from the scan, never by walking here (a walk would materialize a
  ///   dataless folder).
  /// - A file removed (and not created again in the same coalesced event) is `.removed`;
  ///   any other file event is `.changed`.
  public static func events(path event: AbsolutePath, flags: UInt32, root folder: AbsolutePath)
    -> [ChangeEvent]
  {
    if flags & (mustScanSubDirs | userDropped | kernelDropped) != 0 { return [.overflow] }
    // Component by component: `/a/bc` is not inside `/a/b`.
    let inside = event.isInside(folder)
    if flags & rootChanged != 0 || (flags & unmount != 0 && (inside || folder.isInside(event))) {
      return [.rootGone]
    }
    guard inside else { return [] }
    if event == folder {
      return flags & itemRemoved != 0 || flags & itemRenamed != 0
        ? [.rootGone] : [.directoryChanged(folder)]
    }
    let parent = event.parent
    if flags & itemIsDir != 0 {
      if flags & (itemRemoved | itemRenamed) == 0 && flags & itemCreated != 0 {
        return [.directoryAdded(event)]
      }
      return [.directoryChanged(parent)]
    }
    if flags & itemRenamed != 0 { return [.directoryChanged(parent)] }
    if flags & itemRemoved != 0 && flags & itemCreated == 0 { return [.removed(event)] }
    return [.changed(event)]
  }
}
