#if os(Linux)
  import Foundation
  import Testing

  @testable import Platform
  @testable import TestSupport

  /// Linux inotify through `ChangeNotifier` (mn.md §12), on real directories.
  @Suite struct LinuxInotifyTests {
    /// Waits (for at most `seconds`) until the events so far contain one that `found` accepts.
    func collect(
      _ notifier: LinuxInotify, for seconds: Double = 60, until found: ([ChangeEvent]) -> Bool
    ) throws -> [ChangeEvent] {
      var events: [ChangeEvent] = []
      let end = Date().addingTimeInterval(seconds)
      while !found(events) && Date() < end {
        events += try notifier.wait(timeout: 0.2)
      }
      return events
    }

    @Test func filesWrittenRenamedAndRemovedAreReported() throws {
      let folder = try ScratchFolder()
      try folder.write("records/2026/09.automerge")
      let notifier = try LinuxInotify(fileSystem: LiveFileSystem(), wakeDescriptor: nil)
      try notifier.watchTree(root: folder.location())
      #expect(try notifier.wait(timeout: 0.05) == [])
      try folder.write("records/2026/.tmp-copy")
      try FileManager.default.moveItem(
        atPath: folder.absolute("records/2026/.tmp-copy"),
        toPath: folder.absolute("records/2026/09 2.automerge"))
      let copy = folder.location("records/2026/09 2.automerge")
      var events = try collect(notifier) { $0.contains(.changed(copy)) }
      #expect(events.contains(.changed(copy)))
      try FileManager.default.removeItem(atPath: copy.string)
      events = try collect(notifier) { $0.contains(.removed(copy)) }
      #expect(events.contains(.removed(copy)))
    }

    @Test func newDirectoriesAreWatchedAsTheyAppearNestedOrNot() throws {
      let folder = try ScratchFolder()
      let notifier = try LinuxInotify(fileSystem: LiveFileSystem(), wakeDescriptor: nil)
      try notifier.watchTree(root: folder.location())
      try FileManager.default.createDirectory(
        atPath: folder.absolute("records/2027"), withIntermediateDirectories: true)
      let added = try collect(notifier) { $0.contains(.directoryAdded(folder.location("records"))) }
      #expect(added.contains(.directoryAdded(folder.location("records"))))
      // Written after the watches were added: seen in the nested directory.
      try folder.write("records/2027/03 2.automerge")
      let copy = folder.location("records/2027/03 2.automerge")
      let events = try collect(notifier) { $0.contains(.changed(copy)) }
      #expect(events.contains(.changed(copy)))
    }

    @Test func theRootGoingAwayIsReportedAndItsReturnSeenFromItsParent() throws {
      let parent = try ScratchFolder()
      let root = parent.absolute("data")
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      let notifier = try LinuxInotify(fileSystem: LiveFileSystem(), wakeDescriptor: nil)
      try notifier.watchTree(root: AbsolutePath(root))
      try FileManager.default.removeItem(atPath: root)
      #expect(try collect(notifier) { $0.contains(.rootGone) }.contains(.rootGone))
      try notifier.watchForAppearance(of: AbsolutePath(root))
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      #expect(try collect(notifier) { $0.contains(.ancestorChanged) }.contains(.ancestorChanged))
    }

    @Test func theWakeDescriptorEndsAWaitAtOnce() throws {
      var ends: [Int32] = [-1, -1]
      #expect(pipe(&ends) == 0)
      defer {
        close(ends[0])
        close(ends[1])
      }
      let notifier = try LinuxInotify(fileSystem: LiveFileSystem(), wakeDescriptor: ends[0])
      let folder = try ScratchFolder()
      try notifier.watchTree(root: folder.location())
      var byte: UInt8 = 1
      #expect(write(ends[1], &byte, 1) == 1)
      // Woken, not timed out (that would return no event): no wall-clock margin needed.
      #expect(try notifier.wait(timeout: 120) == [.woken])
    }

    /// When the kernel refuses watches (the `fs.inotify.max_user_watches` limit: `ENOSPC`,
    /// injected here), the directories are listed as unwatched, the root too, and nothing
    /// throws: the watcher covers them by rescans (mn.md §12).
    @Test func refusedWatchesAreListedNotDropped() throws {
      let folder = try ScratchFolder()
      try folder.write("records/2026/09.automerge")
      try folder.write("records/2025/09.automerge")
      let notifier = try LinuxInotify(fileSystem: LiveFileSystem(), wakeDescriptor: nil)
      let refused = folder.location("records/2026")
      notifier.refuseWatch = { $0 == refused ? .noSpace : nil }
      try notifier.watchTree(root: folder.location())
      #expect(notifier.unwatched == [refused])
      // A directory that appears when the limit is reached is listed as well.
      notifier.refuseWatch = { $0.isInside(folder.location("records/2027")) ? .noSpace : nil }
      try FileManager.default.createDirectory(
        atPath: folder.absolute("records/2027"), withIntermediateDirectories: true)
      let added = folder.location("records/2027")
      _ = try collect(notifier) { $0.contains(.directoryAdded(added)) }
      #expect(notifier.unwatched == [refused, added])
      // Renamed away, it is not a directory to cover any more.
      try FileManager.default.moveItem(atPath: added.string, toPath: folder.absolute("elsewhere"))
      _ = try collect(notifier) { _ in !notifier.unwatched.contains(added) }
      #expect(notifier.unwatched == [refused])
      // The root refused: no throw, the root is unwatched.
      notifier.refuseWatch = { _ in .noSpace }
      try notifier.watchTree(root: folder.location())
      #expect(notifier.unwatched.first == folder.location())
      #expect(notifier.unwatched.count == 5)
      // Another refusal of the root (not the limit) still throws.
      notifier.refuseWatch = { $0 == folder.location() ? .permissionDenied : nil }
      #expect(throws: ChangeNotifierError.self) { try notifier.watchTree(root: folder.location()) }
    }

    @Test func aFullQueueIsReportedAsOverflow() throws {
      let limit =
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16384
      let folder = try ScratchFolder()
      let notifier = try LinuxInotify(fileSystem: LiveFileSystem(), wakeDescriptor: nil)
      try notifier.watchTree(root: folder.location())
      let fds = ["a", "b"].map { open(folder.absolute($0), O_CREAT | O_WRONLY, 0o644) }
      defer { fds.forEach { close($0) } }
      var byte: UInt8 = 0
      // Each write is one IN_MODIFY (two files in turn: the kernel folds repeats of the
      // last event into one), more than the queue holds.
      for i in 0...(limit + 10) { _ = write(fds[i % 2], &byte, 1) }
      let events = try notifier.wait(timeout: 1)
      #expect(events.contains(.overflow))
    }
  }
#endif
