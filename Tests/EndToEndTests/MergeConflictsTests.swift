import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A sandbox with a data folder `data` and a backup directory `backups`, filled from the
/// corpus fixtures of `Tests/Fixtures/conflicts` (see its README).
struct ConflictFolder {
  static let fixtures = Sandbox.packageRoot.appendingPathComponent(
    "Tests/Fixtures/conflicts")
  static let month = "records/2026/09.automerge"
  /// Device 1 and 2 copies of the month, as iCloud Drive and Dropbox name them.
  static let icloud = "records/2026/09 2.automerge"
  static let dropbox = "records/2026/09 (Ada's conflicted copy 2026-09-06).automerge"
  /// Device 1 and 2 copies of the tags, as Syncthing and Nextcloud name them.
  static let syncthing = "tags.sync-conflict-20260906-154512-ABCDEFG.automerge"
  static let nextcloud = "tags (conflicted copy 2026-09-06 154512).automerge"

  let box: Sandbox

  init() throws {
    box = try Sandbox()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    try box.mkdir("data")
  }

  static func fixture(_ rel: String) throws -> Data {
    try Data(contentsOf: fixtures.appendingPathComponent(rel))
  }

  /// Writes `seed-NN/<source>` to `data/<rel>`.
  func put(_ rel: String, from source: String, seed: String = "seed-01") throws {
    try box.write("data/" + rel, try ConflictFolder.fixture("\(seed)/\(source)"))
  }

  /// The month and the tags, each with device 0 as the canonical file and devices 1 and 2 as
  /// copies named by four services.
  func fill() throws {
    try put(Self.month, from: "device-0/records/2026/09.automerge")
    try put(Self.icloud, from: "device-1/records/2026/09.automerge")
    try put(Self.dropbox, from: "device-2/records/2026/09.automerge")
    try put("tags.automerge", from: "device-0/tags.automerge")
    try put(Self.syncthing, from: "device-1/tags.automerge")
    try put(Self.nextcloud, from: "device-2/tags.automerge")
  }

  @discardableResult
  func mn(_ arguments: [String]) throws -> RunResult {
    try box.run(["--root", box.path("data")] + arguments)
  }

  /// Every file under `dir` (relative to the sandbox) with its bytes.
  func snapshot(_ dir: String) -> [String: Data] {
    var files: [String: Data] = [:]
    let base = box.path(dir)
    guard let walker = FileManager.default.enumerator(atPath: base) else { return files }
    while let rel = walker.nextObject() as? String {
      // The lock file is mn's own and created by every writing run.
      if rel.hasSuffix(".minuta.writelock.nosync") { continue }
      if let data = FileManager.default.contents(atPath: base + "/" + rel) { files[rel] = data }
    }
    return files
  }

  func backups() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: box.path("backups"))) ?? []).sorted()
  }

  func json(_ data: Data) throws -> NSObject {
    try #require(
      try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject)
  }
}

