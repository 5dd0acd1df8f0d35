import Foundation
import Testing

/// `mn migrate --fetch` (mn.md §7, step 2): the placeholders of both folders are fetched
/// first, through the workflow of `mn fetch`.
@Suite struct MigrateFetchTests {
  /// The migrate fixtures, with the local August and the iCloud tag list as iCloud stubs,
  /// their real files in `other` (another device's copy of each).
  static func scene() throws -> MigrateSandbox {
    let scene = try MigrateSandbox()
    let box = scene.box
    let august = "records/2026/08.automerge"
    let tags = "tags.automerge"
    let localAugust = try box.read(MigrateSandbox.local + "/" + august)
    let icloudTags = try box.read(MigrateSandbox.icloud + "/" + tags)
    try box.write("other/" + august, localAugust)
    try box.write("other/" + tags, icloudTags)
    try FileManager.default.removeItem(atPath: box.path(MigrateSandbox.local + "/" + august))
    try FileManager.default.removeItem(atPath: box.path(MigrateSandbox.icloud + "/" + tags))
    try box.writeICloudStub(for: MigrateSandbox.local + "/" + august, size: localAugust.count)
    try box.writeICloudStub(for: MigrateSandbox.icloud + "/" + tags, size: icloudTags.count)
    return scene
  }

  @Test func fetchesBothSidesThenMigrates() throws {
    let scene = try Self.scene()
    let box = scene.box
    let r = try box.run(["migrate", "--yes", "--fetch", "--fetch-from", "other"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr.contains("mn: fetched '\(box.path(MigrateSandbox.local))/records/2026/08.automerge'")
    )
    #expect(r.stderr.contains("mn: fetched '\(box.path(MigrateSandbox.icloud))/tags.automerge'"))
    #expect(r.stdout.contains("migrated 4 documents: 1 moved, 2 merged, 1 already there\n"))
    for name in MigrateSandbox.documents {
      let path = box.path(MigrateSandbox.icloud + "/" + name)
      #expect(
        try box.run(["doc", "heads", path]).stdout == scene.expected(name, "heads"), "\(name)")
    }
    #expect(!box.exists(MigrateSandbox.icloud + "/.tags.automerge.icloud"))
    #expect(!box.exists(MigrateSandbox.local))
  }

  @Test func withoutFetchNothingChanges() throws {
    let scene = try Self.scene()
    let before = try scene.snapshot()
    let r = try scene.box.run(["migrate", "--yes"])
    #expect(r.status == 69)
    #expect(r.stderr.contains("2 files are not downloaded"))
    #expect(try scene.snapshot() == before)
  }

  @Test func fetchOptionsNeedFetch() throws {
    let scene = try Self.scene()
    let before = try scene.snapshot()
    for extra in [["--fetch-from", "other"], ["--fetch-exec", "true"], ["--fetch-timeout", "1"]] {
      let r = try scene.box.run(["migrate", "--yes"] + extra)
      #expect(r.status == 64, "\(extra)")
      #expect(r.stderr.hasPrefix("mn: error: \(extra[0]) needs --fetch\n"), "\(r.stderr)")
    }
    let both = try scene.box.run([
      "migrate", "--yes", "--fetch", "--fetch-from", "other", "--fetch-exec", "true",
    ])
    #expect(both.status == 64)
    #expect(try scene.snapshot() == before)
  }

  @Test func dryRunListsWhatItWouldFetch() throws {
    let scene = try Self.scene()
    let box = scene.box
    let before = try scene.snapshot()
    let r = try box.run(["migrate", "--dry-run", "--fetch", "--fetch-from", "other"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("fetch   records/2026/08.automerge  (in the source)\n"))
    #expect(r.stdout.contains("fetch   tags.automerge  (in the destination)\n"))
    #expect(try scene.snapshot() == before)
  }

  @Test func placeholdersLeftAfterFetchingStopWith69() throws {
    let scene = try Self.scene()
    let box = scene.box
    try FileManager.default.removeItem(atPath: box.path("other/tags.automerge"))
    let before = try scene.snapshot()
    let r = try box.run(["migrate", "--yes", "--fetch", "--fetch-from", "other"])
    #expect(r.status == 69, "\(r.stderr)")
    #expect(
      r.stderr.contains("not downloaded: \(box.path(MigrateSandbox.icloud))/.tags.automerge.icloud")
    )
    // Only the fetched August changed: the source still holds every document.
    var after = try scene.snapshot()
    let august = MigrateSandbox.local + "/records/2026/08.automerge"
    #expect(after.removeValue(forKey: august) == (try box.read("other/records/2026/08.automerge")))
    var expected = before
    expected.removeValue(forKey: MigrateSandbox.local + "/records/2026/.08.automerge.icloud")
    #expect(after == expected)
    #expect(!box.exists("backups"))
  }
}
