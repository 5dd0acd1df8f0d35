import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `fetch --from`, `migrate` and `restore` while a sync client replaces the document they
/// write (mn.md §6): another device's version arrives at each step of the replace, for a
/// document that is there (the exchange) and one that is not (the exclusive rename). After
/// the run, every change of every version is in the document and no temporary is left.
@Suite struct LiveSyncWorkflowTests {
  static let month = "records/2026/09.automerge"

  /// The steps a write reaches: all of the replace's for a present target, the two before
  /// the rename for a new one.
  static let cases: [(ReplaceStep, Bool)] =
    ReplaceStep.replace.map { ($0, true) } + [(.beforeTemporary, false), (.afterFsync, false)]

  func changes(_ path: String) throws -> Set<ChangeHash> {
    let bytes = try LiveFileSystem().readFile(AbsolutePath(path), limit: 1 << 26)
    return Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
  }

  func write(_ folder: ScratchFolder, _ rel: String, _ change: Change) throws -> ChangeHash {
    try folder.write(rel, change.chunk)
    return change.hash
  }

  /// Runs `body` with a client that brings a version of `target` at `step`; checks the
  /// outcome: `expected` and the arrival in the document, nothing left beside it.
  func check(
    _ step: ReplaceStep, target: String, expected: Set<ChangeHash>,
    _ body: (any FileSystem) throws -> Void
  ) throws {
    let arrived = LockedBox(Set<ChangeHash>())
    let arriving = ArrivingFileSystem(step: step, target: target) {
      SyncClient.newerVersion(of: target, recording: arrived)
    }
    try body(arriving.faulty)
    #expect(arriving.didFire, "step \(step) never came")
    let all = expected.union(arrived.update { $0 })
    let held = try changes(target)
    #expect(all.isSubset(of: held), "step \(step): lost \(all.subtracting(held).count) changes")
    let directory = (target as NSString).deletingLastPathComponent
    let left = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.contains(".mn-") }
    #expect(left.isEmpty, "step \(step): left \(left)")
  }

  @Test(arguments: cases)
  func fetchFromAFolder(_ step: ReplaceStep, _ present: Bool) throws {
    let folder = try ScratchFolder()
    var expected: Set<ChangeHash> = [
      try write(folder, "other/" + Self.month, SyncClient.change("other"))
    ]
    if present {
      // A stale placeholder beside the file: fetch merges the other folder's version in.
      expected.insert(try write(folder, "data/" + Self.month, SyncClient.change("here")))
      try folder.write(
        "data/records/2026/.09.automerge.icloud", try StubBytes.stub(name: "09.automerge", size: 1))
    } else {
      try folder.write("data/" + Self.month + ".nextcloud", [])
    }
    let root = folder.absolute("data")
    try check(step, target: folder.absolute("data/" + Self.month), expected: expected) { fs in
      let plan = FetchOperation.plan(
        root: AbsolutePath(root),
        documents: try FolderScan.scan(
          root: AbsolutePath(root), fileSystem: fs, readingStaleStubs: true
        )
        .documents)
      let clock = FakeClock()
      let report = try FetchOperation.run(
        plan, source: .directory(folder.location("other")),
        context: FetchContext(
          system: SystemContext(
            fileSystem: fs, now: clock.now, sleep: clock.sleep,
            processRunner: FakeProcessRunner())))
      #expect(report.failed.isEmpty, "\(report.failed)")
    }
  }

  @Test(arguments: cases)
  func migrate(_ step: ReplaceStep, _ present: Bool) throws {
    let folder = try ScratchFolder()
    var expected: Set<ChangeHash> = [
      try write(folder, "local/" + Self.month, SyncClient.change("local"))
    ]
    if present {
      expected.insert(try write(folder, "icloud/" + Self.month, SyncClient.change("icloud")))
    } else {
      try folder.makeDirectory("icloud")
    }
    try check(step, target: folder.absolute("icloud/" + Self.month), expected: expected) { fs in
      let plan = try Migration.plan(
        source: AbsolutePath(folder.absolute("local")),
        destination: AbsolutePath(folder.absolute("icloud")), fileSystem: fs)
      #expect(plan.blocker == nil)
      _ = try Migration.execute(
        plan, keepSource: false, pointerFile: nil, previous: nil, fileSystem: fs)
    }
  }

  @Test(arguments: cases)
  func restore(_ step: ReplaceStep, _ present: Bool) throws {
    let folder = try ScratchFolder()
    let archived = SyncClient.change("archived")
    var expected: Set<ChangeHash> = [archived.hash]
    if present {
      expected.insert(try write(folder, "data/" + Self.month, SyncClient.change("here")))
    } else {
      try folder.makeDirectory("data/records/2026")
    }
    var tar = TarBuilder()
    tar.add("Minuta/" + Self.month, archived.chunk, mode: 0o644)
    let archive = try ArchiveReader.read(bytes: tar.archive)
    try check(step, target: folder.absolute("data/" + Self.month), expected: expected) { fs in
      _ = try ArchiveRestore.execute(
        archive: archive, destination: folder.location("data"), fileSystem: fs,
        merger: DocumentReplace.merger)
    }
  }
}
