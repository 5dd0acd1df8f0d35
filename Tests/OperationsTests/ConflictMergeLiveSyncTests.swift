import Foundation
import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `ConflictMerge` while a sync client replaces the canonical file (mn.md §6): another
/// device's version arrives at each step of the replace protocol and before each copy
/// removal; a crash is simulated between the exchange and the removal of the displaced file.
/// After the run and a rerun, every change of every version is in the canonical file.
@Suite struct ConflictMergeLiveSyncTests {
  static let month = ConflictMergeTests.month

  func everything(_ folder: ScratchFolder) throws -> Set<ChangeHash> {
    var all = Set<ChangeHash>()
    for rel in [Self.month, ConflictMergeTests.icloud, ConflictMergeTests.dropbox] {
      let bytes = try LiveFileSystem().readFile(folder.location(rel), limit: 1 << 26)
      all.formUnion(try AutomergeFile.decode(bytes).changes.map(\.hash))
    }
    return all
  }

  func held(_ folder: ScratchFolder) throws -> Set<ChangeHash> {
    let bytes = try LiveFileSystem().readFile(folder.location(Self.month), limit: 1 << 26)
    return Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
  }

  func run(_ folder: ScratchFolder, _ fs: any FileSystem) throws -> ConflictMergeReport {
    let listing = try FolderScan.scan(root: AbsolutePath(folder.path), fileSystem: fs)
    _ = TemporaryCleanup.removeStale(listing, fileSystem: fs)
    let plan = try ConflictMerge.plan(listing: listing, fileSystem: fs)
    return try ConflictMerge.execute(plan, fileSystem: fs, backup: { _ in nil })
  }

  @Test(arguments: ReplaceStep.allCases)
  func aVersionArrivingAtAnyStepIsKept(_ step: ReplaceStep) throws {
    let folder = try ConflictMergeTests().conflictedFolder()
    var expected = try everything(folder)
    let target = folder.absolute(Self.month)
    let arrived = LockedBox(Set<ChangeHash>())
    let arriving = ArrivingFileSystem(step: step, target: target) {
      SyncClient.newerVersion(of: target, recording: arrived)
    }
    _ = try run(folder, arriving.faulty)
    #expect(arriving.didFire, "step \(step) never happened")
    expected.formUnion(arrived.update { $0 })
    _ = try run(folder, LiveFileSystem())
    #expect(expected.isSubset(of: try held(folder)), "step \(step): a change was lost")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.absolute("records/2026"))
    #expect(names == ["09.automerge"], "step \(step): left \(names)")
  }

  struct Crash: Error {}

  /// A crash after the exchange, before the displaced file is removed (or before anything
  /// else of the run): the displaced file stays as a temporary, and the rerun, which cleans
  /// temporaries first, leaves everything in the canonical file and nothing else.
  @Test(arguments: [FaultyFileSystem.Operation.syncDirectory, .info, .readFile, .removeFile])
  func aCrashInsideTheReplaceLosesNothing(_ operation: FaultyFileSystem.Operation) throws {
    let folder = try ConflictMergeTests().conflictedFolder()
    let expected = try everything(folder)
    let target = folder.absolute(Self.month)
    let faulty = FaultyFileSystem(base: LiveFileSystem(), faults: [])
    let exchanged = LockedBox(false)
    // A version arrives just before the exchange, so that the displaced file holds a change
    // that only it has; the "crash" is the first `operation` after the exchange.
    let arrived = LockedBox(Set<ChangeHash>())
    faulty.before = { op, path in
      if op == .exchange, !exchanged.update({ $0 }) {
        try? SyncClient.renameOver(target, SyncClient.newerVersion(of: target, recording: arrived))
        exchanged.update { $0 = true }
      } else if op == operation, exchanged.update({ $0 }) {
        throw Crash()
      }
    }
    #expect(throws: Crash.self) { _ = try run(folder, faulty) }
    let leftover = try FileManager.default.contentsOfDirectory(
      atPath: folder.absolute("records/2026"))
    #expect(leftover.contains { $0.contains(".mn-") }, "the crash left no displaced file")
    _ = try run(folder, LiveFileSystem())
    let held = try held(folder)
    #expect(expected.isSubset(of: held))
    #expect(held.count == expected.count + 1, "the arrived change is not in the document")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.absolute("records/2026"))
    #expect(names == ["09.automerge"])
  }

  /// mn.md §6 and the live-sync issue: a canonical path that is a link to a file outside
  /// the folder is refused with its copies; nothing of either is touched.
  @Test func aLinkedDocumentIsRefusedAndItsCopiesKept() throws {
    let folder = try ScratchFolder()
    let outside = try folder.write(
      "elsewhere/09.automerge",
      try ConflictFixtures.bytes("seed-01/device-0/records/2026/09.automerge"))
    let copy = try ConflictFixtures.bytes("seed-01/device-1/records/2026/09.automerge")
    try folder.write(ConflictMergeTests.icloud, copy)
    try folder.symlink(Self.month, to: outside)
    let report = try run(folder, LiveFileSystem())
    #expect(report.documents.first?.refusal == .canonicalNotRegularFile(.symlink))
    #expect(try LiveFileSystem().info(folder.location(Self.month))?.kind == .symlink)
    #expect(
      try LiveFileSystem().readFile(folder.location(ConflictMergeTests.icloud), limit: 1 << 26)
        == copy)
    #expect(
      try LiveFileSystem().readFile(AbsolutePath(outside), limit: 1 << 26)
        == (try ConflictFixtures.bytes("seed-01/device-0/records/2026/09.automerge")))
  }

  /// A read of a file that is being replaced (its bytes cut short) is read again, not taken
  /// for damage.
  @Test func aReadDuringAReplaceIsRetried() throws {
    let folder = try ConflictMergeTests().conflictedFolder()
    let path = folder.absolute(Self.month)
    let whole = try LiveFileSystem().readFile(AbsolutePath(path), limit: 1 << 26)
    let reads = LockedBox(0)
    let shortOnce = FaultyFileSystem(base: LiveFileSystem(), faults: [])
    shortOnce.afterRead = { readPath, bytes in
      guard readPath == path,
        reads.update({ n -> Int in
          n += 1
          return n
        }) == 1
      else { return bytes }
      return Array(bytes.prefix(bytes.count / 2))
    }
    guard case .success(let read) = DocumentReplace.read(AbsolutePath(path), fileSystem: shortOnce)
    else {
      Issue.record("the cut read was reported as damage")
      return
    }
    #expect(read.bytes == whole)
    #expect(reads.update { $0 } == 2)
  }
}
