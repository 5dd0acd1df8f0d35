import Testing

@testable import Platform

/// What an FSEvents event means for `watch` (mn.md §12, §15): `FileEvents.events`, the
/// decision of the Darwin notifier.
@Suite struct FileEventsTests {
  let root = "/Users/ada/Library/Mobile Documents/iCloud~tools~minuta~app/Documents"
  var month: String { root + "/records/2026/09.automerge" }

  /// `FileEvents.events` of paths written as text.
  func events(path: String, flags: UInt32, root: String) -> [ChangeEvent] {
    FileEvents.events(path: AbsolutePath(path), flags: flags, root: AbsolutePath(root))
  }

  @Test(arguments: [FileEvents.mustScanSubDirs, FileEvents.userDropped, FileEvents.kernelDropped])
  func lostHistoryIsAFullRescan(_ flag: UInt32) {
    #expect(events(path: root + "/records", flags: flag, root: root) == [.overflow])
    // Whatever else the event says, and wherever it is.
    #expect(
      events(path: "/", flags: flag | FileEvents.itemCreated, root: root) == [
        .overflow
      ])
  }

  /// Inside and outside are decided component by component: a folder beside the root whose
  /// name starts with the root's says nothing, and an unmount of one is not the root's.
  @Test func aFolderBesideTheRootWithALongerNameIsOutside() {
    #expect(events(path: root + "2/a", flags: FileEvents.itemCreated, root: root) == [])
    #expect(events(path: "/Us", flags: FileEvents.unmount, root: root) == [])
  }

  @Test func theRootMovedRemovedOrUnmountedIsGone() {
    #expect(events(path: root, flags: FileEvents.rootChanged, root: root) == [.rootGone])
    #expect(
      events(
        path: root, flags: FileEvents.itemRemoved | FileEvents.itemIsDir, root: root) == [
          .rootGone
        ])
    #expect(events(path: "/Users", flags: FileEvents.unmount, root: root) == [.rootGone])
  }

  @Test func fileEvents() {
    #expect(
      events(path: month, flags: 0x1000 /* ItemModified */, root: root) == [
        .changed(AbsolutePath(month))
      ])
    #expect(
      events(path: month, flags: FileEvents.itemRemoved, root: root) == [
        .removed(AbsolutePath(month))
      ]
    )
    // Created and removed in one coalesced event: looked at again, not taken for gone.
    #expect(
      events(
        path: month, flags: FileEvents.itemRemoved | FileEvents.itemCreated, root: root) == [
          .changed(AbsolutePath(month))
        ])
    // A rename names both paths without saying which: the folder is looked at again.
    #expect(
      events(path: month, flags: FileEvents.itemRenamed, root: root) == [
        .directoryChanged(AbsolutePath(root + "/records/2026"))
      ])
  }

  @Test func directoryEvents() {
    let year = root + "/records/2027"
    #expect(
      events(
        path: year, flags: FileEvents.itemCreated | FileEvents.itemIsDir, root: root)
        == [.directoryAdded(AbsolutePath(year))])
    #expect(
      events(
        path: year, flags: FileEvents.itemRemoved | FileEvents.itemIsDir, root: root)
        == [.directoryChanged(AbsolutePath(root + "/records"))])
  }

  @Test func pathsOutsideTheRootSayNothing() {
    #expect(
      events(path: root + "2/x", flags: FileEvents.itemCreated, root: root).isEmpty)
    #expect(events(path: "/tmp/x", flags: FileEvents.itemRemoved, root: root).isEmpty)
  }

  /// `NoDefer | WatchRoot | FileEvents` (<CoreServices/FSEvents.h>: 0x02, 0x04, 0x10).
  @Test func theStreamAsksForFileEventsAndTheRoot() {
    #expect(FileEvents.streamFlags == 0x16)
  }
}
