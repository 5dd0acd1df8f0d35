import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The corpus files of `Fixtures/conflicts` (see its README).
enum ConflictFixtures {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/conflicts")

  static func bytes(_ rel: String) throws -> [UInt8] {
    Array(try Data(contentsOf: folder.appendingPathComponent(rel)))
  }

  /// The change hashes of a `*.changes` listing (first column).
  static func hashes(_ rel: String) throws -> Set<String> {
    let text = try String(contentsOf: folder.appendingPathComponent(rel), encoding: .utf8)
    return Set(
      text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
  }
}

@Suite struct ConflictMergeTests {
  static let month = "records/2026/09.automerge"
  static let icloud = "records/2026/09 2.automerge"
  static let dropbox = "records/2026/09 (Ada's conflicted copy 2026-09-06).automerge"
  static let garbage = "records/2026/09 3.automerge"

  /// A folder with seed 1's month document (device 0) and two copies (devices 1 and 2).
  func conflictedFolder() throws -> ScratchFolder {
    let folder = try ScratchFolder()
    try folder.write(
      Self.month, try ConflictFixtures.bytes("seed-01/device-0/records/2026/09.automerge"))
    try folder.write(
      Self.icloud, try ConflictFixtures.bytes("seed-01/device-1/records/2026/09.automerge"))
    try folder.write(
      Self.dropbox, try ConflictFixtures.bytes("seed-01/device-2/records/2026/09.automerge"))
    return folder
  }

  func plan(_ folder: ScratchFolder, fileSystem: any FileSystem = LiveFileSystem()) throws
    -> ConflictMergePlan
  {
    try ConflictMerge.plan(
      listing: try FolderScan.scan(root: AbsolutePath(folder.path), fileSystem: fileSystem),
      fileSystem: fileSystem)
  }