@Suite struct MergeConflictsTests {
  @Test func mergesCopiesOfFourServicesIntoTheReferenceAndBacksUpFirst() throws {
    let f = try ConflictFolder()
    try f.fill()
    let originals = f.snapshot("data")
    let r = try f.mn(["merge-conflicts"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("records/2026/09.automerge: added "))
    #expect(
      r.stdout.hasSuffix("merged 2 of 2 documents, 19 changes added, 4 copies removed, 0 kept\n"))
    for doc in [ConflictFolder.month, "tags.automerge"] {
      let heads = try f.mn(["doc", "heads", "data/" + doc])
      #expect(
        heads.stdout.utf8.elementsEqual(try ConflictFolder.fixture("seed-01/merged/\(doc).heads")))
      let changes = try f.mn(["doc", "changes", "data/" + doc])
      #expect(
        changes.stdout.utf8.elementsEqual(
          try ConflictFolder.fixture("seed-01/merged/\(doc).changes")))
      let shown = try f.mn(["doc", "show", "data/" + doc])
      #expect(
        try f.json(shown.stdoutBytes)
          == (try f.json(ConflictFolder.fixture("seed-01/merged/\(doc).json"))))
      // One input (the canonical file or a copy: the one holding the most changes) comes
      // first, unchanged, and the rest is appended (mn.md §6 "Merged output").
      let stem = doc.dropLast(".automerge".count)
      let inputs = originals.filter { $0.key.hasPrefix(stem) }.map(\.value)
      let after = try f.box.read("data/" + doc)
      #expect(inputs.count > 1)
      #expect(inputs.contains { after.count > $0.count && after.starts(with: $0) })
    }
    #expect(Set(f.snapshot("data").keys) == ["tags.automerge", ConflictFolder.month])
    let backups = f.backups()
    #expect(backups.count == 1)
    let archive = f.box.path("backups/" + (backups.first ?? ""))
    #expect(r.stderr.contains("mn: backup written to '\(archive)'"))
    let tar = Process()
    tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    tar.arguments = ["bsdtar", "-tf", archive]
    let pipe = Pipe()
    tar.standardOutput = pipe
    try tar.run()
    let entries = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    tar.waitUntilExit()
    for (rel, data) in originals {
      #expect(entries.contains("Minuta/\(rel)\n"), "\(rel) in the backup")
      #expect(try extract(archive, "Minuta/" + rel) == data, "\(rel) saved as it was")
    }

    // A second run finds nothing, writes nothing and makes no backup.
    let merged = f.snapshot("data")
    let again = try f.mn(["merge-conflicts"])
    #expect(again.status == 0)
    #expect(again.stdout == "no conflict copies\n")
    #expect(f.snapshot("data") == merged)
    #expect(f.backups().count == 1)
  }

  func extract(_ archive: String, _ entry: String) throws -> Data {
    let tar = Process()
    tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    tar.arguments = ["bsdtar", "-xOf", archive, entry]
    let pipe = Pipe()
    tar.standardOutput = pipe
    try tar.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    tar.waitUntilExit()
    return data
  }

  @Test func copiesOnlyDocumentsGetACanonicalFile() throws {
    let f = try ConflictFolder()
    try f.put("tags 2.automerge", from: "device-0/tags.automerge")
    try f.put(ConflictFolder.syncthing, from: "device-1/tags.automerge")
    try f.put(ConflictFolder.nextcloud, from: "device-2/tags.automerge")
    #expect(try f.mn(["ls", "--long"]).stdout.hasPrefix("copies-only"))
    let r = try f.mn(["merge-conflicts"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("tags.automerge: created from 3 copies (17 changes)\n"))
    #expect(Array(f.snapshot("data").keys) == ["tags.automerge"])
    let changes = try f.mn(["doc", "changes", "data/tags.automerge"])
    #expect(
      changes.stdout.utf8.elementsEqual(
        try ConflictFolder.fixture("seed-01/merged/tags.automerge.changes")))
  }

  @Test func aCopyThatIsNotAutomergeIsKeptWith65AndTheRestIsMerged() throws {
    let f = try ConflictFolder()
    try f.fill()
    try f.box.write("data/records/2026/09 3.automerge", "not an automerge file")
    let r = try f.mn(["merge-conflicts"])
    #expect(r.status == 65)
    #expect(
      r.stderr.contains(
        "mn: error: cannot merge 'records/2026/09 3.automerge': not a valid Automerge file: "))
    #expect(
      Set(f.snapshot("data").keys) == [
        "tags.automerge", ConflictFolder.month, "records/2026/09 3.automerge",
      ])
    #expect(
      try f.box.read("data/records/2026/09 3.automerge") == Data("not an automerge file".utf8))
    let heads = try f.mn(["doc", "heads", "data/" + ConflictFolder.month])
    #expect(
      heads.stdout.utf8.elementsEqual(
        try ConflictFolder.fixture("seed-01/merged/records/2026/09.automerge.heads")))
    // The garbage stays, so every run says so, and changes nothing else.
    let merged = f.snapshot("data")
    #expect(try f.mn(["merge-conflicts"]).status == 65)
    #expect(f.snapshot("data") == merged)
    #expect(f.backups().count == 1)
  }

  @Test func dryRunPrintsThePlanAndChangesNothing() throws {
    let f = try ConflictFolder()
    try f.fill()
    let before = f.snapshot("data")
    let r = try f.mn(["merge-conflicts", "--dry-run"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("records/2026/09.automerge: would add 8 changes from 2 copies\n"))
    #expect(
      r.stdout.contains("  remove     +4  \(ConflictFolder.dropbox)  (dropbox, Ada, 2026-09-06)\n"))
    #expect(r.stdout.contains("  remove     +4  \(ConflictFolder.icloud)  (icloud)\n"))
    #expect(r.stdout.contains("(syncthing, ABCDEFG, 2026-09-06T15:45:12)"))
    #expect(r.stdout.contains("(nextcloud, 2026-09-06T15:45:12)"))
    #expect(
      r.stdout.hasSuffix(
        "dry run: 2 of 2 documents to merge, 19 changes to add, 4 copies to remove, 0 to keep\n"))
    #expect(f.snapshot("data") == before)
    #expect(!f.box.exists("backups"))
  }

  @Test func keepCopiesMergesAndRemovesNothing() throws {
    let f = try ConflictFolder()
    try f.fill()
    let r = try f.mn(["merge-conflicts", "--keep-copies"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(f.snapshot("data").count == 6)
    #expect(!f.box.exists("backups"))
    let heads = try f.mn(["doc", "heads", "data/tags.automerge"])
    #expect(
      heads.stdout.utf8.elementsEqual(
        try ConflictFolder.fixture("seed-01/merged/tags.automerge.heads")))
    // Now every copy is contained: the next run removes them without adding anything.
    let next = try f.mn(["merge-conflicts"])
    #expect(next.stdout.contains("tags.automerge: held every change already\n"))
    #expect(f.snapshot("data").count == 2)
  }

  @Test func noBackupSkipsTheArchive() throws {
    let f = try ConflictFolder()
    try f.fill()
    let r = try f.mn(["merge-conflicts", "--no-backup"])
    #expect(r.status == 0)
    #expect(!r.stderr.contains("backup"))
    #expect(f.snapshot("data").count == 2)
    #expect(!f.box.exists("backups"))
  }

  @Test func pathsSelectDocuments() throws {
    let f = try ConflictFolder()
    try f.fill()
    let r = try f.mn(["merge-conflicts", "-q", "tags.automerge"])
    #expect(r.status == 0)
    #expect(r.stdout.isEmpty && r.stderr.isEmpty)
    #expect(f.snapshot("data").count == 4)
    #expect(f.box.exists("data/" + ConflictFolder.icloud))
    let missing = try f.mn(["merge-conflicts", "records/2027"])
    #expect(missing.status == 66)
    #expect(missing.stderr == "mn: error: no such document 'records/2027'\n")
  }

  @Test func jsonReportsTheOutcome() throws {
    let f = try ConflictFolder()
    try f.fill()
    let r = try f.mn(["merge-conflicts", "--json"])
    #expect(r.status == 0)
    let report = try #require(try f.json(r.stdoutBytes) as? [String: Any])
    #expect(report["dryRun"] as? Bool == false)
    #expect(
      (report["backup"] as? String)?.hasPrefix(f.box.path("backups") + "/minuta-backup-") == true)
    let documents = try #require(report["documents"] as? [[String: Any]])
    #expect(documents.map { $0["name"] as? String } == [ConflictFolder.month, "tags.automerge"])
    let copies = try #require(documents.first?["copies"] as? [[String: Any]])
    #expect(copies.map { $0["service"] as? String } == ["dropbox", "icloud"])
    #expect(copies.allSatisfy { $0["removed"] as? Bool == true })
    #expect(documents.first?["added"] as? Int == 8)
  }

  @Test func aHeldLockIs75() throws {
    let f = try ConflictFolder()
    try f.fill()
    let fd = open(f.box.path("data/.minuta.writelock.nosync"), O_CREAT | O_RDWR, 0o644)
    #expect(fd >= 0)
    defer { close(fd) }
    #expect(flock(fd, LOCK_EX) == 0)
    let before = f.snapshot("data")
    let r = try f.mn(["merge-conflicts", "--wait", "0.2"])
    #expect(r.status == 75)
    #expect(r.stderr.hasPrefix("mn: error: "))
    #expect(f.snapshot("data") == before)
  }
}
