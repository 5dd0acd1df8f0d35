import Foundation
import Testing

/// `mn doctor` run as a user runs it (mn.md §11).
@Suite struct DoctorTests {
  @Test func aHealthyFolderIs0() throws {
    let box = try Sandbox()
    try box.write("Documents/Minuta/tags.automerge", try Sandbox.tags)
    try box.write("Documents/Minuta/records/2026/09.automerge", try Sandbox.september)
    let r = try box.run(["doctor"])
    #expect(r.status == 0)
    #expect(
      r.stdout == """
        data folder: \(box.path("Documents/Minuta")) (from local default)
        documents:   2 (2 local)
        lock:        free

        healthy: nothing needs attention

        """)
    #expect(r.stderr.isEmpty)
    #expect(try box.files("Documents/Minuta") == ["records/2026/09.automerge", "tags.automerge"])
    #expect(try box.run(["doctor", "-q"]).stdout.isEmpty)
  }

  @Test func findingsNameTheirFixAndExit1() throws {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    try box.write("data/tags.automerge", try Sandbox.tags)
    try box.write("data/tags 2.automerge", try Sandbox.tagsOther)
    try box.writeICloudStub(for: "data/records/2026/09.automerge", size: 100)
    try box.write("data/records/2026/10.automerge", Data("not automerge".utf8))
    try box.write("data/records/2026/.11.automerge.mn-a1b2c3.nosync", Data([1]))
    try FileManager.default.createSymbolicLink(
      atPath: box.path("data/records/2025"), withDestinationPath: "/")
    let before = try box.files("data")
    let r = try box.run(["doctor"])
    #expect(r.status == 1)
    #expect(r.stdout.contains("documents:   3 (1 local, 1 placeholder, 1 conflicted)\n"))
    for line in [
      "placeholder: records/2026/09.automerge: not downloaded (icloud placeholder)\n  fix: mn fetch records/2026/09.automerge\n",
      "unreadable-document: records/2026/10.automerge: not a valid Automerge file: ",
      "conflict: tags.automerge: 1 conflict copy\n  fix: mn merge-conflicts tags.automerge\n",
      "stale-temporary: records/2026/.11.automerge.mn-a1b2c3.nosync: ",
      "scan-problem: 'records/2025' is a symbolic link to '/', outside the data folder; not followed\n",
      "\n5 findings need attention\n",
    ] {
      #expect(r.stdout.contains(line), "\(line)")
    }
    #expect(try box.files("data") == before, "doctor removes and creates nothing")

    let json = try box.run(["doctor", "--json"])
    #expect(json.status == 1)
    let report = try #require(try Sandbox.json(json) as? [String: Any])
    #expect(report["root"] as? String == box.path("data"))
    #expect(report["source"] as? String == "env")
    #expect(report["healthy"] as? Bool == false)
    #expect((report["lock"] as? [String: Any])?["state"] as? String == "free")
    let documents = try #require(report["documents"] as? [String: Any])
    #expect(documents["total"] as? Int == 3 && documents["conflicted"] as? Int == 1)
    let findings = try #require(report["findings"] as? [[String: Any]])
    #expect(
      findings.map { $0["kind"] as? String } == [
        "placeholder", "unreadable-document", "conflict", "stale-temporary", "scan-problem",
      ])
    #expect(findings[0]["fix"] as? String == "mn fetch records/2026/09.automerge")
  }

  @Test func aLockHeldByAnotherWriterIsReported() throws {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    try box.write("data/tags.automerge", try Sandbox.tags)
    try box.write("data/records/2026/09.automerge.nextcloud", Data())
    let marker = box.path("started")
    let holder = try box.start(["fetch", "--exec", "touch '\(marker)'; sleep 3", "--timeout", "10"])
    defer { holder.terminate() }
    var waited = 0.0
    while !box.exists("started") && waited < 10 {
      Thread.sleep(forTimeInterval: 0.05)
      waited += 0.05
    }
    let r = try box.run(["doctor"])
    #expect(r.stdout.contains("lock:        held by another process\n"))
    #expect(r.status == 1, "the placeholder needs attention; the lock alone would not")
  }

  @Test func noDataFolderIs66() throws {
    let box = try Sandbox()
    let r = try box.run(["doctor"])
    #expect(r.status == 66)
    #expect(r.stdout.isEmpty)
    #expect(r.stderr.hasPrefix("mn: error: no data folder found\n"))
  }

  @Test func aStalePointerFileIsAFinding() throws {
    let box = try Sandbox()
    try box.write("Documents/Minuta/tags.automerge", try Sandbox.tags)
    try box.write(".config/minuta/storage-path.txt", box.path("gone"))
    let r = try box.run(["doctor"])
    #expect(r.status == 1)
    #expect(r.stdout.contains("discovery: pointer file"))
    #expect(r.stdout.contains("fix: fix or remove the pointer file"))
  }

  /// rclone bisync's listings are looked for where rclone keeps them: `RCLONE_CACHE_DIR`,
  /// else `XDG_CACHE_HOME` or `~/.cache`, then `rclone/bisync`.
  @Test func anAbortedBisyncIsFoundInRclonesCacheDirectory() throws {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    try box.write("data/tags.automerge", try Sandbox.tags)
    let listing =
      String(box.path("data").dropFirst()).replacing("/", with: "_")
      + "..hub_Minuta.path1.lst-err"
    try box.write(".cache/rclone/bisync/" + listing, "")
    let r = try box.run(["doctor"])
    #expect(r.status == 1)
    #expect(r.stdout.contains("bisync-aborted: \(box.path(".cache/rclone/bisync/" + listing)): "))
    #expect(r.stdout.contains("--resync"))
    let elsewhere = try box.run(["doctor"], environment: ["RCLONE_CACHE_DIR": box.path("rc")])
    #expect(elsewhere.status == 0, "RCLONE_CACHE_DIR names another directory")
    try box.write("rc/bisync/" + listing, "")
    #expect(try box.run(["doctor"], environment: ["RCLONE_CACHE_DIR": box.path("rc")]).status == 1)
  }
}
