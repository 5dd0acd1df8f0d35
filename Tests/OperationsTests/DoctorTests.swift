import Foundation
import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct DoctorTests {
  let fs = LiveFileSystem()

  /// Every file below `path` with its size and modification time, to show nothing changed.
  func snapshot(_ path: String) throws -> [String: [FileAttributeKey: Any]] {
    var out: [String: [FileAttributeKey: Any]] = [:]
    for rel in try FileManager.default.subpathsOfDirectory(atPath: path) {
      out[rel] = try FileManager.default.attributesOfItem(atPath: path + "/" + rel)
    }
    return out
  }

  /// The sample tag list followed by one change chunk whose dependencies it lacks.
  func withOrphan() throws -> [UInt8] {
    let tags = try SampleDocuments.tags
    let have = Set(try AutomergeFile.decode(tags).changes.map(\.hash))
    let other = try AutomergeFile.decode(try SampleDocuments.tagsOther)
    let orphan = try #require(
      other.changes.first { !have.contains($0.hash) && $0.deps.contains { !have.contains($0) } })
    return tags + orphan.chunk
  }

  @Test func aHealthyFolderHasNoFindingsAndIsNotChanged() throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge", try SampleDocuments.tags)
    try s.write("records/2026/09.automerge", try SampleDocuments.september)
    try s.write(".minuta-version", Array("1\n".utf8))
    let before = try snapshot(s.path)
    let report = try DoctorOperation.examine(
      root: AbsolutePath(s.path), source: .flag, fileSystem: fs)
    #expect(report.findings == [])
    #expect(report.isHealthy && report.lock == .free)
    #expect(
      report.documents == [.local: 2] && report.documentCount == 2 && report.filesDecoded == 2)
    let after = try snapshot(s.path)
    #expect(Set(after.keys) == Set(before.keys), "no lock file or anything else is created")
  }

  /// The same findings in the same order whether the files are decoded on one thread or
  /// on several.
  @Test(arguments: [1, 4]) func everyKindOfFinding(threads: Int) throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge", try withOrphan())
    try s.write("tags 2.automerge", try SampleDocuments.tagsOther)
    try s.write("records/2026/01.automerge.nextcloud", [])
    try s.write("records/2026/02.automerge", try SampleDocuments.september)
    try s.write("records/2026/02.automerge.owncloud", [])
    try s.write("records/2026/03.automerge", [1, 2, 3])
    try s.write("records/2026/04 (conflicted copy 2026-09-06 154512).automerge", [4])
    try s.write("records/2026/05.automerge", try SampleDocuments.september)
    try s.write(
      "records/2026/.05 2.automerge.icloud", try StubBytes.stub(name: "05 2.automerge", size: 9))
    try s.write("records/2026/.06.automerge.mn-abc123.nosync", [6])
    try s.makeDirectory("records/2026/07.automerge")
    try s.symlink("records/2025", to: "/etc")
    let before = try snapshot(s.path)
    let report = try DoctorOperation.examine(
      root: AbsolutePath(s.path), source: .pointer,
      warnings: ["pointer file names a missing folder"],
      fileSystem: fs, threads: threads)
    #expect(report.filesDecoded == 6)
    let found = report.findings.map { "\($0.kind.rawValue) \($0.subject) | \($0.fix)" }
    #expect(
      found == [
        "discovery  | fix or remove the pointer file (see mn resolve --explain)",
        "placeholder records/2026/01.automerge | mn fetch records/2026/01.automerge",
        "stale-placeholder records/2026/02.automerge | mn fetch records/2026/02.automerge",
        "unreadable-document records/2026/03.automerge | mn repair records/2026/03.automerge "
          + "(mn doc check says why)",
        "conflict records/2026/04.automerge | mn merge-conflicts records/2026/04.automerge",
        "unreadable-copy records/2026/04 (conflicted copy 2026-09-06 154512).automerge | mn "
          + "repair 'records/2026/04 (conflicted copy 2026-09-06 154512).automerge' rebuilds it "
          + "from its verified chunks (mn doc check says why)",
        "conflict records/2026/05.automerge | mn merge-conflicts records/2026/05.automerge",
        "placeholder records/2026/05 2.automerge | mn fetch 'records/2026/05 2.automerge'",
        "conflict tags.automerge | mn merge-conflicts tags.automerge",
        "orphan-changes tags.automerge | merge a copy that has them: mn restore ARCHIVE, or mn doc merge",
        "stale-temporary records/2026/.06.automerge.mn-abc123.nosync | mn fetch (any writing mn "
          + "command removes it)",
        "scan-problem records/2025 | replace the link with what it points to (mn never follows links)",
        "scan-problem records/2026/07.automerge | move the directory out of the data folder",
      ])
    let messages = Dictionary(
      report.findings.map { ($0.kind.rawValue + " " + $0.subject, $0.message) }
    ) { a, _ in a }
    #expect(
      messages["placeholder records/2026/01.automerge"] == "not downloaded (nextcloud placeholder)")
    #expect(messages["conflict records/2026/04.automerge"] == "no file, only 1 conflict copy")
    #expect(
      messages["orphan-changes tags.automerge"]
        == "1 change whose dependencies are missing (1 missing change)")
    #expect(!report.isHealthy)
    #expect(
      report.documents == [
        .placeholder: 1, .stalePlaceholder: 1, .local: 1, .copiesOnly: 1, .conflicted: 2,
      ])
    #expect(try snapshot(s.path).keys.sorted() == before.keys.sorted())
  }

  @Test func aHeldLockIsReportedNotAProblem() throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge", try SampleDocuments.tags)
    let lock = try FileLock.acquire(root: s.location(), timeout: 0, fileSystem: fs) { _ in }
    defer { lock.release() }
    let report = try DoctorOperation.examine(
      root: AbsolutePath(s.path), source: .local, fileSystem: fs)
    #expect(report.lock == .held)
    #expect(report.isHealthy)
    lock.release()
    #expect(
      try DoctorOperation.examine(root: AbsolutePath(s.path), source: .local, fileSystem: fs).lock
        == .free)
  }

  @Test func aMissingRootThrows() throws {
    let s = try ScratchFolder()
    #expect(throws: StorageError.noSuchFolder(s.absolute("gone"))) {
      try DoctorOperation.examine(root: s.location("gone"), source: .flag, fileSystem: fs)
    }
  }
}
