import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `mn backups list | verify | prune` with the built binary, in a sandbox HOME.
@Suite struct BackupsTests {
  /// A sandbox with the sample data folder, `MN_BACKUP_DIR=backups`, and one exported
  /// archive copied into the backup folder under a backup's name for each time given.
  static func sandbox(times: [String] = []) throws -> Sandbox {
    let box = try Sandbox()
    try box.copyFromPackage("examples/sample", to: "Documents/Minuta")
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    try box.mkdir("backups")
    guard !times.isEmpty else { return box }
    let r = try box.run(["export", "-q", "-o", "archive.tar.gz"])
    #expect(r.status == 0, "\(r.stderr)")
    for time in times {
      try FileManager.default.copyItem(
        atPath: box.path("archive.tar.gz"),
        toPath: box.path("backups/minuta-backup-\(time)-watch.tar.gz"))
    }
    return box
  }

  static func names(_ box: Sandbox) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: box.path("backups"))) ?? []).sorted()
  }

  static func json(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func listShowsTheBackupThatMergeConflictsWrote() throws {
    let box = try Self.sandbox()
    let merged = try box.run(["merge-conflicts"])
    #expect(merged.status == 0, "\(merged.stderr)")
    let name = try #require(Self.names(box).first)
    for arguments in [["backups"], ["backups", "list"]] {
      let r = try box.run(arguments)
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stderr.isEmpty)
      let fields = r.stdout.split(separator: " ", omittingEmptySubsequences: true)
      #expect(fields.count == 7, "\(r.stdout)")
      #expect(fields.first?.hasSuffix("Z") == true)
      #expect(fields[1] == "merge-conflicts")
      #expect(fields[5] == "documents")
      #expect(r.stdout.hasSuffix("  \(name)\n"))
    }
    let r = try box.run(["backups", "--json"])
    let listing = try Self.json(r.stdout)
    #expect(listing["directory"] as? String == box.path("backups"))
    let backups = try #require(listing["backups"] as? [[String: Any]])
    #expect(backups.count == 1)
    #expect(backups.first?["verb"] as? String == "merge-conflicts")
    #expect(backups.first?["intact"] as? Bool == true)
    #expect(backups.first?["source"] as? String == box.path("Documents/Minuta"))
    let size = try FileManager.default.attributesOfItem(atPath: box.path("backups/" + name))[.size]
    #expect((backups.first?["size"] as? Int) == (size as? Int))
    #expect((backups.first?["documents"] as? Int ?? 0) > 0)
  }

  @Test func theDefaultFolderIsUnderXDGStateHome() throws {
    let box = try Sandbox()
    let empty = try box.run(["backups"])
    #expect(empty.status == 0)
    #expect(empty.stdout.isEmpty)
    #expect(empty.stderr == "mn: no backups in '\(box.path(".local/state/minuta/backups"))'\n")
    // Listing and pruning create nothing.
    #expect(try box.run(["backups", "prune", "--keep-last", "1"]).status == 0)
    #expect(!box.exists(".local/state/minuta"))
  }

  @Test func verifyNamesTheDamagedBackups() throws {
    let box = try Self.sandbox(times: ["20260101-110000", "20260102-110000"])
    #expect(try box.run(["backups", "verify"]).status == 0)
    let bytes = try box.read("archive.tar.gz")
    try box.write(
      "backups/minuta-backup-20260103-110000-watch.tar.gz", bytes.prefix(bytes.count - 64))
    let r = try box.run(["backups", "verify"])
    #expect(r.status == 65)
    let damaged = box.path("backups/minuta-backup-20260103-110000-watch.tar.gz")
    #expect(r.stderr.hasPrefix("mn: error: damaged backup '\(damaged)': "), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(r.stdout.split(separator: "\n").count == 2)
    #expect(r.stdout.hasPrefix("ok       minuta-backup-20260101-110000-watch.tar.gz  ("))
    // Named archives, anywhere.
    #expect(try box.run(["backups", "verify", "archive.tar.gz"]).status == 0)
    #expect(try box.run(["backups", "verify", damaged]).status == 65)
    #expect(try box.run(["backups", "verify", "missing.tar.gz"]).status == 66)
    // The listing shows it, and says it is damaged.
    let list = try box.run(["backups"])
    #expect(list.status == 0)
    let line = list.stdout.split(separator: "\n").last ?? ""
    #expect(line.hasSuffix("  minuta-backup-20260103-110000-watch.tar.gz"), "\(list.stdout)")
    #expect(line.contains("  damaged  "))
  }

  @Test func pruneKeepsWhatTheRulesKeepAndTouchesNothingElse() throws {
    // restic's manual: one backup every Sunday for twelve weeks; --keep-daily 4 keeps the
    // last four. A damaged backup, another file and a link stay whatever the policy.
    let sundays = [
      "20190901", "20190908", "20190915", "20190922", "20190929", "20191006", "20191013",
      "20191020", "20191027", "20191103", "20191110", "20191117",
    ]
    let box = try Self.sandbox(times: sundays.map { $0 + "-110000" })
    try box.write("backups/notes.txt", "mine")
    try box.write("backups/minuta-backup-20190101-000000-migrate.tar.gz", "not an archive")
    try FileManager.default.createSymbolicLink(
      atPath: box.path("backups/minuta-backup-20191201-000000-migrate.tar.gz"),
      withDestinationPath: box.path("archive.tar.gz"))
    let before = Self.names(box)

    let dry = try box.run(["backups", "prune", "--keep-daily", "4", "--dry-run"])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(Self.names(box) == before)
    let lines = dry.stdout.split(separator: "\n")
    #expect(lines.count == 12)
    #expect(
      lines.prefix(4).map { String($0.prefix(6)) + String($0.dropFirst(8).prefix(10)) } == [
        "keep  2019-11-17", "keep  2019-11-10", "keep  2019-11-03", "keep  2019-10-27",
      ])
    #expect(lines.prefix(4).allSatisfy { $0.hasSuffix("-watch.tar.gz  (daily)") })
    #expect(lines.dropFirst(4).allSatisfy { $0.hasPrefix("remove  2019-") })
    #expect(dry.stderr.contains("mn: kept 4, would remove 8 of 12 backups\n"))
    #expect(
      dry.stderr.contains(
        "mn: warning: 'minuta-backup-20190101-000000-migrate.tar.gz' is damaged; left in place"))

    let json = try Self.json(
      try box.run(["backups", "prune", "--keep-daily", "4", "--dry-run", "--json"]).stdout)
    #expect(json["dryRun"] as? Bool == true)
    let backups = try #require(json["backups"] as? [[String: Any]])
    #expect(backups.compactMap { $0["action"] as? String }.filter { $0 == "keep" }.count == 4)
    #expect(backups.first?["reasons"] as? [String] == ["daily"])

    // One per month forever: September, October, November, and the oldest (September 1st).
    let monthly = try box.run(["backups", "prune", "--keep-monthly", "unlimited", "-n", "--json"])
    #expect(monthly.status == 0, "\(monthly.stderr)")
    #expect(monthly.stderr.contains("mn: kept 4, would remove 8 of 12 backups\n"))
    let policy = try #require(try Self.json(monthly.stdout)["policy"] as? [String: Any])
    #expect(policy["monthly"] as? String == "unlimited")

    let real = try box.run(["backups", "prune", "--keep-daily", "4"])
    #expect(real.status == 0, "\(real.stderr)")
    #expect(real.stderr.contains("mn: kept 4, removed 8 of 12 backups\n"))
    #expect(
      Self.names(box) == [
        ".mn-backups.lock",
        "minuta-backup-20190101-000000-migrate.tar.gz",
        "minuta-backup-20191027-110000-watch.tar.gz",
        "minuta-backup-20191103-110000-watch.tar.gz",
        "minuta-backup-20191110-110000-watch.tar.gz",
        "minuta-backup-20191117-110000-watch.tar.gz",
        "minuta-backup-20191201-000000-migrate.tar.gz",
        "notes.txt",
      ])
    #expect(box.exists("archive.tar.gz"))
    #expect(try box.run(["backups", "prune", "--keep-last", "1"]).status == 0)
    #expect(Self.names(box).filter { $0.hasSuffix("-watch.tar.gz") }.count == 1)
  }

  @Test func pruneNeedsAKeepOptionAndWaitsForTheLock() throws {
    let box = try Self.sandbox(times: ["20260101-110000", "20260102-110000"])
    let none = try box.run(["backups", "prune"])
    #expect(none.status == 64)
    #expect(none.stderr.contains("see 'mn backups prune --help'"))
    #expect(try box.run(["backups", "prune", "--keep-last", "0"]).status == 64)
    #expect(try box.run(["backups", "prune", "--keep-last", "x"]).status == 64)

    let fd = open(box.path("backups/.mn-backups.lock"), O_CREAT | O_RDWR, 0o644)
    #expect(fd >= 0)
    defer { close(fd) }
    #expect(flock(fd, LOCK_EX) == 0)
    let held = try box.run(["backups", "prune", "--keep-last", "1", "--wait", "0.2"])
    #expect(held.status == 75)
    #expect(held.stderr.hasPrefix("mn: error: the backup folder is locked by another writer"))
    #expect(Self.names(box).count == 3)
    #expect(flock(fd, LOCK_UN) == 0)
    let quiet = try box.run(["backups", "prune", "--keep-last", "1", "-q"])
    #expect(quiet.status == 0)
    #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
    #expect(Self.names(box).count == 2)
  }

  @Test func versionNamesTheCommit() throws {
    let r = try Sandbox().run(["--version"])
    #expect(r.status == 0)
    #expect(r.stdout.hasPrefix("mn 0.1.0 (commit "))
    #expect(r.stdout.hasSuffix(")\n"))
  }
}
