import Foundation
import Testing

/// `mn fetch` run as a user runs it (mn.md §4).
@Suite struct FetchTests {
  /// A data folder `data` whose September is an iCloud stub, October a Nextcloud virtual file
  /// and tag list present; and `other`, another device's copy with all three.
  static func folders() throws -> Sandbox {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    let september = try Sandbox.september
    try box.writeICloudStub(for: "data/records/2026/09.automerge", size: september.count)
    try box.write("data/records/2026/10.automerge.nextcloud", Data())
    try box.write("data/tags.automerge", try Sandbox.tags)
    try box.write("other/records/2026/09.automerge", september)
    try box.write(
      "other/records/2026/10.automerge",
      try Sandbox.example("second-device/records/2026/10.automerge"))
    try box.write("other/tags.automerge", try Sandbox.tagsOther)
    return box
  }

  func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

  /// `mn doc changes` of a file: one change a line, to compare change sets.
  func changes(_ box: Sandbox, _ rel: String) throws -> Set<String> {
    let r = try box.run(["doc", "changes", box.path(rel)])
    #expect(r.status == 0, "\(r.stderr)")
    return Set(lines(r.stdout))
  }

  @Test func fromAnotherCopyOfTheFolder() throws {
    let box = try Self.folders()
    let r = try box.run(["fetch", "--from", "other"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "fetched records/2026/09.automerge\nfetched records/2026/10.automerge\n")
    #expect(r.stderr.isEmpty)
    #expect(try box.read("data/records/2026/09.automerge") == (try Sandbox.september))
    #expect(
      try box.files("data") == [
        ".minuta.writelock.nosync", "records/2026/09.automerge", "records/2026/10.automerge",
        "tags.automerge",
      ])
    let ls = try box.run(["ls", "--long"])
    #expect(lines(ls.stdout).allSatisfy { $0.hasPrefix("local ") })
    // A second run has nothing to do.
    let again = try box.run(["fetch", "--from", "other"])
    #expect(again.status == 0 && again.stdout == "nothing to fetch\n")
  }

  @Test func namedDocumentsOnly() throws {
    let box = try Self.folders()
    let r = try box.run(["fetch", "--from", box.path("other"), "records/2026/10.automerge"])
    #expect(r.status == 0)
    #expect(r.stdout == "fetched records/2026/10.automerge\n")
    #expect(box.exists("data/records/2026/.09.automerge.icloud"))
    #expect(try box.run(["fetch", "records/2027/01.automerge"]).status == 66)
    #expect(try box.run(["fetch", box.path("elsewhere")]).status == 64)
  }

