import Foundation
import Platform
import Testing

/// A sandbox HOME with the local default folder and the iCloud container filled from
/// `Tests/Fixtures/migrate` (see its README), a pointer file naming the local
/// folder, and `MN_BACKUP_DIR` inside the sandbox.
struct MigrateSandbox {
  static let icloud = "Library/Mobile Documents/iCloud~tools~minuta~app/Documents"
  static let local = "Documents/Minuta"
  static let fixtures = "Tests/Fixtures/migrate"
  static let pointer = ".config/minuta/storage-path.txt"
  static let documents = [
    "records/2026/07.automerge", "records/2026/08.automerge", "records/2026/09.automerge",
    "tags.automerge",
  ]

  let box: Sandbox

  init() throws {
    box = try Sandbox()
    try box.copyFromPackage(Self.fixtures + "/local", to: Self.local)
    try box.copyFromPackage(Self.fixtures + "/icloud", to: Self.icloud)
    try box.write(Self.local + "/.minuta-version", "1\n")
    try box.write(Self.pointer, box.path(Self.local) + "\n")
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
  }

  /// Every file below the sandbox with its bytes, to show nothing changed; backups and the
  /// lock files (created by taking a lock, as every writer does) aside.
  func snapshot() throws -> [String: Data] {
    var out: [String: Data] = [:]
    let root = box.path("")
    for case let rel as String in FileManager.default.enumerator(atPath: root) ?? NSEnumerator()
    where !rel.hasPrefix("backups") && !rel.hasSuffix(".minuta.writelock.nosync") {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        out[rel] = try box.read(rel)
      }
    }
    return out
  }

  func expected(_ name: String, _ kind: String) throws -> String {
    try String(
      contentsOf: Sandbox.packageRoot.appendingPathComponent(
        "\(Self.fixtures)/expected/\(name).\(kind)"),
      encoding: .utf8)
  }
}

