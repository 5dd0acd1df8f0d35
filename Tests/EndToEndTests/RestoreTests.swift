import Foundation
import Testing

@Suite struct RestoreTests {
  /// A sandbox with the sample folder exported to `sample.tar.gz` and backups in `backups`.
  static func sandbox() throws -> Sandbox {
    let box = try Sandbox()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    try box.copyFromPackage("examples/sample", to: "sample")
    let r = try box.run(["--root", "sample", "export", "-o", "sample.tar.gz"])
    #expect(r.status == 0, "\(r.stderr)")
    return box
  }

  static func changes(_ box: Sandbox, _ rel: String) throws -> Set<String> {
    let r = try box.run(["doc", "changes", box.path(rel)])
    #expect(r.status == 0, "\(r.stderr)")
    return Set(r.stdout.split(separator: "\n").map(String.init))
  }

  static func backups(_ box: Sandbox) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: box.path("backups"))) ?? []).sorted()
  }

  @Test func intoANewFolderGivesTheSameFiles() throws {
    let box = try Self.sandbox()
    let r = try box.run(["restore", "sample.tar.gz", "--to", "new"])
    #expect(r.status == 0)
    #expect(r.stdout.isEmpty)
    #expect(
      r.stderr
        == "mn: restored 'sample.tar.gz' into '\(box.path("new"))': 7 written, 0 merged, 0 unchanged, 0 left alone\n"
    )
    var restored = try box.files(under: "new")
    #expect(restored.removeValue(forKey: ".minuta.writelock.nosync") != nil)
    #expect(restored == (try box.files(under: "sample")))
    #expect(Self.backups(box).isEmpty)
  }

  @Test func mergesIntoAFolderWithOtherChangesAfterABackup() throws {
    let box = try Self.sandbox()
    try box.copyFromPackage("examples/second-device", to: "Documents/Minuta")
    let before = try box.files(under: "Documents/Minuta")
    let expected = try ["tags.automerge", "records/2026/10.automerge"].map {
      try Self.changes(box, "sample/" + $0).union(Self.changes(box, "Documents/Minuta/" + $0))
    }
    let r = try box.run(["restore", "sample.tar.gz"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("4 written, 2 merged, 1 unchanged, 0 left alone\n"))
    for (i, name) in ["tags.automerge", "records/2026/10.automerge"].enumerated() {
      let merged = try Self.changes(box, "Documents/Minuta/" + name)
      #expect(merged == expected[i])
      // One input comes first, unchanged: the one holding more changes (mn.md §6).
      let after = try box.read("Documents/Minuta/" + name)
      let restored = try box.read("sample/" + name)
      #expect(after.starts(with: before[name] ?? Data([1])) || after.starts(with: restored))
    }
    #expect(
      try box.read("Documents/Minuta/records/2026/09.automerge")
        == box.read("sample/records/2026/09.automerge"))
    let backups = Self.backups(box)
    #expect(backups.count == 1)
    let backup = try #require(backups.first)
    #expect(backup.wholeMatch(of: #/minuta-backup-\d{8}-\d{6}-restore\.tar\.gz/#) != nil)
    #expect(
      r.stderr.contains(
        "mn: backup written to '\(box.path("backups/" + backup))'\n"))
    for (name, bytes) in before where name != ".minuta.writelock.nosync" {
      #expect(try box.archiveEntry("backups/" + backup, "Minuta/" + name) == bytes)
    }
  }

  @Test func aSecondRestoreChangesNothing() throws {
    let box = try Self.sandbox()
    try box.copyFromPackage("examples/second-device", to: "dest")
    #expect(try box.run(["restore", "sample.tar.gz", "--to", "dest"]).status == 0)
    let after = try box.files(under: "dest")
    let backups = Self.backups(box)
    let dry = try box.run(["restore", "--dry-run", "sample.tar.gz", "--to", "dest"])
    #expect(dry.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("unchanged ") })
    let again = try box.run(["restore", "sample.tar.gz", "--to", "dest", "--json"])
    #expect(again.status == 0)
    let report = try #require(
      JSONSerialization.jsonObject(with: again.stdoutBytes) as? [String: Any])
    #expect((report["unchanged"] as? [String])?.count == 7)
    #expect((report["written"] as? [String]) == [] && (report["merged"] as? [String]) == [])
    #expect(report["backup"] is NSNull)
    #expect(try box.files(under: "dest") == after)
    #expect(Self.backups(box) == backups)
  }

  @Test func dryRunWritesNothing() throws {
    let box = try Self.sandbox()
    try box.copyFromPackage("examples/second-device", to: "dest")
    let before = try box.files(under: "dest")
    let r = try box.run(["restore", "--dry-run", "sample.tar.gz", "--to", "dest"])
    #expect(r.status == 0)
    #expect(r.stdout.contains("merge          tags.automerge\n"))
    #expect(r.stdout.contains("write          records/2026/09.automerge\n"))
    #expect(r.stdout.contains("unchanged      .minuta-version\n"))
    #expect(r.stderr.contains("would be backed up before merging"))
    #expect(try box.files(under: "dest") == before)
    #expect(Self.backups(box).isEmpty)
    let fresh = try box.run(["restore", "--dry-run", "--json", "sample.tar.gz", "--to", "fresh"])
    #expect(fresh.status == 0)
    let plan = try #require(JSONSerialization.jsonObject(with: fresh.stdoutBytes) as? [String: Any])
    #expect(plan["destinationExists"] as? Bool == false)
    #expect(
      (plan["items"] as? [[String: Any]])?.allSatisfy { $0["action"] as? String == "write" } == true
    )
    #expect(!box.exists("fresh"))
  }

  @Test(arguments: ["symlink", "dotdot"])
  func hostileArchivesAreRefusedWithNothingWritten(kind: String) throws {
    let box = try Self.sandbox()
    try box.write("evil/Minuta/tags.automerge", try box.read("sample/tags.automerge"))
    let arguments: [String]
    if kind == "symlink" {
      try FileManager.default.createSymbolicLink(
        atPath: box.path("evil/Minuta/records"), withDestinationPath: box.path("elsewhere"))
      arguments = ["-cf", box.path("evil.tar"), "Minuta"]
    } else {
      arguments = [
        "-cf", box.path("evil.tar"), "-s", ",^Minuta/tags,Minuta/../tags,", "Minuta/tags.automerge",
      ]
    }
    #expect(try externalTool("bsdtar", arguments, in: box.path("evil")).status == 0)
    let r = try box.run(["restore", "evil.tar", "--to", "dest"])
    #expect(r.status == 65)
    #expect(r.stderr.hasPrefix("mn: error: archive entry "))
    #expect(!box.exists("dest"))
    #expect(!box.exists("tags.automerge"))
    try box.mkdir("existing")
    #expect(try box.run(["restore", "evil.tar", "--to", "existing"]).status == 65)
    #expect(try FileManager.default.contentsOfDirectory(atPath: box.path("existing")).isEmpty)
  }

  @Test func placeholderAtTheDestinationIs69() throws {
    let box = try Self.sandbox()
    try box.write("dest/records/2026/.10.automerge.icloud", "")
    let r = try box.run(["restore", "sample.tar.gz", "--to", "dest"])
    #expect(r.status == 69)
    #expect(r.stderr.contains("'records/2026/10.automerge'"))
    #expect(
      try FileManager.default.subpathsOfDirectory(atPath: box.path("dest")).sorted().filter {
        !$0.hasSuffix(".nosync")
      }
        == ["records", "records/2026", "records/2026/.10.automerge.icloud"])
  }

  @Test func otherFilesThatDifferAreLeftAlone() throws {
    let box = try Self.sandbox()
    try box.write("dest/.minuta-version", "99\n")
    let r = try box.run(["restore", "sample.tar.gz", "--to", "dest"])
    #expect(r.status == 0)
    #expect(
      r.stderr.contains(
        "mn: warning: '.minuta-version' differs from the archive's copy; left alone\n"))
    #expect(try box.read("dest/.minuta-version") == Data("99\n".utf8))
    #expect(box.exists("dest/tags.automerge"))
  }

  @Test func fromStandardInputIntoAnExplicitNewRoot() throws {
    let box = try Self.sandbox()
    let r = try box.run(
      ["restore", "-"], stdin: try box.read("sample.tar.gz"),
      environment: ["MINUTA_STORAGE": box.path("created")])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try box.read("created/tags.automerge") == box.read("sample/tags.automerge"))
    let missing = try box.run(["restore", "nothing.tar.gz", "--to", "dest"])
    #expect(missing.status == 66)
    #expect(!box.exists("dest"))
    let none = try box.run(["restore", "sample.tar.gz"])
    #expect(none.status == 66)
    #expect(none.stderr.contains("--to DIR"))
  }
}

extension RestoreTests {
  @Test func aHeldLockIs75AndNothingIsWritten() throws {
    let box = try Self.sandbox()
    try box.mkdir("dest")
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    // -o: only flock itself holds the lock, so terminating it releases the lock at once.
    holder.arguments = ["-o", box.path("dest/.minuta.writelock.nosync"), "sleep", "5"]
    holder.standardOutput = FileHandle.nullDevice
    holder.standardError = FileHandle.nullDevice
    try holder.run()
    defer { holder.terminate() }
    // Wait until the holder has the lock.
    for _ in 0..<100 where !box.exists("dest/.minuta.writelock.nosync") { usleep(20_000) }
    usleep(100_000)
    let r = try box.run(["restore", "sample.tar.gz", "--to", "dest", "--wait", "0"])
    #expect(r.status == 75)
    #expect(r.stderr.contains("hint: retry later"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: box.path("dest")) == [
        ".minuta.writelock.nosync"
      ])
  }
}