  @Test func jsonReport() throws {
    let box = try Self.folders()
    let r = try box.run(["fetch", "--from", "other", "--json"])
    #expect(r.status == 0)
    let report = try #require(try Sandbox.json(r) as? [String: Any])
    #expect(report["root"] as? String == box.path("data"))
    let source = try #require(report["source"] as? [String: Any])
    #expect(
      source["kind"] as? String == "directory" && source["path"] as? String == box.path("other"))
    let fetched = try #require(report["fetched"] as? [[String: Any]])
    #expect(
      fetched.map { $0["name"] as? String } == [
        "records/2026/09.automerge", "records/2026/10.automerge",
      ])
    #expect(fetched[0]["action"] as? String == "fetched")
    #expect(fetched[0]["declaredSize"] as? Int == (try Sandbox.september.count))
    #expect(fetched[0]["sizeMatches"] as? Bool == true)
    #expect(
      fetched[0]["removedPlaceholders"] as? [String] == [
        box.path("data/records/2026/.09.automerge.icloud")
      ])
    #expect((report["missing"] as? [Any])?.isEmpty == true)
    #expect((report["failed"] as? [Any])?.isEmpty == true)
  }

  @Test func fromAnArchiveWrittenWithAManifest() throws {
    let box = try Self.folders()
    // An archive as `mn export` writes it: entries under Minuta/ and a manifest.
    let september = try Sandbox.september
    try box.write("stage/Minuta/records/2026/09.automerge", september)
    let digest = try TestDigest.sha256(september)
    let manifest = """
      {"tool":"mn","version":"0.1.0","created":"2026-09-06T15:45:12Z","source":"/x",\
      "files":[{"path":"records/2026/09.automerge","size":\(september.count),\
      "sha256":"\(digest)","kind":"document"}]}
      """
    try box.write("stage/Minuta/.mn-manifest.json", manifest)
    let tar = try box.runTool(
      "bsdtar", ["-czf", box.path("export.tar.gz"), "-C", box.path("stage"), "Minuta"])
    #expect(tar == 0)
    let r = try box.run(["fetch", "--from", "export.tar.gz"])
    #expect(r.status == 69)
    #expect(r.stdout == "fetched records/2026/09.automerge\n")
    #expect(
      r.stderr
        == "mn: error: 1 file is still not downloaded (not in the source)\nrecords/2026/10.automerge\n"
    )
    #expect(try box.read("data/records/2026/09.automerge") == september)
    #expect(box.exists("data/records/2026/10.automerge.nextcloud"))

    // An archive whose entry does not match its manifest is refused whole.
    try box.write("stage/Minuta/records/2026/10.automerge", try Sandbox.september)
    #expect(
      try box.runTool(
        "bsdtar", ["-czf", box.path("bad.tar.gz"), "-C", box.path("stage"), "Minuta"]) == 0)
    let bad = try box.run(["fetch", "--from", "bad.tar.gz"])
    #expect(bad.status == 65)
    #expect(bad.stderr.hasPrefix("mn: error: "))
    #expect(box.exists("data/records/2026/10.automerge.nextcloud"))
    #expect(!box.exists("data/records/2026/10.automerge"))
  }

  @Test func execRunsACommandPerPlaceholder() throws {
    let box = try Self.folders()
    let command = "echo getting {rel}; cp \(box.path("other"))/{rel} {}"
    let r = try box.run(["fetch", "--exec", command])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stdout == "downloaded records/2026/09.automerge\ndownloaded records/2026/10.automerge\n")
    #expect(
      r.stderr == "getting records/2026/09.automerge\ngetting records/2026/10.automerge\n",
      "the command's output goes to standard error")
    #expect(
      try box.files("data") == [
        ".minuta.writelock.nosync", "records/2026/09.automerge", "records/2026/10.automerge",
        "tags.automerge",
      ])
  }

  /// The command gets mn's whole environment, as a shell would give it (mn.md §4): the ssh
  /// agent, the locale and rclone's settings, which mn itself never reads.
  @Test(arguments: [
    ["fetch", "--exec"], ["watch", "--once", "--quiet-for", "0", "--fetch", "--fetch-exec"],
  ])
  func execGetsTheWholeEnvironment(_ verb: [String]) throws {
    let box = try Self.folders()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    let user = [
      "SSH_AUTH_SOCK": box.path("agent.sock"), "LANG": "de_CH.UTF-8",
      "RCLONE_CONFIG": box.path("rclone.conf"), "RCLONE_FOO": "a b=c",
    ]
    let seen = box.path("seen")
    let command = "env > '\(seen)/{rel}.env'; cp \(box.path("other"))/{rel} {}"
    try box.mkdir("seen/records/2026")
    let r = try box.run(verb + [command], environment: user)
    #expect(r.status == 0, "\(r.stderr)")
    for rel in ["records/2026/09.automerge", "records/2026/10.automerge"] {
      let printed = try box.read("seen/\(rel).env")
      let lines = Set(
        String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init))
      for (name, value) in user {
        #expect(lines.contains("\(name)=\(value)"), "\(verb[0]): \(name) for \(rel): \(lines)")
      }
      #expect(lines.contains("TZ=UTC") && lines.contains("LC_ALL=C"), "\(lines)")
    }
  }

  @Test func execFailuresAndTimeouts() throws {
    let box = try Self.folders()
    let failing = try box.run(["fetch", "--exec", "exit 7", "--timeout", "0.2"])
    #expect(failing.status == 69)
    #expect(
      failing.stderr
        == "mn: error: 2 files are still not downloaded (the command failed: exit status 7)\n"
        + "records/2026/09.automerge\nrecords/2026/10.automerge\n")
    let start = Date()
    let slow = try box.run(["fetch", "--exec", "exec sleep 20; : {}", "--timeout", "0.3"])
    #expect(slow.status == 69)
    #expect(slow.stderr.contains("the command was stopped at the timeout"))
    #expect(Date().timeIntervalSince(start) < 10)
    #expect(try box.run(["fetch", "--exec", " "]).status == 64)
    #expect(try box.run(["fetch", "--exec", "true", "--from", "other"]).status == 64)
  }

  @Test func aFileThatAppearedMeanwhileIsMergedNotOverwritten() throws {
    let box = try Self.folders()
    // Tags are present and also a stale stub: the other device's tags must be merged in.
    try box.writeICloudStub(for: "data/tags.automerge", size: try Sandbox.tagsOther.count)
    let mine = try changes(box, "data/tags.automerge")
    let theirs = try changes(box, "other/tags.automerge")
    #expect(!theirs.isSubset(of: mine))
    let r = try box.run(["fetch", "--from", "other", "tags.automerge"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "merged tags.automerge\n")
    #expect(r.stderr.isEmpty, "the size is checked on what was fetched, not on the merge")
    #expect(try changes(box, "data/tags.automerge") == mine.union(theirs))
    #expect(!box.exists("data/.tags.automerge.icloud"))
    let tags = try box.read("data/tags.automerge")
    // The input holding more changes comes first, unchanged (mn.md §6 "Merged output").
    let (first, second) = (try Sandbox.tags, try Sandbox.tagsOther)
    #expect(tags.starts(with: first) || tags.starts(with: second))
  }

  @Test func aCorruptSourceIsRefusedAndTheStubKept() throws {
    let box = try Self.folders()
    var corrupt = try Sandbox.september
    corrupt[corrupt.count / 2] ^= 0xff
    try box.write("other/records/2026/09.automerge", corrupt)
    let r = try box.run(["fetch", "--from", "other"])
    #expect(r.status == 65)
    #expect(r.stdout == "fetched records/2026/10.automerge\n")
    #expect(
      r.stderr.hasPrefix(
        "mn: error: 'records/2026/09.automerge': '\(box.path("other/records/2026/09.automerge"))' is not a valid Automerge file: "
      ))
    #expect(r.stderr.hasSuffix("; nothing written\n"))
    #expect(box.exists("data/records/2026/.09.automerge.icloud"))
    #expect(!box.exists("data/records/2026/09.automerge"))
  }

  @Test func aSizeThatDiffersIsAWarning() throws {
    let box = try Self.folders()
    try box.writeICloudStub(for: "data/records/2026/09.automerge", size: 10)
    let r = try box.run(["fetch", "--from", "other", "records/2026/09.automerge"])
    #expect(r.status == 0)
    #expect(
      r.stderr
        == "mn: warning: 'records/2026/09.automerge' has \(try Sandbox.september.count) bytes, "
        + "the placeholder declared 10\n")
  }

  @Test func timeoutListsWhatIsMissing() throws {
    let box = try Self.folders()
    let start = Date()
    let r = try box.run(["fetch", "--timeout", "0.2"])
    #expect(r.status == 69)
    #expect(r.stdout.isEmpty)
    #expect(
      r.stderr
        == "mn: error: 2 files are still not downloaded after 0.2s\n"
        + "records/2026/09.automerge\nrecords/2026/10.automerge\n")
    #expect(Date().timeIntervalSince(start) < 10)
    let json = try box.run(["fetch", "--timeout", "0.2", "--json"])
    #expect(json.status == 69)
    let report = try #require(try Sandbox.json(json) as? [String: Any])
    let missing = try #require(report["missing"] as? [[String: Any]])
    #expect(
      missing.map { $0["name"] as? String } == [
        "records/2026/09.automerge", "records/2026/10.automerge",
      ])
    #expect(missing.first?["reason"] as? String == "not downloaded before the timeout")
    #expect(try box.run(["fetch", "--timeout", "soon"]).status == 64)
  }

  @Test func waitsForTheSyncClient() throws {
    let box = try Self.folders()
    // A "sync client" that lands the file a moment later, as a rename.
    let september = box.path("other/records/2026/09.automerge")
    let target = box.path("data/records/2026/09.automerge")
    let client = Process()
    client.executableURL = URL(fileURLWithPath: "/bin/sh")
    client.arguments = [
      "-c",
      "sleep 0.7; cp '\(september)' '\(target).part' && mv '\(target).part' '\(target)' && rm '\(box.path("data/records/2026/.09.automerge.icloud"))'",
    ]
    try client.run()
    let r = try box.run(["fetch", "records/2026/09.automerge", "--timeout", "20"])
    client.waitUntilExit()
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "downloaded records/2026/09.automerge\n")
  }

  @Test func nothingToFetch() throws {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    try box.write("data/tags.automerge", try Sandbox.tags)
    let r = try box.run(["fetch"])
    #expect(r.status == 0 && r.stdout == "nothing to fetch\n" && r.stderr.isEmpty)
    #expect(try box.run(["fetch", "-q"]).stdout.isEmpty)
    #expect(try box.run(["fetch", "--from", "nope"]).status == 66)
    #expect(try box.run(["fetch", "--from", "."], in: box.path("data")).status == 64)
  }

  @Test func anotherWriterHoldingTheLockIs75() throws {
    let box = try Self.folders()
    // The first mn holds the lock while its command runs.
    let marker = box.path("started")
    let first = try box.start(["fetch", "--exec", "touch '\(marker)'; sleep 3", "--timeout", "10"])
    defer { first.terminate() }
    var waited = 0.0
    while !box.exists("started") && waited < 10 {
      Thread.sleep(forTimeInterval: 0.05)
      waited += 0.05
    }
    let r = try box.run(["fetch", "--from", "other", "--wait", "0.1"])
    #expect(r.status == 75)
    #expect(r.stderr.contains("locked by another writer"))
    #expect(box.exists("data/records/2026/.09.automerge.icloud"))
  }
}

extension Sandbox {
  /// Runs a tool found on PATH in the sandbox; returns its exit status.
  func runTool(_ tool: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.currentDirectoryURL = root
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// SHA-256 through the system's `sha256sum` or `shasum`, for hand-made manifests.
enum TestDigest {
  static func sha256(_ data: Data) throws -> String {
    let box = try Sandbox()
    try box.write("input", data)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "(sha256sum input 2>/dev/null || shasum -a 256 input) | cut -d' ' -f1",
    ]
    process.currentDirectoryURL = box.root
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
