import Foundation
import Testing

@testable import AutomergeCodec

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `mn watch` with the real binary and the system's notifications (mn.md §12).
@Suite(.serialized) struct WatchTests {
  /// A sandbox with a data folder `data` (device 0's month and tags) and `backups`.
  final class Folder {
    let box: Sandbox
    var root: String { box.path("data") }

    init() throws {
      box = try Sandbox()
      box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
      try box.write("data/records/2026/09.automerge", Data(try WatchDocuments.month))
      try box.write("data/tags.automerge", Data(try WatchDocuments.tags))
    }

    func path(_ rel: String) -> String { root + "/" + rel }

    func watch(_ arguments: [String], name: String = "watch") throws -> Watcher {
      try Watcher(box, ["--root", root, "watch"] + arguments, name: name)
    }

    /// Whether the document holds every change in `hashes`.
    func holds(_ document: String, _ hashes: Set<ChangeHash>) -> Bool {
      hashes.isSubset(of: WatchDocuments.hashes(path(document)))
    }
  }

  static let month = "records/2026/09.automerge"

  @Test func aCopyRenamedIntoPlaceIsMergedOnceQuiet() throws {
    let f = try Folder()
    let w = try f.watch(["--quiet-for", "1"])
    #expect(w.waitFor("watching '\(f.root)'"))
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 1)
    let copy = f.path("records/2026/09 2.automerge")
    try WatchDocuments.renameIntoPlace(bytes, copy)
    let merged = Watcher.waitUntil(120) {
      !FileManager.default.fileExists(atPath: copy) && f.holds(Self.month, [hash])
    }
    #expect(merged, "\(w.stderr)")
    #expect(w.waitFor("records/2026/09.automerge: added 1 change from 1 copy, 1 copy removed"))
    #expect(w.stderr.contains("mn: backup written to '\(f.box.path("backups"))/"))
    #expect(w.stop() == 0)
    #expect(w.stderr.hasSuffix("mn: stopping\n"))
  }

  @Test func aCopyWrittenSlowlyInPlaceIsNotMergedHalfWritten() throws {
    let f = try Folder()
    let w = try f.watch(["--quiet-for", "5"])
    #expect(w.waitFor("watching"))
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 2)
    let copy = f.path("records/2026/09 (Ada's conflicted copy 2026-09-06).automerge")
    let fd = open(copy, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
    #expect(fd >= 0)
    // Eight pieces, 0.2 s apart: 1.4 s of writing, never 5 s quiet (unless this process
    // is stalled that long; even then the half-written copy is only waited for).
    let pieces = 8
    let size = (bytes.count + pieces - 1) / pieces
    for k in 0..<pieces {
      let part = Array(bytes[min(k * size, bytes.count)..<min((k + 1) * size, bytes.count)])
      _ = part.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      usleep(200_000)
      #expect(FileManager.default.fileExists(atPath: copy), "not merged after piece \(k)")
    }
    close(fd)
    #expect(!w.stderr.contains("09.automerge:"), "nothing merged while it was written")
    let merged = Watcher.waitUntil(120) {
      !FileManager.default.fileExists(atPath: copy) && f.holds(Self.month, [hash])
    }
    #expect(merged, "\(w.stderr)")
    #expect(!w.stderr.contains("error"), "\(w.stderr)")
    #expect(w.stop() == 0)
  }

  @Test func copiesInNewNestedMonthDirectoriesArePickedUp() throws {
    let f = try Folder()
    let w = try f.watch(["--quiet-for", "1"])
    #expect(w.waitFor("watching"))
    // A new year and its month appear at once, as a sync client creates them.
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 3)
    try WatchDocuments.renameIntoPlace(bytes, f.path("records/2027/03 2.automerge"))
    let created = Watcher.waitUntil(120) {
      f.holds("records/2027/03.automerge", [hash])
        && !FileManager.default.fileExists(atPath: f.path("records/2027/03 2.automerge"))
    }
    #expect(created, "\(w.stderr)")
    // And a copy written later in that new directory is seen too.
    let (later, laterHash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 4)
    try WatchDocuments.renameIntoPlace(later, f.path("records/2027/03 3.automerge"))
    #expect(Watcher.waitUntil(120) { f.holds("records/2027/03.automerge", [laterHash]) })
    #expect(w.stop() == 0)
  }

  @Test func theAppsLockHeldMakesItWaitThenMergeAndTheAppsWritesAreNoCopies() throws {
    let f = try Folder()
    let w = try f.watch(["--quiet-for", "1"])
    #expect(w.waitFor("watching"))
    let lock = open(f.path(".minuta.writelock.nosync"), O_CREAT | O_RDWR, 0o644)
    #expect(flock(lock, LOCK_EX) == 0)
    // The app writes its document under the lock, as it does: temporary, then rename.
    let (appBytes, appHash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 5)
    try WatchDocuments.renameIntoPlace(appBytes, f.path(Self.month))
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 6)
    let copy = f.path("records/2026/09.sync-conflict-20260906-154512-ABCDEFG.automerge")
    try WatchDocuments.renameIntoPlace(bytes, copy)
    #expect(
      w.waitFor("mn: waiting for the write lock ('\(f.path(".minuta.writelock.nosync"))')"))
    // It said it waits: the copy cannot have been merged (the lock is still held here).
    #expect(FileManager.default.fileExists(atPath: copy), "nothing merged under the app's lock")
    #expect(w.stderr.components(separatedBy: "waiting for the write lock").count == 2, "one line")
    flock(lock, LOCK_UN)
    close(lock)
    let merged = Watcher.waitUntil(120) {
      !FileManager.default.fileExists(atPath: copy) && f.holds(Self.month, [hash, appHash])
    }
    #expect(merged, "\(w.stderr)")
    #expect(w.stderr.contains("mn: took the write lock after "))
    // The app's own write was never a copy: one merge, of the one copy. (Its line follows
    // the copy's removal: on a loaded machine it may come a moment after.)
    #expect(w.waitFor("09.automerge: added", 120))
    #expect(w.stderr.components(separatedBy: "09.automerge: added").count == 2, "\(w.stderr)")
    #expect(w.stop() == 0)
  }

  @Test func aFolderRemovedAndRecreatedIsWaitedForAndWatchedAgain() throws {
    let f = try Folder()
    let w = try f.watch(["--quiet-for", "1"])
    #expect(w.waitFor("watching"))
    try FileManager.default.removeItem(atPath: f.root)
    #expect(w.waitFor("mn: data folder '\(f.root)' is gone; waiting for it to come back", 120))
    #expect(w.process.isRunning)
    try f.box.write("data/records/2026/09.automerge", Data(try WatchDocuments.month))
    #expect(w.waitFor("mn: data folder '\(f.root)' is back", 120), "\(w.stderr)")
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 7)
    let copy = f.path("records/2026/09 2.automerge")
    try WatchDocuments.renameIntoPlace(bytes, copy)
    #expect(
      Watcher.waitUntil(120) {
        !FileManager.default.fileExists(atPath: copy) && f.holds(Self.month, [hash])
      })
    #expect(w.stop() == 0)
  }

  @Test func sigtermMidMergeFinishesTheDocumentInHandAndExitsZero() throws {
    let f = try Folder()
    // 120 documents with two copies each: long enough a merge to stop part-way.
    var expected: [String: Set<ChangeHash>] = [:]
    var tag: UInt64 = 100
    for year in 2010..<2020 {
      for month in 1...12 {
        let name = String(format: "records/%d/%02d.automerge", year, month)
        try f.box.write("data/" + name, Data(try WatchDocuments.month))
        for k in 2...3 {
          tag += 1
          let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: tag)
          try f.box.write(
            "data/" + name.replacingOccurrences(of: ".automerge", with: " \(k).automerge"),
            Data(bytes))
          expected[name, default: []].insert(hash)
        }
      }
    }
    // Stopped by itself after its third document's swap (docs/testing.md), then SIGTERM
    // and SIGCONT: the signal is there when it goes on, mid-merge, whatever the load.
    f.box.extraEnvironment["MN_TEST_PAUSE_AT"] = "after-swap:3"
    let w = try f.watch(["--quiet-for", "0"])
    f.box.extraEnvironment["MN_TEST_PAUSE_AT"] = nil
    #expect(Watcher.waitUntil(600) { Sandbox.isStopped(w.pid) }, "\(w.stderr)")
    kill(w.pid, SIGTERM)
    kill(w.pid, SIGCONT)
    // No second signal (that one exits at once, 130): it stops by itself.
    #expect(Watcher.waitUntil(600) { !w.process.isRunning }, "\(w.stderr)")
    w.process.waitUntilExit()
    #expect(w.process.terminationReason == .exit && w.process.terminationStatus == 0)
    #expect(w.stderr.hasSuffix("mn: stopping\n"))
    // Consistent: each document merged whole (its copies gone) or not at all (its copies
    // all there); every change is somewhere; no temporary left.
    var merged = 0
    for (name, hashes) in expected {
      let copies = (2...3).map {
        f.path(name.replacingOccurrences(of: ".automerge", with: " \($0).automerge"))
      }
      let present = copies.filter { FileManager.default.fileExists(atPath: $0) }
      if present.isEmpty {
        merged += 1
        #expect(f.holds(name, hashes), "\(name)")
      } else {
        #expect(present.count == 2, "\(name): half merged")
        var found = WatchDocuments.hashes(f.path(name))
        for copy in copies { found.formUnion(WatchDocuments.hashes(copy)) }
        #expect(hashes.isSubset(of: found), "\(name)")
      }
    }
    #expect(merged < expected.count, "stopped before the end: \(w.stderr)")
    let temporaries = try f.box.files("data").filter { $0.contains(".mn-") }
    #expect(temporaries.isEmpty)
    // A pass finishes the job.
    let once = try f.box.run(["--root", f.root, "watch", "--once", "--quiet-for", "0"])
    #expect(once.status == 0, "\(once.stderr)")
    #expect(WatchDocuments.copies(f.root).isEmpty)
    for (name, hashes) in expected { #expect(f.holds(name, hashes), "\(name)") }
  }

  @Test func fetchBringsPlaceholdersAndTheCopiesFetchedAreMergedInTheSamePass() throws {
    let f = try Folder()
    try FileManager.default.removeItem(atPath: f.path(Self.month))
    let other = f.box.path("other")
    let (copyBytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 10)
    try f.box.write("other/" + Self.month, Data(try WatchDocuments.month))
    try f.box.write("other/records/2026/09 2.automerge", Data(copyBytes))
    try f.box.writeICloudStub(for: "data/" + Self.month, size: try WatchDocuments.month.count)
    try f.box.writeICloudStub(for: "data/records/2026/09 2.automerge", size: copyBytes.count)
    let r = try f.box.run([
      "--root", f.root, "watch", "--once", "--quiet-for", "0", "--fetch", "--fetch-from", other,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("mn: fetched '\(Self.month)'"), "\(r.stderr)")
    #expect(
      r.stderr.contains("records/2026/09.automerge: added 1 change from 1 copy"), "\(r.stderr)")
    #expect(f.holds(Self.month, [hash]))
    #expect(WatchDocuments.copies(f.root).isEmpty)
    #expect(try f.box.files("data").filter { $0.hasSuffix(".icloud") }.isEmpty)
  }

  @Test func aNamedFolderThatIsNotThereYetIsWaitedFor() throws {
    let box = try Sandbox()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    let root = box.path("later/data")
    let w = try Watcher(box, ["--root", root, "watch", "--quiet-for", "0.5"])
    #expect(w.waitFor("mn: data folder '\(root)' is gone; waiting for it to come back"))
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 11)
    try box.write("later/data/" + Self.month, Data(try WatchDocuments.month))
    #expect(w.waitFor("mn: data folder '\(root)' is back", 120), "\(w.stderr)")
    try WatchDocuments.renameIntoPlace(bytes, root + "/records/2026/09 2.automerge")
    #expect(
      Watcher.waitUntil(120) {
        hashes(root + "/" + Self.month).contains(hash)
      }, "\(w.stderr)")
    #expect(w.stop() == 0)
    // --once does not wait: no folder is exit 66.
    let once = try box.run(["--root", box.path("none"), "watch", "--once"])
    #expect(once.status == 66)
  }

  func hashes(_ path: String) -> Set<ChangeHash> { WatchDocuments.hashes(path) }

  @Test func sighupRescans() throws {
    let f = try Folder()
    let w = try f.watch(["--quiet-for", "1"])
    #expect(w.waitFor("watching"))
    kill(w.pid, SIGHUP)
    #expect(w.waitFor("mn: rescanning (SIGHUP)", 120))
    #expect(w.process.isRunning)
    #expect(w.stop() == 0)
  }

  @Test func onceWithJSONPrintsJSONLines() throws {
    let f = try Folder()
    let (bytes, hash) = try WatchDocuments.withNewChange(try WatchDocuments.tags, tag: 8)
    try f.box.write("data/tags (conflicted copy 2026-09-06 154512).automerge", Data(bytes))
    let r = try f.box.run(["--root", f.root, "watch", "--once", "--quiet-for", "0", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    let objects = try lines.map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.map { $0["event"] as? String } == ["watching", "backup", "merged"])
    #expect(objects.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
    #expect(objects.last?["name"] as? String == "tags.automerge")
    #expect(objects.last?["added"] as? Int == 1)
    #expect(f.holds("tags.automerge", [hash]))
  }

  /// A copy that does not decode, written 3 s ago: quiet for --quiet-for 1, but not for six
  /// quiet periods, so still arriving: no error, exit 0, `-v` says it waits. Unchanged for
  /// a minute, it is reported as damaged (kept), exit 65 (mn.md §12). The times are set on
  /// the file, not waited for.
  @Test func aCopyStillArrivingIsWaitedForAndOnlyThenCalledDamaged() throws {
    let f = try Folder()
    let (bytes, _) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 11)
    let rel = "data/records/2026/09 2.automerge"
    try f.box.write(rel, Data(bytes.prefix(bytes.count / 2)))
    try f.box.touch(rel, Date().timeIntervalSince1970 - 3)
    let arriving = try f.box.run(["--root", f.root, "watch", "--once", "--quiet-for", "1"])
    #expect(arriving.status == 0, "\(arriving.stderr)")
    #expect(!arriving.stderr.contains("error"), "\(arriving.stderr)")
    #expect(!arriving.stderr.contains("09 2.automerge"), "\(arriving.stderr)")
    let verbose = try f.box.run(["--root", f.root, "watch", "--once", "--quiet-for", "1", "-v"])
    #expect(
      verbose.stderr.contains("waiting for '\(f.box.path(rel))': it does not decode yet"),
      "\(verbose.stderr)")
    try f.box.touch(rel, Date().timeIntervalSince1970 - 60)
    let damaged = try f.box.run(["--root", f.root, "watch", "--once", "--quiet-for", "1"])
    #expect(damaged.status == 65, "\(damaged.stderr)")
    #expect(damaged.stderr.contains("mn: error: "), "\(damaged.stderr)")
    #expect(FileManager.default.fileExists(atPath: f.box.path(rel)), "kept")
  }

  @Test func onceLeavesACopyThatIsNotQuietYet() throws {
    let f = try Folder()
    let (bytes, _) = try WatchDocuments.withNewChange(try WatchDocuments.month, tag: 9)
    try f.box.write("data/records/2026/09 2.automerge", Data(bytes))
    let r = try f.box.run(["--root", f.root, "watch", "--once", "--quiet-for", "600"])
    #expect(r.status == 0)
    #expect(r.stderr.contains("mn: left 1 copy changed less than 600s ago"))
    #expect(FileManager.default.fileExists(atPath: f.path("records/2026/09 2.automerge")))
  }

  @Test func aScheduledBackupIsWrittenAndTheRetentionIsReached() throws {
    let f = try Folder()
    let r = try f.box.run([
      "--root", f.root, "watch", "--once", "--backup-every", "1h", "--keep-last", "2", "--json",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let events = r.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let backup = try #require(events.first { $0["event"] as? String == "backup" })
    #expect(backup["scheduled"] as? Bool == true)
    let path = try #require(backup["path"] as? String)
    #expect(path.hasSuffix("-watch.tar.gz") && FileManager.default.fileExists(atPath: path))
    #expect(events.last?["event"] as? String == "pruned", "the retention call site is reached")
    // Within the hour a second pass makes no scheduled backup.
    let again = try f.box.run(["--root", f.root, "watch", "--once", "--backup-every", "1h"])
    #expect(!again.stderr.contains("scheduled backup"), "\(again.stderr)")
  }

  @Test func usageErrors() throws {
    let f = try Folder()
    for (arguments, message) in [
      (["--backup-every", "soon"], "invalid value 'soon' for '--backup-every'"),
      (["--keep-last", "3"], "mn: error: --keep-last needs --backup-every\n"),
      (["--fetch-from", "/x"], "--fetch-from needs --fetch"),
      (["--service", "cron"], "cron"),
    ] {
      let r = try f.box.run(["--root", f.root, "watch"] + arguments)
      #expect(r.status == 64, "\(arguments)")
      #expect(r.stderr.contains(message), "\(r.stderr)")
    }
  }

  @Test func theSystemdUnitRunsThisBinaryWithTheOptionsGiven() throws {
    let f = try Folder()
    let r = try f.box.run([
      "--root", "data", "watch", "--service", "systemd", "--quiet-for", "30", "--fetch",
      "--fetch-from", "other dir",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let binary = Sandbox.binary.resolvingSymlinksInPath().path
    #expect(
      r.stdout.contains(
        "ExecStart=\(binary) watch --root \(f.root) --quiet-for 30 --fetch --fetch-from \"\(f.box.path("other dir"))\"\n"
      ), "\(r.stdout)")
    for line in ["Restart=on-failure\n", "WantedBy=default.target\n", "[Service]\n"] {
      #expect(r.stdout.contains(line))
    }
    // systemd's own check, where it is installed.
    let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    if let analyze {
      try f.box.write("mn-watch.service", r.stdout)
      let check = Process()
      check.executableURL = URL(fileURLWithPath: analyze)
      // System mode: a container has no user manager. No man page check: the page is not
      // installed here.
      check.arguments = ["verify", "--man=no", f.box.path("mn-watch.service")]
      check.environment = f.box.environment()
      let pipe = Pipe()
      check.standardError = pipe
      check.standardOutput = pipe
      try check.run()
      let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      check.waitUntilExit()
      if !said.contains("Failed to initialize manager") {
        #expect(check.terminationStatus == 0, "\(said)")
        #expect(said.isEmpty, "\(said)")
      }
    }
  }

  @Test func theLaunchAgentIsAPropertyListThatRunsThisBinary() throws {
    let f = try Folder()
    let r = try f.box.run(["--root", f.root, "watch", "--service", "launchd"])
    #expect(r.status == 0, "\(r.stderr)")
    let plist = try #require(
      try PropertyListSerialization.propertyList(from: r.stdoutBytes, format: nil)
        as? [String: Any])
    #expect(plist["Label"] as? String == "tools.minuta.mn-watch")
    let binary = Sandbox.binary.resolvingSymlinksInPath().path
    #expect(plist["ProgramArguments"] as? [String] == [binary, "watch", "--root", f.root])
    #expect(plist["RunAtLoad"] as? Bool == true)
    #expect((plist["KeepAlive"] as? [String: Any])?["SuccessfulExit"] as? Bool == false)
    #expect(plist["StandardErrorPath"] as? String == f.box.path("Library/Logs/mn-watch.log"))
  }
}