@Suite struct MigrateTests {
  @Test func movesMergesAndRepointsThePointer() throws {
    let scene = try MigrateSandbox()
    let box = scene.box
    let r = try box.run(["migrate", "--yes"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stdout.hasPrefix(
        """
        source:      \(box.path(MigrateSandbox.local))
        destination: \(box.path(MigrateSandbox.icloud))
        same    records/2026/07.automerge
        move    records/2026/08.automerge  (10 changes)
        merge   records/2026/09.automerge  (4 new changes)
        merge   tags.automerge  (5 new changes)
        copy    .minuta-version

        """))
    #expect(r.stdout.contains("migrated 4 documents: 1 moved, 2 merged, 1 already there\n"))
    let files = try FileManager.default.contentsOfDirectory(atPath: box.path("backups"))
    let backups = files.filter { $0.hasPrefix("minuta-backup-") }
    #expect(backups.count == 1)
    // The destination descends from the source (for mn repair), recorded beside the backups.
    #expect(Set(files) == Set(backups + ["minuta-lineage.jsonl", ".mn-backups.lock"]), "\(files)")
    #expect(r.stderr == "mn: backup written to '\(box.path("backups"))/\(backups.first ?? "")'\n")
    for name in MigrateSandbox.documents {
      let path = box.path(MigrateSandbox.icloud + "/" + name)
      #expect(
        try box.run(["doc", "heads", path]).stdout == scene.expected(name, "heads"), "\(name)")
      #expect(
        try box.run(["doc", "changes", path]).stdout == scene.expected(name, "changes"), "\(name)")
    }
    #expect(!box.exists(MigrateSandbox.local))
    #expect(
      try String(decoding: box.read(MigrateSandbox.pointer), as: UTF8.self) == box.path(
        MigrateSandbox.icloud) + "\n")
    #expect(!box.exists(MigrateSandbox.icloud + "/.mn-migrate.journal.nosync"))
    #expect(try box.run(["resolve"]).stdout == box.path(MigrateSandbox.icloud) + "\n")

    let again = try box.run(["migrate", "--yes"])
    #expect(again.status == 0)
    #expect(again.stdout.isEmpty)
    #expect(
      again.stderr == "mn: nothing to migrate: '\(box.path(MigrateSandbox.local))' does not exist\n"
    )
  }

  @Test func dryRunChangesNothing() throws {
    let scene = try MigrateSandbox()
    let before = try scene.snapshot()
    let r = try scene.box.run(["migrate", "--dry-run"])
    #expect(r.status == 0)
    #expect(r.stdout.contains("move    records/2026/08.automerge"))
    #expect(r.stderr.isEmpty)
    #expect(try scene.snapshot() == before)
    #expect(!scene.box.exists("backups"))
  }

  @Test func jsonPlan() throws {
    let scene = try MigrateSandbox()
    let r = try scene.box.run(["migrate", "--dry-run", "--json"])
    #expect(r.status == 0)
    let object = try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any]
    let documents = object?["documents"] as? [[String: Any]] ?? []
    #expect(documents.map { $0["action"] as? String } == ["same", "move", "merge", "merge"])
    #expect(documents.map { $0["name"] as? String } == MigrateSandbox.documents)
    #expect(object?["dryRun"] as? Bool == true)
  }

  @Test func refusesWithoutYesAndWithoutATerminal() throws {
    let scene = try MigrateSandbox()
    let before = try scene.snapshot()
    let r = try scene.box.run(["migrate"])
    #expect(r.status == 64)
    #expect(r.stderr.hasPrefix("mn: error: refusing to migrate without confirmation"))
    #expect(try scene.snapshot() == before)
  }

  @Test(arguments: [
    ["--to", MigrateSandbox.local + "/inside"], ["--from", MigrateSandbox.icloud + "/.."],
    ["--to", MigrateSandbox.local + "/."],
  ])
  func nestedFoldersAre64(_ arguments: [String]) throws {
    let scene = try MigrateSandbox()
    let before = try scene.snapshot()
    let r = try scene.box.run(["migrate", "--yes"] + arguments)
    #expect(r.status == 64, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("mn: error: the "))
    #expect(try scene.snapshot() == before)
  }

  @Test func missingSources() throws {
    let box = try Sandbox()
    try box.mkdir(MigrateSandbox.icloud)
    let explicit = try box.run(["migrate", "--yes", "--from", "gone"])
    #expect(explicit.status == 66)
    #expect(explicit.stderr == "mn: error: no such data folder '\(box.path("gone"))'\n")
    let implicit = try box.run(["migrate", "--yes"])
    #expect(implicit.status == 0)
    #expect(implicit.stderr.hasPrefix("mn: nothing to migrate: "))
    try box.mkdir(MigrateSandbox.local + "/records")
    #expect(try box.run(["migrate", "--yes"]).stderr.hasSuffix("holds no documents\n"))
  }

  @Test func noICloudContainerIs66AndAnExplicitDestinationIsCreated() throws {
    let box = try Sandbox()
    try box.copyFromPackage(MigrateSandbox.fixtures + "/local", to: MigrateSandbox.local)
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    let r = try box.run(["migrate", "--yes"])
    #expect(r.status == 66)
    #expect(r.stderr.contains("iCloud Drive container"))
    #expect(try box.run(["migrate", "--dry-run", "--to", "new/folder"]).status == 0)
    #expect(!box.exists("new"))
    let created = try box.run(["migrate", "--yes", "--to", "new/folder"])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(created.stdout.contains("move    tags.automerge"))
    #expect(box.exists("new/folder/records/2026/09.automerge"))
    #expect(!box.exists(MigrateSandbox.local))
    // Discovery does not find the new folder: say so.
    #expect(created.stderr.contains("mn: note: "))
  }

  @Test func placeholdersAre69AndUnreadableDocuments65() throws {
    let scene = try MigrateSandbox()
    try scene.box.write(MigrateSandbox.icloud + "/records/2026/10.automerge.nextcloud", "")
    let before = try scene.snapshot()
    let r = try scene.box.run(["migrate", "--yes"])
    #expect(r.status == 69)
    #expect(
      r.stderr.contains(
        "not downloaded: \(scene.box.path(MigrateSandbox.icloud))/records/2026/10.automerge.nextcloud"
      ))
    #expect(try scene.snapshot() == before)
    try FileManager.default.removeItem(
      atPath: scene.box.path(MigrateSandbox.icloud + "/records/2026/10.automerge.nextcloud"))
    try scene.box.write(MigrateSandbox.local + "/records/2026/11.automerge", "garbage")
    #expect(try scene.box.run(["migrate", "--yes"]).status == 65)
  }

  @Test func aHeldLockIs75() throws {
    let scene = try MigrateSandbox()
    let lock = try FileLock.acquire(
      root: AbsolutePath(scene.box.path(MigrateSandbox.icloud)), timeout: 0,
      fileSystem: LiveFileSystem(),
      sleep: { _ in })
    defer { lock.release() }
    let before = try scene.snapshot()
    let r = try scene.box.run(["migrate", "--yes", "--wait", "0"])
    #expect(r.status == 75)
    #expect(try scene.snapshot() == before)
  }

  @Test func keepSourceLeavesTheSource() throws {
    let scene = try MigrateSandbox()
    let r = try scene.box.run(["migrate", "--yes", "--keep-source", "-q"])
    #expect(r.status == 0)
    #expect(r.stdout.isEmpty && r.stderr.isEmpty)
    for name in MigrateSandbox.documents {
      #expect(scene.box.exists(MigrateSandbox.local + "/" + name))
      let heads = try scene.box.run([
        "doc", "heads", scene.box.path(MigrateSandbox.icloud + "/" + name),
      ])
      #expect(heads.stdout == (try scene.expected(name, "heads")))
    }
    // The destination is where the data lives now, so the pointer names it.
    #expect(
      try String(decoding: scene.box.read(MigrateSandbox.pointer), as: UTF8.self) == scene.box.path(
        MigrateSandbox.icloud) + "\n")
  }

  @Test func conflictCopiesOnBothSidesAreMergedFirst() throws {
    let scene = try MigrateSandbox()
    let box = scene.box
    try box.write(
      MigrateSandbox.local + "/records/2026/09 2.automerge",
      box.read(MigrateSandbox.icloud + "/records/2026/09.automerge"))
    try box.write(
      MigrateSandbox.icloud + "/tags 2.automerge",
      box.read(MigrateSandbox.local + "/tags.automerge"))
    let r = try box.run(["migrate", "--yes"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stdout.contains(
        "copies  records/2026/09.automerge  (1 conflict copy in the source, merged first)\n"))
    #expect(
      r.stdout.contains(
        "copies  tags.automerge  (1 conflict copy in the destination, merged first)\n"))
    for name in MigrateSandbox.documents {
      let path = box.path(MigrateSandbox.icloud + "/" + name)
      #expect(
        try box.run(["doc", "changes", path]).stdout == scene.expected(name, "changes"), "\(name)")
    }
    #expect(!box.exists(MigrateSandbox.icloud + "/tags 2.automerge"))
    #expect(!box.exists(MigrateSandbox.local))
    #expect(try box.run(["ls", "--conflicts"]).stdout.isEmpty)
  }
}
