import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct RepairTests {
  static let month = "records/2026/09.automerge"
  static let copy = "records/2026/09 2.automerge"
  let fs = LiveFileSystem()

  func device(_ k: Int) throws -> [UInt8] {
    try ConflictFixtures.bytes("seed-01/device-\(k)/records/2026/09.automerge")
  }

  func merged() throws -> Set<String> {
    try ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.changes")
  }

  /// A folder whose month is device 0's file with its document chunk damaged and one change
  /// chunk after it that survived (a change devices 0 and 1 share), a copy from device 1,
  /// another device's folder with device 2's file, and a backup of the folder when it held
  /// device 0's file.
  func damagedFolder() throws -> (data: ScratchFolder, other: ScratchFolder, backups: String) {
    let data = try ScratchFolder()
    var damaged = try device(0)
    damaged[damaged.count / 2] ^= 0x40
    let one = Set(try AutomergeFile.decode(try device(1)).changes.map(\.hash))
    let shared = try #require(
      try AutomergeFile.decode(try device(0)).changes.first { one.contains($0.hash) })
    try data.write(Self.month, damaged + shared.chunk)
    try data.write(Self.copy, try device(1))
    try data.write("tags.automerge", try ConflictFixtures.bytes("seed-01/device-0/tags.automerge"))
    let other = try ScratchFolder()
    try other.write(Self.month, try device(2))
    let source = try ScratchFolder()
    try source.write(Self.month, try device(0))
    let backups = other.absolute("backups")
    _ = try Backup.make(
      files: [
        ExportFile(
          relativePath: Self.month, absolutePath: source.location(Self.month), kind: .document)
      ],
      source: data.path, reason: "merge-conflicts", directory: AbsolutePath(backups),
      dataRoots: [data.location()],
      version: "test", now: 1_790_000_000, fileSystem: fs, inspect: DocumentTools.inspect)
    return (data, other, backups)
  }

  func plan(_ folder: (data: ScratchFolder, other: ScratchFolder, backups: String)) throws
    -> RepairReport
  {
    RepairOperation.plan(
      listing: try FolderScan.scan(root: AbsolutePath(folder.data.path), fileSystem: fs),
      origins: [.directory(folder.other.location())], backupDirectory: AbsolutePath(folder.backups),
      fileSystem: fs)
  }

  @Test func theUnionOfEverySourceIsPlannedAndWrittenDependenciesFirst() throws {
    let folder = try damagedFolder()
    let damaged = Array(
      try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month))))
    let report = try plan(folder)
    #expect(report.documents.map(\.logicalName) == [Self.month], "tags loads: not listed")
    let document = try #require(report.documents.first)
    #expect(document.refusal == nil)
    #expect(document.sources.map(\.kind) == [.damaged, .copy, .from, .backup])
    #expect(document.sources.map(\.salvaged) == [true, false, false, false])
    #expect(document.sources[0].changes == 1 && document.sources[0].skipped.count == 1)
    #expect(document.sources.reduce(0) { $0 + $1.recovered } == document.recovered)
    #expect(document.recovered == (try merged()).count)
    #expect(document.lost.isEmpty && document.stranded.isEmpty)
    let heads = try ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.heads")
    #expect(Set(document.heads.map(\.description)) == heads)
    // Planning changed nothing.
    #expect(
      Array(try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month))))
        == damaged)

    var backedUp: [ExportFile] = []
    let done = try RepairOperation.execute(report, fileSystem: fs) { files in
      backedUp = files
      return "/backup.tar.gz"
    }
    #expect(backedUp.map(\.relativePath) == [Self.month])
    #expect(done.backupPath == "/backup.tar.gz")
    #expect(done.documents.first?.written == true)
    let written = try AutomergeFile.decode(
      Array(try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month)))))
    #expect(Set(written.changes.map(\.hash.description)) == (try merged()))
    // It starts with the largest source that loads, byte for byte.
    let largest = try [device(1), device(2), device(0)].max {
      try AutomergeFile.decode($0).changes.count < AutomergeFile.decode($1).changes.count
    }
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month))))
    #expect(Array(bytes.prefix(largest?.count ?? 0)) == largest)
  }

  /// A migration's backup holds two folders: an entry counts only when its folder is this
  /// one or one it descends from (the lineage file); another folder's backup never does.
  @Test func backupEntriesCountOnlyForTheFoldersOfTheLineage() throws {
    let folder = try damagedFolder()
    try FileManager.default.removeItem(atPath: folder.data.absolute(Self.copy))
    let old = try ScratchFolder()
    try old.write(Self.month, try device(1))
    let backups = try ScratchFolder()
    _ = try Backup.make(
      files: [
        ExportFile(
          relativePath: Self.month, absolutePath: old.location(Self.month), kind: .document
        ).prefixed(by: "source"),
        ExportFile(
          relativePath: Self.month, absolutePath: folder.other.location(Self.month),
          kind: .document
        ).prefixed(by: "destination"),
      ],
      source: BackupLineage.pairSource(old.location(), folder.data.location()), reason: "migrate",
      directory: backups.location(), dataRoots: [folder.data.location()], version: "test",
      now: 1_790_000_000, fileSystem: fs, inspect: DocumentTools.inspect)
    func plan() throws -> RepairDocument {
      let report = RepairOperation.plan(
        listing: try FolderScan.scan(root: AbsolutePath(folder.data.path), fileSystem: fs),
        backupDirectory: backups.location(), fileSystem: fs)
      return try #require(report.documents.first)
    }
    let alone = try plan()
    // Entries in path order: destination/ (this folder), then source/.
    #expect(alone.sources.map(\.excluded) == [nil, nil, .otherFolder(old.path)])
    #expect(
      alone.sources.map { $0.location.hasSuffix(":source/" + Self.month) } == [false, false, true])
    try BackupLineage.record(
      source: old.location(), destination: folder.data.location(), directory: backups.location(),
      now: 1_790_000_001, fileSystem: fs, wait: 0, sleep: { _ in })
    let descended = try plan()
    #expect(descended.sources.map(\.excluded) == [nil, nil, nil])
    #expect(descended.sources[2].recovered > 0)
    // The same backup is of another folder for any other folder.
    let stranger = try ScratchFolder()
    try stranger.write(
      Self.month,
      Array(try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month)))))
    let report = RepairOperation.plan(
      listing: try FolderScan.scan(root: AbsolutePath(stranger.path), fileSystem: fs),
      backupDirectory: backups.location(), fileSystem: fs)
    #expect(
      report.documents.first?.sources.map(\.excluded) == [
        nil, .otherFolder(folder.data.path), .otherFolder(old.path),
      ])
  }

  @Test func aFromFolderGivesItsFileAndItsConflictCopies() throws {
    let folder = try damagedFolder()
    try FileManager.default.removeItem(atPath: folder.other.absolute(Self.month))
    try folder.other.write("records/2026/09 (1).automerge", try device(2))
    try folder.other.write("records/2026/08.automerge", try device(2))
    let report = try plan(folder)
    let sources = try #require(report.documents.first?.sources)
    #expect(
      sources.filter { $0.kind == .from }.map(\.location) == [
        folder.other.absolute("records/2026/09 (1).automerge")
      ])
    #expect(report.documents.first?.recovered == (try merged()).count)
    #expect(
      RepairOperation.fromFiles(in: folder.other.location(), logicalName: "tags.automerge", fs)
        .isEmpty)
  }

  @Test func aFailingBackupWritesNothing() throws {
    let folder = try damagedFolder()
    let before = try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month)))
    struct Refused: Error {}
    #expect(throws: Refused.self) {
      try RepairOperation.execute(try plan(folder), fileSystem: fs) { _ in throw Refused() }
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month))) == before)
  }

  @Test func aFileReplacedAfterThePlanIsLeftAlone() throws {
    let folder = try damagedFolder()
    let report = try plan(folder)
    try folder.data.write(Self.month, Array("another version, longer".utf8))
    let done = try RepairOperation.execute(report, fileSystem: fs) { _ in "/b" }
    #expect(done.documents.first?.refusal == .changedDuringRun)
    #expect(done.documents.first?.written == false)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: folder.data.absolute(Self.month)))
        == Data("another version, longer".utf8))
  }

  @Test func anUnusableArchiveIsReportedAndTheRestGoesOn() throws {
    let folder = try damagedFolder()
    try folder.other.write("backups/minuta-backup-20990101-000000-x.tar.gz", Array("junk".utf8))
    try folder.other.write("backups/not-ours.tar.gz", Array("junk".utf8))
    let report = try plan(folder)
    #expect(
      report.unusableArchives.map(\.path) == [
        AbsolutePath(folder.backups).appending("minuta-backup-20990101-000000-x.tar.gz")
      ])
    #expect(report.documents.first?.recovered == (try merged()).count)
  }

  @Test func aNamedDocumentThatLoadsIsNeverRewritten() throws {
    let folder = try damagedFolder()
    let listing = try FolderScan.scan(root: AbsolutePath(folder.data.path), fileSystem: fs)
    let (selected, _) = listing.select([LogicalName.root.appending("tags.automerge")])
    let report = RepairOperation.plan(
      listing: listing, documents: selected, backupDirectory: nil, fileSystem: fs)
    #expect(report.documents.map(\.refusal) == [.loads])
    let done = try RepairOperation.execute(report, fileSystem: fs) { _ in
      Issue.record("no backup for a document that loads")
      return ""
    }
    #expect(done.documents.first?.written == false)
  }

  @Test func changesCutOffFromALostDependencyAreLeftOutAndReported() throws {
    let data = try ScratchFolder()
    var bytes = try Fixture.bytes("salvage/seed-04-09.incremental.automerge")
    bytes[1162 + 100] ^= 4  // change chunk 2, a dependency of later changes
    try data.write(Self.month, bytes)
    let report = RepairOperation.plan(
      listing: try FolderScan.scan(root: AbsolutePath(data.path), fileSystem: fs),
      backupDirectory: nil,
      fileSystem: fs)
    let document = try #require(report.documents.first)
    #expect(
      document.lost.map(\.description) == [
        "8f72c6fd24dfe4d9a3250a4cb3099302e39872e538c1f6cc7eef2dd6fc118aa5"
      ])
    #expect(!document.stranded.isEmpty && document.losesSomething)
    #expect(document.recovered + document.stranded.count == document.sources[0].changes)
  }

  @Test func twoChangesWithTheSameActorAndSeqRefuseTheDocument() throws {
    let data = try ScratchFolder()
    let first = try #require(try AutomergeFile.decode(try device(0)).changes.first)
    let twin = Change(
      actors: first.actors, seq: first.seq, startOp: first.startOp, time: first.time + 1,
      message: "twin", deps: Array(first.deps), ops: [])
    try data.write(Self.month, first.chunk + Array("damage".utf8))
    // The copy holds `first` too: it is of this document, and the twin collides.
    try data.write(Self.copy, first.chunk + twin.chunk)
    let report = RepairOperation.plan(
      listing: try FolderScan.scan(root: AbsolutePath(data.path), fileSystem: fs),
      backupDirectory: nil,
      fileSystem: fs)
    let document = try #require(report.documents.first { $0.logicalName == Self.month })
    #expect(document.refusal == .collision(actor: first.author, seq: first.seq))
    #expect(report.repairable.allSatisfy { $0.logicalName != Self.month })
  }

  @Test(arguments: [
    ("records/2026/09.automerge", true), ("records/2026/09 2.automerge", true),
    ("records/2026/09.sync-conflict-20260906-154512-ABCDEFG.automerge", true),
    ("icloud/records/2026/09.automerge", true), ("a/b/records/2026/09.automerge", false),
    ("records/2026/08.automerge", false), ("records/2026/09.automerge.json", false),
    ("xrecords/2026/09.automerge", false),
  ])
  func anArchiveEntryHoldsTheDocumentOrItsCopies(_ path: String, _ holds: Bool) {
    #expect(RepairOperation.holds(path, logicalName: Self.month) == holds)
  }
}
