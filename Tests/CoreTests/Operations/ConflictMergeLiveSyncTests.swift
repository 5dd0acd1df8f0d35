import Foundation
import Testing

@testable import Core

/// `ConflictMerge` while a sync client replaces the canonical file (mn.md §6): another
/// device's version arrives at each step of the replace protocol and before each copy
/// removal; a crash is simulated between the exchange and the removal of the displaced file.
/// After the run and a rerun, every change of every version is in the canonical file.
@Suite struct ConflictMergeLiveSyncTests {
  static let month = ConflictMergeTests.month

  enum Step: String, CaseIterable, Sendable {
    case beforeTemporary, afterFsync, afterExchange, beforeDisplacedRemoval, beforeCopyRemoval

    func matches(_ operation: FaultyFileSystem.Operation, _ path: String, exchanged: Bool) -> Bool {
      switch self {
      case .beforeTemporary: operation == .createExclusive
      case .afterFsync: operation == .close && path.contains(".mn-")
      case .afterExchange: operation == .syncDirectory && exchanged
      case .beforeDisplacedRemoval: operation == .removeFile && path.contains(".mn-")
      case .beforeCopyRemoval: operation == .removeFile && !path.contains(".mn-")
      }
    }
  }

  /// Another device's version of `path`: what is there now, plus one new change.
  static func newerVersion(of path: String, label: String) -> (bytes: [UInt8], hash: ChangeHash)? {
    guard let now = try? LiveFileSystem().readFile(path, limit: 1 << 26) else { return nil }
    let change = Change(
      actors: [ActorId((0..<16).map { _ in UInt8.random(in: 0...255) })], seq: 1, startOp: 1,
      time: 0, message: nil, deps: [],
      ops: [Op(object: .root, key: .map(label), insert: false, action: .set, value: .string(label))])
    return (now + change.chunk, change.hash)
  }

  func everything(_ folder: ScratchFolder) throws -> Set<ChangeHash> {
    var all = Set<ChangeHash>()
    for rel in [Self.month, ConflictMergeTests.icloud, ConflictMergeTests.dropbox] {
      let bytes = try LiveFileSystem().readFile(folder.absolute(rel), limit: 1 << 26)
      all.formUnion(try AutomergeFile.decode(bytes).changes.map(\.hash))
    }
    return all
  }

  func held(_ folder: ScratchFolder) throws -> Set<ChangeHash> {
    let bytes = try LiveFileSystem().readFile(folder.absolute(Self.month), limit: 1 << 26)
    return Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
  }

  func run(_ folder: ScratchFolder, _ fs: any FileSystem) throws -> ConflictMergeReport {
    let listing = try FolderScan.scan(root: folder.path, fileSystem: fs)
    _ = TemporaryCleanup.removeStale(listing, fileSystem: fs)
    let plan = try ConflictMerge.plan(listing: listing, fileSystem: fs)
    return try ConflictMerge.execute(plan, fileSystem: fs, backup: { _ in nil })
  }

  @Test(arguments: Step.allCases)
  func aVersionArrivingAtAnyStepIsKept(_ step: Step) throws {
    let folder = try ConflictMergeTests().conflictedFolder()
    var expected = try everything(folder)
    let target = folder.absolute(Self.month)
    let arrived = LockedBox<ChangeHash?>(nil)
    let faulty = FaultyFileSystem(base: LiveFileSystem(), faults: [])
    let state = LockedBox((fired: false, exchanged: false))
    faulty.before = { operation, path in
      let fire = state.update { s -> Bool in
        if operation == .exchange { s.exchanged = true }
        guard !s.fired, step.matches(operation, path, exchanged: s.exchanged) else { return false }
        s.fired = true
        return true
      }
      guard fire, let version = Self.newerVersion(of: target, label: "arrived") else { return }
      try? SyncClient.renameOver(target, version.bytes)
      arrived.update { $0 = version.hash }
    }
    _ = try run(folder, faulty)
    let hash = try #require(arrived.update { $0 }, "step \(step) never happened")
    expected.insert(hash)
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
    faulty.before = { op, path in
      if op == .exchange, !exchanged.update({ $0 }),
        let version = Self.newerVersion(of: target, label: "arrived")
      {
        try? SyncClient.renameOver(target, version.bytes)
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
    #expect(try LiveFileSystem().info(folder.absolute(Self.month))?.kind == .symlink)
    #expect(
      try LiveFileSystem().readFile(folder.absolute(ConflictMergeTests.icloud), limit: 1 << 26)
        == copy)
    #expect(
      try LiveFileSystem().readFile(outside, limit: 1 << 26)
        == (try ConflictFixtures.bytes("seed-01/device-0/records/2026/09.automerge")))
  }

  /// A read of a file that is being replaced (its bytes cut short) is read again, not taken
  /// for damage.
  @Test func aReadDuringAReplaceIsRetried() throws {
    let folder = try ConflictMergeTests().conflictedFolder()
    let path = folder.absolute(Self.month)
    let whole = try LiveFileSystem().readFile(path, limit: 1 << 26)
    let reads = LockedBox(0)
    let shortOnce = FaultyFileSystem(base: LiveFileSystem(), faults: [])
    shortOnce.afterRead = { readPath, bytes in
      guard readPath == path, reads.update({ n -> Int in
        n += 1
        return n
      }) == 1 else { return bytes }
      return Array(bytes.prefix(bytes.count / 2))
    }
    guard case .success(let read) = DocumentReplace.read(path, fileSystem: shortOnce) else {
      Issue.record("the cut read was reported as damage")
      return
    }
    #expect(read.bytes == whole)
    #expect(reads.update { $0 } == 2)
  }
}

/// A value shared with `@Sendable` hooks.
final class LockedBox<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  init(_ value: Value) { self.value = value }
  @discardableResult func update<T>(_ body: (inout Value) -> T) -> T {
    lock.withLock { body(&value) }
  }
}

