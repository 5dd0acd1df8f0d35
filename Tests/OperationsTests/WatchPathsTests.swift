import Foundation
import Testing

@testable import Archive
@testable import Operations
@testable import Platform
@testable import TestSupport

/// What `mn watch` acts on, by name (mn.md §3 and §12).
@Suite struct WatchPathsTests {
  @Test(arguments: [
    ("/d/records/2026/09 2.automerge", WatchPathKind.copy),
    ("/d/records/2026/09.sync-conflict-20260906-154512-ABCDEFG.automerge", .copy),
    ("/d/records/2026/09 (Ada's conflicted copy 2026-09-06).automerge", .copy),
    ("/d/tags (conflicted copy 2026-09-06 154512).automerge", .copy),
    ("/d/records/2026/09.automerge.conflict1", .copy),
    // The documents themselves, as the app rewrites them: never copies.
    ("/d/records/2026/09.automerge", .document),
    ("/d/tags.automerge", .document),
    // mn's and the app's temporaries, the lock, other files.
    ("/d/records/2026/.09.automerge.mn-ABC123.nosync", .other),
    ("/d/.minuta.writelock.nosync", .other),
    ("/d/.minuta-version", .other),
    ("/d/notes 2.automerge", .other),
    ("/d/records/09 2.automerge", .other),
    ("/d/records/2026/13 2.automerge", .other),
    ("/elsewhere/records/2026/09 2.automerge", .other),
    ("/d", .other),
    // Placeholders of documents and of copies.
    ("/d/records/2026/.09.automerge.icloud", .placeholder),
    ("/d/records/2026/.09 2.automerge.icloud", .placeholder),
    ("/d/tags.automerge.nextcloud", .placeholder),
    ("/d/.notes.txt.icloud", .other),
  ])
  func namesAreToldApart(_ path: String, _ kind: WatchPathKind) {
    #expect(WatchPaths.kind(of: AbsolutePath(path), root: "/d") == kind)
  }

  @Test func scheduledBackupTimesAreReadOffTheirNames() {
    // 2026-09-06T15:45:12Z
    let t = 1_788_709_512.0
    #expect(WatchPaths.scheduledBackupTime("minuta-backup-20260906-154512-watch.tar.gz") == t)
    #expect(WatchPaths.scheduledBackupTime("minuta-backup-20260906-154512-watch-2.tar.gz") == t)
    #expect(WatchPaths.scheduledBackupTime("minuta-backup-19700101-000000-watch.tar.gz") == 0)
    for name in [
      "minuta-backup-20260906-154512-watch-merge.tar.gz",
      "minuta-backup-20260906-154512-merge-conflicts.tar.gz",
      "minuta-backup-20261306-154512-watch.tar.gz", "minuta-backup-2026090-154512-watch.tar.gz",
      "minuta-backup-20260906-154512-watch-.tar.gz", "other.tar.gz",
    ] {
      #expect(WatchPaths.scheduledBackupTime(name) == nil, "\(name)")
    }
  }

  @Test func daysFromCivilInvertsUTCDateTime() {
    for seconds: Int64 in [0, 951_782_400, 1_788_709_512, 4_102_444_800, -86_400] {
      let d = UTCDateTime(secondsSinceEpoch: seconds)
      let days = WatchPaths.daysFromCivil(Int64(d.year), Int64(d.month), Int64(d.day))
      #expect(days * 86_400 + Int64(d.hour * 3600 + d.minute * 60 + d.second) == seconds)
    }
  }

  /// The newest scheduled backup of the watched folder, read back: not a newer one of
  /// another folder in the same backup folder, nor another reason's, nor a damaged one.
  @Test func theNewestScheduledBackupOfThisFolderIsFound() throws {
    let scratch = try ScratchFolder()
    let backups = AbsolutePath(scratch.path + "/backups")
    func backup(of name: String, at now: Int64, reason: String = "watch") throws -> String {
      let root = scratch.path + "/" + name
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      try Data("3\n".utf8).write(to: URL(fileURLWithPath: root + "/.minuta-version"))
      return try Backup.make(
        files: [
          ExportFile(
            relativePath: ".minuta-version",
            absolutePath: AbsolutePath(root).appending(".minuta-version"),
            kind: .other)
        ], source: root, reason: reason, directory: backups, dataRoots: [AbsolutePath(root)],
        version: "1.0", now: now, fileSystem: LiveFileSystem(), inspect: nil
      ).path.string
    }
    let t0: Int64 = 1_788_709_512
    let ours = try backup(of: "data", at: t0)
    _ = try backup(of: "other", at: t0 + 3600)
    _ = try backup(of: "data", at: t0 + 7200, reason: "merge-conflicts")
    let damaged = try backup(of: "data", at: t0 + 10_800)
    try Data("not an archive".utf8).write(to: URL(fileURLWithPath: damaged))
    let found = WatchPaths.lastScheduledBackup(
      of: AbsolutePath(scratch.path + "/data"), in: backups, fileSystem: LiveFileSystem())
    #expect(found == WatchPaths.scheduledBackupTime(URL(fileURLWithPath: ours).lastPathComponent))
    #expect(found == Double(t0))
    #expect(
      WatchPaths.lastScheduledBackup(
        of: AbsolutePath(scratch.path + "/none"), in: backups, fileSystem: LiveFileSystem()) == nil)
    #expect(
      WatchPaths.lastScheduledBackup(
        of: AbsolutePath(scratch.path + "/data"), in: backups.appending("none"),
        fileSystem: LiveFileSystem()) == nil)
  }
}
