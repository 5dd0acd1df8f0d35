import Foundation
import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `doctor` on the sync engines' own state (issue 27): rclone bisync's listings of the folder
/// left by an aborted run, Syncthing's versions holding changes the document lacks.
@Suite struct DoctorEngineTests {
  let fs = LiveFileSystem()

  /// bisync's listing names for the pair (the folder, a hub).
  func listing(_ root: String, _ suffix: String) -> String {
    String(root.dropFirst()).replacing("/", with: "_") + "..hub_Minuta." + suffix
  }

  @Test func bisyncListingsInErrorOrLeftByAnAbortAreReported() throws {
    let s = try ScratchFolder()
    try s.write("data/tags.automerge", try SampleDocuments.tags)
    let root = s.path + "/data"
    let bisync = s.path + "/bisync"
    try FileManager.default.createDirectory(atPath: bisync, withIntermediateDirectories: true)
    for name in ["path1.lst", "path2.lst"] {
      try s.write("bisync/" + listing(root, name), [])
    }
    // Another folder's aborted listings are not this folder's business.
    try s.write("bisync/other_folder..hub_Minuta.path1.lst-err", [])
    func findings() throws -> [DoctorFinding] {
      try DoctorOperation.examine(
        root: AbsolutePath(root), source: .flag, fileSystem: fs,
        bisyncDirectory: AbsolutePath(bisync)
      )
      .findings
    }
    #expect(try findings() == [], "a bisync that ended well")
    try s.write("bisync/" + listing(root, "path1.lst-new"), [])
    let aborted = try findings()
    #expect(aborted.map(\.kind) == [.bisyncAborted])
    #expect(aborted.first?.fix.contains("--force") == true)
    try s.write("bisync/" + listing(root, "path1.lst-err"), [])
    let failed = try findings()
    #expect(failed.map(\.kind) == [.bisyncAborted])
    #expect(failed.first?.subject == bisync + "/" + listing(root, "path1.lst-err"))
    #expect(failed.first?.fix.contains("--resync") == true)
    #expect(
      try DoctorOperation.examine(root: AbsolutePath(root), source: .flag, fileSystem: fs).findings
        == [])
  }

  @Test func aSyncthingVersionWithChangesTheDocumentLacksIsReported() throws {
    let s = try ScratchFolder()
    let tags = try SampleDocuments.tags
    let other = try SampleDocuments.tagsOther
    try s.write("tags.automerge", tags)
    try s.write("records/2026/09.automerge", try SampleDocuments.september)
    // An older version of tags (all its changes in the document), a version of the other
    // device's, and one that is not Automerge.
    try s.write(".stversions/tags~20261201-101010.automerge", tags)
    try s.write(".stversions/tags~20261201-111111.automerge", other)
    try s.write(".stversions/records/2026/09~20261201-121212.automerge", Array("junk".utf8))
    let report = try DoctorOperation.examine(
      root: AbsolutePath(s.path), source: .flag, fileSystem: fs)
    let have = Set(try AutomergeFile.decode(tags).changes.map(\.hash))
    let lacking = try AutomergeFile.decode(other).changes.count { !have.contains($0.hash) }
    #expect(report.findings.map(\.kind) == [.syncthingVersion])
    let finding = try #require(report.findings.first)
    #expect(finding.subject == ".stversions/tags~20261201-111111.automerge")
    #expect(finding.message.contains("holds \(lacking) change"))
    #expect(
      finding.fix
        == "cp '\(s.path)/.stversions/tags~20261201-111111.automerge' "
        + "\(s.path)/tags.sync-conflict-20261201-111111.automerge && mn merge-conflicts tags.automerge"
    )
    // The fix's copy name is one that merge-conflicts takes as a copy of the document.
    let copy = try #require(
      ConflictCopy.parse(fileName: "tags.sync-conflict-20261201-111111.automerge"))
    #expect(copy.service == .syncthing && copy.canonicalName == "tags.automerge")
  }
}