  func read(_ folder: ScratchFolder, _ rel: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: folder.absolute(rel))))
  }

  func exists(_ folder: ScratchFolder, _ rel: String) -> Bool {
    FileManager.default.fileExists(atPath: folder.absolute(rel))
  }

  func hashes(_ bytes: [UInt8]) throws -> Set<String> {
    Set(try AutomergeFile.decode(bytes).changes.map(\.hash.description))
  }

  func names(_ folder: ScratchFolder, _ dir: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.absolute(dir)).sorted()
  }

  @Test func planCountsWhatEachCopyAddsAndChangesNothing() throws {
    let folder = try conflictedFolder()
    let before = try read(folder, Self.month)
    let plan = try plan(folder)
    #expect(plan.documents.count == 1)
    let document = try #require(plan.documents.first)
    let merged = try ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.changes")
    #expect(document.logicalName == Self.month)
    #expect(document.canonicalChanges == (try AutomergeFile.decode(before)).changes.count)
    #expect(document.mergedChanges == merged.count)
    #expect(document.added == merged.count - (document.canonicalChanges ?? 0))
    #expect(document.added > 0)
    #expect(document.refusal == nil)
    #expect(document.copies.map(\.copy.logicalName) == [Self.dropbox, Self.icloud])
    #expect(document.copies.map(\.copy.service) == [.dropbox, .icloud])
    #expect(document.copies.allSatisfy { $0.problem == nil && $0.adds > 0 && !$0.removed })
    #expect(plan.removesCopies)
    #expect(try read(folder, Self.month) == before)
    #expect(try names(folder, "records/2026").count == 3)
  }

  @Test func executeAppendsVerifiesAndRemovesTheCopiesAfterOneBackup() throws {
    let folder = try conflictedFolder()
    let before = try read(folder, Self.month)
    var backups: [[ExportFile]] = []
    var events: [String] = []
    let report = try ConflictMerge.execute(
      try plan(folder), fileSystem: LiveFileSystem(),
      backup: { files in
        backups.append(files)
        #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0.absolutePath.string) })
        return "/backups/b.tar.gz"
      },
      progress: { step in
        switch step {
        case .backedUp(let path): events.append("backup \(path)")
        case .started(let index, let total, let name):
          events.append("start \(index)/\(total) \(name)")
        case .finished(let document): events.append("done \(document.logicalName)")
        }
      })
    #expect(backups.count == 1)
    #expect(
      backups.first?.map(\.relativePath).sorted()
        == [Self.dropbox, Self.icloud, Self.month].sorted())
    #expect(
      events == ["backup /backups/b.tar.gz", "start 0/1 \(Self.month)", "done \(Self.month)"])
    #expect(report.backupPath == "/backups/b.tar.gz")
    #expect(!report.interrupted)
    let document = try #require(report.documents.first)
    #expect(document.written && document.completed)
    #expect(document.copies.allSatisfy { $0.removed && $0.problem == nil })
    let after = try read(folder, Self.month)
    #expect(Array(after.prefix(before.count)) == before, "the canonical bytes are kept as a prefix")
    #expect(
      try hashes(after)
        == ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.changes"))
    #expect(try names(folder, "records/2026") == ["09.automerge"])
  }

  @Test func aSecondRunDoesNothing() throws {
    let folder = try conflictedFolder()
    try folder.write(Self.garbage, Array("not automerge".utf8))
    _ = try ConflictMerge.execute(
      try plan(folder), fileSystem: LiveFileSystem(), backup: { _ in "b" })
    let merged = try read(folder, Self.month)
    let info = try #require(try LiveFileSystem().info(folder.location(Self.month)))
    var backups = 0
    let report = try ConflictMerge.execute(
      try plan(folder), fileSystem: LiveFileSystem(),
      backup: { _ in
        backups += 1
        return "b"
      })
    #expect(backups == 0, "nothing to remove: no backup")
    #expect(report.backupPath == nil)
    let document = try #require(report.documents.first)
    #expect(!document.written && document.added == 0)
    #expect(document.copies.map(\.copy.logicalName) == [Self.garbage])
    #expect(try read(folder, Self.month) == merged)
    let again = try #require(try LiveFileSystem().info(folder.location(Self.month)))
    #expect(
      again.inode == info.inode && again.modificationNanoseconds == info.modificationNanoseconds)
  }

  @Test func aCopyThatIsNotAutomergeIsKeptAndTheRestMerged() throws {
    let folder = try conflictedFolder()
    try folder.write(Self.garbage, Array("not automerge".utf8))
    let report = try ConflictMerge.execute(
      try plan(folder), fileSystem: LiveFileSystem(), backup: { _ in nil })
    let document = try #require(report.documents.first)
    let kept = try #require(document.copies.first { $0.copy.logicalName == Self.garbage })
    guard case .notAutomerge = kept.problem else {
      Issue.record("expected notAutomerge, got \(String(describing: kept.problem))")
      return
    }
    #expect(!kept.removed && kept.changes == nil)
    #expect(try read(folder, Self.garbage) == Array("not automerge".utf8))
    #expect(try names(folder, "records/2026") == ["09 3.automerge", "09.automerge"])
    #expect(
      try hashes(try read(folder, Self.month))
        == ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.changes"))
  }

  /// A failure at each step of the atomic write: the run stops, no copy is removed, no
  /// temporary remains, and the canonical file is the old one or the whole merge.
  @Test(arguments: [
    FaultyFileSystem.Operation.createExclusive, .write, .sync, .close, .setPermissions, .exchange,
    .syncDirectory,
  ])
  func aFailedWriteLosesNothing(_ operation: FaultyFileSystem.Operation) throws {
    let folder = try conflictedFolder()
    let before = try read(folder, Self.month)
    let everything = try ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.changes")
    let faulty = FaultyFileSystem(failing: operation, onCall: 1, with: .noSpace)
    let plan = try plan(folder)
    #expect(throws: FileSystemError.self) {
      _ = try ConflictMerge.execute(plan, fileSystem: faulty, backup: { _ in nil })
    }
    let after = try read(folder, Self.month)
    let complete = try hashes(after) == everything
    #expect(after == before || complete)
    if operation != .syncDirectory { #expect(after == before) }
    #expect(exists(folder, Self.icloud) && exists(folder, Self.dropbox))
    #expect(!(try names(folder, "records/2026").contains { $0.contains(".mn-") }))
  }

  @Test func noSpaceDuringTheWriteKeepsTheOldFile() throws {
    let folder = try conflictedFolder()
    let before = try read(folder, Self.month)
    let faulty = FaultyFileSystem(failing: .write, onCall: 1, with: .noSpace)
    let plan = try plan(folder)
    do {
      _ = try ConflictMerge.execute(plan, fileSystem: faulty, backup: { _ in nil })
      Issue.record("the run did not fail")
    } catch let error as FileSystemError {
      #expect(error.errno == .noSpace && error.operation == "write")
    }
    #expect(faulty.createdPaths.first?.contains("/records/2026/.09.automerge.mn-") == true)
    #expect(try read(folder, Self.month) == before)
    #expect(try names(folder, "records/2026").count == 3)
  }

  @Test func anActorSeqCollisionRefusesTheDocument() throws {
    let folder = try ScratchFolder()
    let actor = ActorId([0x01, 0x02, 0x03, 0x04])
    func change(_ value: String) -> [UInt8] {
      Change(
        actors: [actor], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
        ops: [Op(object: .root, key: .map("k"), insert: false, action: .set, value: .string(value))]
      ).chunk
    }
    try folder.write("tags.automerge", change("a"))
    try folder.write("tags 2.automerge", change("b"))
    var backups = 0
    let plan = try plan(folder)
    #expect(plan.documents.first?.refusal == .collision(actor: actor, seq: 1))
    #expect(!plan.removesCopies)
    let report = try ConflictMerge.execute(
      plan, fileSystem: LiveFileSystem(),
      backup: { _ in
        backups += 1
        return nil
      })
    #expect(backups == 0)
    #expect(report.documents.first?.written == false)
    #expect(try read(folder, "tags.automerge") == change("a"))
    #expect(try read(folder, "tags 2.automerge") == change("b"))
  }

  @Test func copiesOnlyGetANewCanonicalFile() throws {
    let folder = try ScratchFolder()
    for (device, name) in [
      (0, "tags 2.automerge"), (1, "tags 3.automerge"), (2, "tags (1).automerge"),
    ] {
      try folder.write(name, try ConflictFixtures.bytes("seed-01/device-\(device)/tags.automerge"))
    }
    chmod(folder.absolute("tags (1).automerge"), 0o600)
    chmod(folder.absolute("tags 2.automerge"), 0o600)
    let plan = try plan(folder)
    #expect(plan.documents.first?.entry.state == .copiesOnly)
    #expect(plan.documents.first?.createsCanonical == true)
    let report = try ConflictMerge.execute(plan, fileSystem: LiveFileSystem(), backup: { _ in nil })
    #expect(report.documents.first?.written == true)
    #expect(try names(folder, "") == ["tags.automerge"])
    #expect(
      try hashes(try read(folder, "tags.automerge"))
        == ConflictFixtures.hashes("seed-01/merged/tags.automerge.changes"))
    #expect(try LiveFileSystem().info(folder.location("tags.automerge"))?.permissions == 0o600)
  }

  @Test func keepCopiesMergesButRemovesNothing() throws {
    let folder = try conflictedFolder()
    var backups = 0
    let report = try ConflictMerge.execute(
      try plan(folder), keepCopies: true, fileSystem: LiveFileSystem(),
      backup: { _ in
        backups += 1
        return nil
      })
    #expect(backups == 0)
    #expect(report.documents.first?.written == true)
    #expect(report.documents.first?.copies.allSatisfy { !$0.removed } == true)
    #expect(try names(folder, "records/2026").count == 3)
    #expect(
      try hashes(try read(folder, Self.month))
        == ConflictFixtures.hashes("seed-01/merged/records/2026/09.automerge.changes"))
  }

  @Test func aCancelledRunChangesNothing() throws {
    let folder = try conflictedFolder()
    let before = try read(folder, Self.month)
    let report = try ConflictMerge.execute(
      try plan(folder), fileSystem: LiveFileSystem(), backup: { _ in "b" }, isCancelled: { true })
    #expect(report.interrupted && report.backupPath == nil)
    #expect(report.documents.first?.completed == false)
    #expect(try read(folder, Self.month) == before)
    #expect(try names(folder, "records/2026").count == 3)
  }

  @Test func aFailingBackupStopsBeforeAnyChange() throws {
    struct Refused: Error {}
    let folder = try conflictedFolder()
    let before = try read(folder, Self.month)
    #expect(throws: Refused.self) {
      _ = try ConflictMerge.execute(
        try plan(folder), fileSystem: LiveFileSystem(), backup: { _ in throw Refused() })
    }
    #expect(try read(folder, Self.month) == before)
    #expect(try names(folder, "records/2026").count == 3)
  }

  @Test func anUnreadableCanonicalFileRefusesTheDocument() throws {
    let folder = try conflictedFolder()
    try folder.write(Self.month, Array("damaged".utf8))
    let report = try ConflictMerge.execute(
      try plan(folder), fileSystem: LiveFileSystem(), backup: { _ in "b" })
    guard case .canonicalNotAutomerge = report.documents.first?.refusal else {
      Issue.record("expected a refusal")
      return
    }
    #expect(report.backupPath == nil)
    #expect(try read(folder, Self.month) == Array("damaged".utf8))
    #expect(try names(folder, "records/2026").count == 3)
  }
}
