import Foundation
import Testing

/// `mn log` and `mn diff` on folders made of the corpus fixtures (Tests/Fixtures/conflicts,
/// written by the real Automerge) and on a copy with one record edited (Tests/Fixtures/diff).
@Suite struct LogDiffTests {
  static let editedKey = "74bafeb6-eaa2-4075-96a4-78f471154421"
  static let editedPath = "/records/\(editedKey)/note"

  /// The oracle's listing (`am-oracle changes` of the merge of all devices):
  /// hash -> (time, message as a JSON literal).
  static func oracleChanges(_ seed: String, _ doc: String) throws -> [String: (Int64, String)] {
    let text = String(
      decoding: try ConflictFolder.fixture("\(seed)/merged/\(doc).changes"), as: UTF8.self)
    var out: [String: (Int64, String)] = [:]
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 6).map(String.init)
      out[fields[0]] = (try #require(Int64(fields[4])), fields[6])
    }
    return out
  }

  @Test(arguments: ["seed-01", "seed-04"])
  func logListsExactlyTheOraclesChangesWithTimesAndMessages(_ seed: String) throws {
    let f = try ConflictFolder()
    for (rel, source) in [
      (ConflictFolder.month, "device-0/records/2026/09.automerge"),
      (ConflictFolder.icloud, "device-1/records/2026/09.automerge"),
      (ConflictFolder.dropbox, "device-2/records/2026/09.automerge"),
      ("tags.automerge", "device-0/tags.automerge"),
      (ConflictFolder.syncthing, "device-1/tags.automerge"),
      (ConflictFolder.nextcloud, "device-2/tags.automerge"),
    ] {
      try f.put(rel, from: source, seed: seed)
    }
    let r = try f.mn(["log", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let entries = try #require(try Sandbox.json(r) as? [[String: Any]])
    for doc in [ConflictFolder.month, "tags.automerge"] {
      let expected = try Self.oracleChanges(seed, doc)
      let listed = entries.filter { $0["document"] as? String == doc }
      #expect(listed.count == expected.count, "\(doc)")
      let canonical = try f.mn(["doc", "changes", "data/" + doc]).stdout
      for e in listed {
        let hash = try #require(e["hash"] as? String)
        let (time, message) = try #require(expected[hash], "\(hash) is not the oracle's")
        #expect((e["time"] as? NSNumber)?.int64Value == time)
        let listedMessage = (e["message"] as? String).map { Self.jsonLiteral($0) } ?? "null"
        #expect(listedMessage == message)
        // A change the canonical file lacks is marked with the copy it comes from.
        #expect((e["copy"] != nil) == !canonical.contains(hash))
      }
    }
    let times = entries.compactMap { ($0["time"] as? NSNumber)?.int64Value }
    #expect(times == times.sorted(by: >), "newest first")

    let plain = try f.mn(["log", "--utc"])
    #expect(plain.stdout.split(separator: "\n").count == entries.count)
    #expect(plain.stdout.contains("[only in '\(ConflictFolder.icloud)']"))
    let two = try f.mn(["log", "-n", "2", "tags.automerge"])
    #expect(two.stdout.split(separator: "\n").count == 2)
    #expect(!two.stdout.contains(ConflictFolder.month))
  }

  /// Enough JSON string escaping for the corpus's messages (serde_json's form).
  static func jsonLiteral(_ s: String) -> String {
    "\""
      + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      + "\""
  }

  @Test func logFiltersByTimeAndActorAndSummarizesPerActor() throws {
    let f = try ConflictFolder()
    try f.fill()
    let all = try #require(try Sandbox.json(try f.mn(["log", "--json"])) as? [[String: Any]])
    let actor = try #require(all.first?["actor"] as? String)
    let byActor = try #require(
      try Sandbox.json(try f.mn(["log", "--json", "--actor", String(actor.prefix(4))]))
        as? [[String: Any]])
    #expect(!byActor.isEmpty)
    #expect(byActor.allSatisfy { ($0["actor"] as? String)?.hasPrefix(actor.prefix(4)) == true })
    // 1788343396 is 2026-09-02T10:03:16Z.
    let since = try #require(
      try Sandbox.json(try f.mn(["log", "--json", "--since", "2026-09-02T10:03:16Z"]))
        as? [[String: Any]])
    let times = since.compactMap { ($0["time"] as? NSNumber)?.int64Value }
    #expect(!times.isEmpty && times.allSatisfy { $0 >= 1_788_343_396 })
    #expect(times.count < all.count)
    let until = try f.mn(["log", "--json", "--until", "2026-09-01"])
    #expect(try Sandbox.json(until) as? [Any] != nil)
    #expect((try Sandbox.json(until) as? [Any])?.isEmpty == true)

    // Not a terminal: the activity columns are plain counts that add up to the changes.
    let summary = try f.mn(["log", "--summary", "--utc"])
    #expect(summary.status == 0, "\(summary.stderr)")
    let lines = summary.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("period: 2026-09-02") == true)
    #expect(lines.count == 1 + 3, "one line per actor")
    var total = 0
    for line in lines.dropFirst() {
      let parts = line.split(separator: " ")
      let counts = parts.suffix(24).map { Int($0) }
      #expect(counts.allSatisfy { $0 != nil }, "\(line)")
      let changes = try #require(
        parts.firstIndex { $0.hasPrefix("change") }.map { Int(parts[$0 - 1]) })
      #expect(counts.compactMap { $0 }.reduce(0, +) == changes)
      total += changes ?? 0
    }
    #expect(total == all.count)
  }

  @Test func logRefusesBadValues() throws {
    let f = try ConflictFolder()
    try f.fill()
    for arguments in [["--since", "yesterday"], ["--until", "2026-13-01"], ["--actor", "xyz"]] {
      let r = try f.mn(["log"] + arguments)
      #expect(r.status == 64, "\(arguments)")
      #expect(r.stderr.hasPrefix("mn: error: invalid value"), "\(r.stderr)")
    }
  }

  /// A folder whose month is device 0's file and whose one copy holds one more change.
  static func editedFolder() throws -> ConflictFolder {
    let f = try ConflictFolder()
    try f.put(ConflictFolder.month, from: "device-0/records/2026/09.automerge")
    try f.box.write(
      "data/" + ConflictFolder.icloud,
      try Data(
        contentsOf: Sandbox.packageRoot.appendingPathComponent(
          "Tests/Fixtures/diff/09.edited.automerge")))
    return f
  }

  @Test func aCopyWithOneRecordEditedShowsExactlyThatPath() throws {
    let f = try Self.editedFolder()
    let r = try f.mn(["diff", ConflictFolder.month])
    #expect(r.status == 1, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "diff '\(ConflictFolder.month)' '\(ConflictFolder.icloud)'")
    #expect(lines.contains("only in '\(ConflictFolder.icloud)': 1 change"))
    #expect(!lines.contains { $0.hasPrefix("only in '\(ConflictFolder.month)'") })
    #expect(lines.contains { $0.contains("edit \(Self.editedKey) #1") && $0.contains("ed17ed1") })
    let patch = lines.filter {
      $0.hasPrefix("  ~ ") || $0.hasPrefix("  + ") || $0.hasPrefix("  - ")
    }
    #expect(patch.count == 1)
    #expect(patch.first?.hasPrefix("  ~ \(Self.editedPath): \"") == true)
    #expect(patch.first?.hasSuffix(" +1\"") == true)
    #expect(lines.contains { $0.hasSuffix("adds 1 change, touching 1 path: \(Self.editedPath)") })

    let json = try f.mn(["diff", "--json", ConflictFolder.month])
    #expect(json.status == 1)
    let pairs = try #require(try Sandbox.json(json) as? [[String: Any]])
    #expect(pairs.count == 1)
    let ops = try #require(pairs[0]["patch"] as? [[String: Any]])
    #expect(ops.count == 1)
    #expect(ops[0]["op"] as? String == "replace")
    #expect(ops[0]["path"] as? String == Self.editedPath)
    #expect((ops[0]["value"] as? String)?.hasSuffix(" +1") == true)
    #expect((pairs[0]["onlyInB"] as? [Any])?.count == 1)
    #expect((pairs[0]["onlyInA"] as? [Any])?.isEmpty == true)

    // The two files named directly, the other way round: the merge changes nothing.
    let swapped = try f.mn([
      "diff", "data/" + ConflictFolder.icloud, "data/" + ConflictFolder.month,
    ])
    #expect(swapped.status == 1)
    #expect(swapped.stdout.contains("adds 0 changes\n"))
    let same = try f.mn(["diff", "data/" + ConflictFolder.month, "data/" + ConflictFolder.month])
    #expect(same.status == 0)
    #expect(same.stdout.hasSuffix("same changes\n"))
    let quiet = try f.mn(["diff", "-q", ConflictFolder.month])
    #expect(quiet.status == 1)
    #expect(quiet.stdout.isEmpty)

    // merge-conflicts says the same per copy, and changes nothing in a dry run.
    let dry = try f.mn(["merge-conflicts", "--dry-run"])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(dry.stdout.contains("\n    adds 1 change, touching 1 path: \(Self.editedPath)\n"))
    let verbose = try f.mn(["merge-conflicts", "-v", "--keep-copies"])
    #expect(verbose.status == 0, "\(verbose.stderr)")
    #expect(verbose.stdout.contains("\n    adds 1 change, touching 1 path: \(Self.editedPath)\n"))
    #expect(try f.mn(["diff", ConflictFolder.month]).stdout.hasSuffix("same changes\n"))
  }

  @Test func diffAgainstABackup() throws {
    let f = try ConflictFolder()
    try f.put(ConflictFolder.month, from: "device-0/records/2026/09.automerge")
    try f.put("tags.automerge", from: "device-0/tags.automerge")
    let export = try f.mn(["export", "-o", f.box.path("before.tar.gz")])
    #expect(export.status == 0, "\(export.stderr)")
    try f.box.write(
      "data/" + ConflictFolder.month,
      try Data(
        contentsOf: Sandbox.packageRoot.appendingPathComponent(
          "Tests/Fixtures/diff/09.edited.automerge")))
    let r = try f.mn(["diff", "--backup", f.box.path("before.tar.gz"), ConflictFolder.month])
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stdout.contains("only in '\(ConflictFolder.month)': 1 change\n"))
    #expect(r.stdout.contains("adds 0 changes\n"))
    let tags = try f.mn(["diff", "--backup", f.box.path("before.tar.gz"), "tags.automerge"])
    #expect(tags.status == 0, "\(tags.stderr)")
  }

  @Test func diffErrorsHaveTheirStatus() throws {
    let f = try Self.editedFolder()
    try f.box.write("bad.automerge", "not automerge")
    #expect(try f.mn(["diff", "nothing.automerge", "data/" + ConflictFolder.month]).status == 66)
    let bad = try f.mn(["diff", f.box.path("bad.automerge"), "data/" + ConflictFolder.month])
    #expect(bad.status == 65)
    #expect(bad.stderr.contains("is not a valid Automerge file"))
    #expect(
      try f.mn(["diff", "--backup", f.box.path("none.tar.gz"), ConflictFolder.month]).status == 66)
    #expect(try f.mn(["diff", "records/2031/01.automerge"]).status == 66)
  }
}
