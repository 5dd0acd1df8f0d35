import Foundation
import Testing

/// Which backups and copies `mn repair` takes changes from (mn.md §8, §14): only those of
/// this data folder (by the folder a backup recorded, by real path, and across `migrate` by
/// the folder's lineage), only those that share a change with what was salvaged, and
/// anything `--from` names.
@Suite struct RepairSourcesTests {
  static let month = "records/2026/09.automerge"
  /// A September of device 0 (seed 4): a document chunk, then change chunks.
  static let september = RepairTests.salvage.appendingPathComponent(
    "seed-04-09.incremental.automerge")
  /// Another folder's September (seed 1): no change in common with `september`.
  static let foreign = ConflictFolder.fixtures.appendingPathComponent(
    "seed-01/device-0/records/2026/09.automerge")

  let box: Sandbox

  init() throws {
    box = try Sandbox()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
  }

  /// `september` with one change chunk damaged (a bit flipped in the chunk at 1162, which
  /// later changes depend on): it does not load, and salvage gets every other change.
  func damaged() throws -> Data {
    var bytes = Array(try Data(contentsOf: Self.september))
    bytes[1162 + 100] ^= 4
    return Data(bytes)
  }

  /// A verified backup of the folder at `root` (relative): the one `merge-conflicts` makes
  /// before it merges a copy of the month (identical) away; its path.
  @discardableResult
  func backUp(_ root: String) throws -> String {
    let before = Set(backups())
    try box.write(root + "/records/2026/09 2.automerge", try box.read(root + "/" + Self.month))
    let r = try box.run(["--root", box.path(root), "merge-conflicts", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    let made = try #require(Set(backups()).subtracting(before).first, "\(r.stderr)")
    return box.path("backups/" + made)
  }

  func backups() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: box.path("backups"))) ?? [])
      .filter { $0.hasPrefix("minuta-backup-") }.sorted()
  }

  /// The `mn doc changes` lines of a file.
  func changes(_ path: String) throws -> Set<String> {
    let r = try box.run(["doc", "changes", path])
    #expect(r.status == 0, "\(r.stderr)")
    return Set(r.stdout.split(separator: "\n").map(String.init))
  }

  /// The sources of the one document of a `repair --json` report.
  func sources(_ result: RunResult) throws -> [[String: Any]] {
    let json = try #require(
      try JSONSerialization.jsonObject(with: result.stdoutBytes) as? [String: Any])
    let documents = try #require(json["documents"] as? [[String: Any]])
    #expect(documents.count == 1)
    return documents.first?["sources"] as? [[String: Any]] ?? []
  }

  /// The sources of `kind` whose location starts with `archive`.
  func sources(_ all: [[String: Any]], in archive: String) -> [[String: Any]] {
    all.filter { ($0["location"] as? String)?.hasPrefix(archive + ":") == true }
  }

  func excluded(_ source: [String: Any]) -> String? {
    (source["excluded"] as? [String: Any])?["reason"] as? String
  }

  /// The real Automerge opens the file (when the oracle is there).
  func oracleOpens(_ path: String) throws {
    let tool = Sandbox.packageRoot.appendingPathComponent("../shared/tools/am-oracle").path
    guard FileManager.default.isExecutableFile(atPath: tool) else {
      print("repair: ../shared/tools/am-oracle is missing; that check is left out")
      return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = ["check", path]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "am-oracle check \(path)")
  }

  /// Two data folders share one backup folder, each with its own September; the damaged
  /// one gets back only its own changes, and the other folder's backup is reported as not
  /// taken, unless `--from` names it.
  @Test func anotherFoldersBackupIsNeverMixedInUnlessNamed() throws {
    let original = try Data(contentsOf: Self.september)
    try box.write("data/" + Self.month, original)
    // The folder's backup taken through a link to it: the same folder by real path.
    try FileManager.default.createSymbolicLink(
      atPath: box.path("link"), withDestinationPath: box.path("data"))
    let own = try backUp("link")
    // A folder whose name only begins like this one's.
    try box.write("data-test/" + Self.month, try Data(contentsOf: Self.foreign))
    let other = try backUp("data-test")
    let damaged = try damaged()
    try box.write("data/" + Self.month, damaged)
    let expected = try changes(Self.september.path)
    let foreign = try changes(Self.foreign.path)
    #expect(expected.isDisjoint(with: foreign))

    let dry = try box.run(["--root", box.path("data"), "repair", "--dry-run"])
    #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
    #expect(
      dry.stdout.contains(
        "\(other):\(Self.month): not taken: a backup of another data folder, "
          + "'\(box.path("data-test"))' (only --from takes it)"), "\(dry.stdout)")

    let r = try box.run(["--root", box.path("data"), "repair", "--json"])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    let all = try sources(r)
    let skipped = try #require(sources(all, in: other).first)
    #expect(excluded(skipped) == "other-folder")
    #expect(
      (skipped["excluded"] as? [String: Any])?["folder"] as? String == box.path("data-test"))
    #expect(skipped["recovered"] as? Int == 0)
    let taken = try #require(sources(all, in: own).first)
    #expect(excluded(taken) == nil && taken["recovered"] as? Int == 1, "\(taken)")
    #expect(try changes(box.path("data/" + Self.month)) == expected, "only this folder's changes")
    try oracleOpens(box.path("data/" + Self.month))

    // Named with --from, the other folder's backup is taken.
    try box.write("data/" + Self.month, damaged)
    let named = try box.run(["--root", box.path("data"), "repair", "--from", other, "--json"])
    #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
    let from = try #require(sources(try sources(named), in: other).first)
    #expect(from["kind"] as? String == "from" && excluded(from) == nil)
    #expect(try changes(box.path("data/" + Self.month)) == expected.union(foreign))
    try oracleOpens(box.path("data/" + Self.month))
  }

  /// After `migrate`, the new folder descends from the old one: a backup taken of the old
  /// folder before the migration is a source for the new one; another folder's is not.
  @Test func acrossMigrateTheOldFoldersBackupIsASource() throws {
    try box.write("old/" + Self.month, try Data(contentsOf: Self.september))
    let old = try backUp("old")
    try box.write("elsewhere/" + Self.month, try Data(contentsOf: Self.foreign))
    let elsewhere = try backUp("elsewhere")
    let migrate = try box.run([
      "migrate", "--from", box.path("old"), "--to", box.path("new"), "--yes",
    ])
    #expect(migrate.status == 0, "\(migrate.stdout)\(migrate.stderr)")
    #expect(box.exists("backups/minuta-lineage.jsonl"), "migrate records the lineage")
    #expect(!box.exists("old/" + Self.month))
    try box.write("new/" + Self.month, try damaged())

    let r = try box.run(["--root", box.path("new"), "repair", "--json"])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    let all = try sources(r)
    let taken = try #require(sources(all, in: old).first)
    #expect(excluded(taken) == nil, "the old folder's backup is this folder's: \(taken)")
    #expect(taken["changes"] as? Int ?? 0 > 0)
    let skipped = try #require(sources(all, in: elsewhere).first)
    #expect(excluded(skipped) == "other-folder")
    #expect(try changes(box.path("new/" + Self.month)) == (try changes(Self.september.path)))
    try oracleOpens(box.path("new/" + Self.month))
  }

  /// A conflict copy, and a backup of this very folder, that share no change with what was
  /// salvaged are different documents: not mixed in (reported), unless `--from` names it.
  @Test func aDocumentThatSharesNoChangeIsNotMixedIn() throws {
    // Once, this folder's September was another document altogether.
    try box.write("data/" + Self.month, try Data(contentsOf: Self.foreign))
    let unrelated = try backUp("data")
    try box.write("data/" + Self.month, try damaged())
    try box.write("data/records/2026/09 2.automerge", try Data(contentsOf: Self.foreign))
    let foreign = try changes(Self.foreign.path)

    let dry = try box.run(["--root", box.path("data"), "repair", "--dry-run"])
    #expect(
      dry.stdout.contains(
        "copy     \(box.path("data/records/2026/09 2.automerge")): not taken: it shares no change "
          + "with what was salvaged from the damaged file\n"), "\(dry.stdout)")
    let r = try box.run(["--root", box.path("data"), "repair", "--json"])
    // The damaged chunk is in no source: a change is lost (exit 1), nothing foreign added.
    #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
    let all = try sources(r)
    // The copy, and the backup's month and copy.
    #expect(all.filter { excluded($0) == "shares-no-change" }.count == 3, "\(all)")
    #expect(sources(all, in: unrelated).map(excluded) == ["shares-no-change", "shares-no-change"])
    let repaired = try changes(box.path("data/" + Self.month))
    #expect(!repaired.isEmpty && repaired.isDisjoint(with: foreign))
    #expect(repaired.isSubset(of: try changes(Self.september.path)))
    try oracleOpens(box.path("data/" + Self.month))
    #expect(box.exists("data/records/2026/09 2.automerge"), "the copy is left alone")

    try box.write("data/" + Self.month, try damaged())
    let named = try box.run(["--root", box.path("data"), "repair", "--from", unrelated])
    #expect(named.status == 1, "\(named.stdout)\(named.stderr)")
    #expect(foreign.isSubset(of: try changes(box.path("data/" + Self.month))))
  }
}
