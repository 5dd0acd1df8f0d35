import Archive
import Foundation
import Platform
import Testing

@testable import TestSupport

@Suite struct BackupLineageTests {
  let fs = LiveFileSystem()

  @Test(
    arguments: [
      ("/home/ada/Minuta", [nil], ["/home/ada/Minuta"]),
      ("/a/old -> /b/new", ["source", "destination"], ["/a/old", "/b/new"]),
      // A folder whose name holds the separator: split where an absolute path follows.
      ("/a/x -> y -> /b/new", ["source", "destination"], ["/a/x -> y", "/b/new"]),
      ("/a/x -> y", [nil], ["/a/x -> y"]),
      ("relative", [], []),
    ] as [(String, [String?], [String])])
  func aManifestSourceNamesItsFolders(_ source: String, _ prefixes: [String?], _ folders: [String])
  {
    let found = BackupLineage.folders(ofManifestSource: source)
    #expect(found.map(\.prefix) == prefixes)
    #expect(found.map(\.folder.string) == folders)
  }

  @Test func pairSourceIsReadBack() {
    let found = BackupLineage.folders(
      ofManifestSource: BackupLineage.pairSource(AbsolutePath("/o"), AbsolutePath("/n")))
    #expect(found.map(\.folder.string) == ["/o", "/n"])
  }

  @Test func linksAreAppendedKeepingEveryOldByteAndTheLineageIsTransitive() throws {
    let scratch = try ScratchFolder()
    let directory = scratch.location("backups")
    try scratch.write("backups/" + BackupLineage.fileName, Array("not json".utf8))
    try BackupLineage.record(
      source: scratch.location("a"), destination: scratch.location("b"), directory: directory,
      now: 1_790_000_000, fileSystem: fs, wait: 0, sleep: { _ in })
    try BackupLineage.record(
      source: scratch.location("b"), destination: scratch.location("c"), directory: directory,
      now: 1_790_000_001, fileSystem: fs, wait: 0, sleep: { _ in })
    let text = String(
      decoding: try Data(
        contentsOf: URL(fileURLWithPath: directory.appending(BackupLineage.fileName).string)),
      as: UTF8.self)
    #expect(text.hasPrefix("not json\n{"), "the unreadable line is kept")
    #expect(text.split(separator: "\n").count == 3)
    let links = BackupLineage.links(in: directory, fileSystem: fs)
    #expect(links.map(\.destination) == [scratch.location("b"), scratch.location("c")])
    let lineage = BackupLineage.lineage(of: scratch.location("c"), links: links, fileSystem: fs)
    for name in ["a", "b", "c"] {
      #expect(BackupLineage.contains(lineage, scratch.location(name), fileSystem: fs), "\(name)")
    }
    // Descent has a direction, and a longer name is another folder.
    let ofB = BackupLineage.lineage(of: scratch.location("b"), links: links, fileSystem: fs)
    #expect(!BackupLineage.contains(ofB, scratch.location("c"), fileSystem: fs))
    #expect(!BackupLineage.contains(lineage, scratch.location("a-test"), fileSystem: fs))
  }

  @Test func foldersAreComparedByRealPath() throws {
    let scratch = try ScratchFolder()
    try scratch.write("data/tags.automerge", [])
    try FileManager.default.createSymbolicLink(
      atPath: scratch.absolute("link"), withDestinationPath: scratch.absolute("data"))
    let lineage = BackupLineage.lineage(of: scratch.location("link"), links: [], fileSystem: fs)
    #expect(BackupLineage.contains(lineage, scratch.location("data"), fileSystem: fs))
    #expect(BackupLineage.contains(lineage, scratch.location("data/"), fileSystem: fs))
    #expect(!BackupLineage.contains(lineage, scratch.location("dat"), fileSystem: fs))
  }
}
