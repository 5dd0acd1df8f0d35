import Foundation
import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// The replace of a document inside a File Provider folder (mn.md §6, §15): the temporary
/// outside the folder, `replaceItemAt` with the original kept as the backup item, which is
/// examined like a swap's displaced file; never a `.nosync` name inside the folder; never a
/// dataless file displaced. Plain folders keep the swap.
@Suite struct SyncReplaceTests {
  /// Counts what a hook saw, across the simulator's calls.
  final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    private var fired = false
    func add(_ value: String) { lock.withLock { values.append(value) } }
    var all: [String] { lock.withLock { values } }
    /// True the first time only.
    func once() -> Bool {
      lock.withLock {
        defer { fired = true }
        return !fired
      }
    }
  }

  /// The names ending in `.nosync` (but the write lock) anywhere under `root`.
  static func excludedNames(under root: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: root)
    var found: [String] = []
    while let name = enumerator?.nextObject() as? String {
      let last = (name as NSString).lastPathComponent
      if last.hasSuffix(".nosync") && last != ".minuta.writelock.nosync" { found.append(name) }
    }
    return found
  }

  static func files(under root: String) -> [String] {
    (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
  }

  /// Reads the document, adds device `adding`'s changes, and replaces it.
  static func mergeAndReplace(_ sim: SimulatedFolder, adding: Int) throws -> ReplaceOutcome {
    let path = sim.path(SimulatedFolder.month)
    guard
      case .success(let read) = DocumentReplace.read(AbsolutePath(path), fileSystem: sim.fileSystem)
    else {
      throw FileSystemError("read", path, .ioError)
    }
    let content = try DocumentTools.merge(
      existing: read.bytes, incoming: try SimulatedFolder.device(adding))
    return try DocumentReplace.replace(
      AbsolutePath(path), with: content, basis: read.basis, fileSystem: sim.fileSystem)
  }

  @Test func aReplaceInAProviderFolderMakesNoExcludedNameInIt() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    let seen = Seen()
    let root = sim.root
    // At every step that changes the folder (the pause points of a replace), look at it.
    sim.provider.beforeStep = { step, _ in
      seen.add(step)
      for name in Self.excludedNames(under: root) { seen.add("excluded: \(name)") }
    }
    let outcome = try Self.mergeAndReplace(sim, adding: 1)
    sim.provider.beforeStep = nil

    #expect(outcome.route == .replacedItem)
    #expect(seen.all.contains("replaceItem"))
    #expect(!seen.all.contains { $0.hasPrefix("excluded: ") })
    #expect(Self.excludedNames(under: root).isEmpty)
    #expect(sim.provider.snapshot.violations.isEmpty)
    let expected = try SimulatedFolder.hashes(SimulatedFolder.device(0))
      .union(SimulatedFolder.hashes(SimulatedFolder.device(1)))
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == expected)
    // The backup item (the unchanged original) was removed, inside the coordinated write;
    // the replacement directory too.
    let replacement = try #require(sim.provider.snapshot.itemReplacements.first)
    #expect(!FileManager.default.fileExists(atPath: replacement.backup))
    #expect(
      sim.provider.snapshot.log.contains {
        $0.hasPrefix("remove \(replacement.backup)") && $0.contains("[in replacing ")
      })
    #expect(Self.files(under: sim.provider.replacementStore).isEmpty)
    #expect(Self.files(under: root + "/records/2026") == ["09.automerge"])
  }

  @Test func anArrivalBetweenReadAndReplaceIsMergedBackFromTheBackupItem() throws {
    let sim = try SimulatedFolder()
    let path = try sim.write(SimulatedFolder.month, device: 0)
    let arrival = try sim.folder.write("arrival.automerge", try SimulatedFolder.device(2))
    let seen = Seen()
    // Another device's version lands on the target right before mn's replace.
    sim.provider.beforeStep = { step, target in
      guard step == "replaceItem", target == path, seen.once() else { return }
      try? LiveFileSystem().rename(AbsolutePath(arrival), to: AbsolutePath(path))
    }
    let outcome = try Self.mergeAndReplace(sim, adding: 1)
    sim.provider.beforeStep = nil

    #expect(outcome.route == .replacedItem)
    #expect(outcome.arrivals.displaced == 1)
    #expect(outcome.rounds == 2)
    let expected = try [0, 1, 2].reduce(into: Set<ChangeHash>()) {
      $0.formUnion(try SimulatedFolder.hashes(SimulatedFolder.device($1)))
    }
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == expected)
    // The backup item (the arrival) was read, then removed once the target held it.
    let backup = try #require(sim.provider.snapshot.itemReplacements.first?.backup)
    let log = sim.provider.snapshot.log
    let read = try #require(log.firstIndex { $0.hasPrefix("read \(backup)") })
    let removed = try #require(log.firstIndex { $0.hasPrefix("remove \(backup)") })
    #expect(read < removed)
    #expect(Self.excludedNames(under: sim.root).isEmpty)
    #expect(sim.provider.snapshot.violations.isEmpty)
  }

  @Test func aDatalessTargetIsNeverDisplaced() throws {
    let sim = try SimulatedFolder()
    let path = try sim.write(SimulatedFolder.month, device: 0)
    let basis = ReplaceBasis(info: try sim.fileSystem.info(AbsolutePath(path)), bytes: nil)
    try sim.provider.makeDataless(path, cloud: try SimulatedFolder.device(2))
    #expect(throws: FileSystemError("replace", path, .deadlock)) {
      try DocumentReplace.replace(
        AbsolutePath(path), with: try SimulatedFolder.device(1), basis: basis,
        fileSystem: sim.fileSystem)
    }
    #expect(sim.provider.snapshot.itemReplacements.isEmpty)
    #expect(sim.provider.snapshot.dataless.contains(path))
    #expect(
      try sim.hashesOnDisk(SimulatedFolder.month)
        == SimulatedFolder.hashes(SimulatedFolder.device(0)))
    #expect(sim.provider.snapshot.violations.isEmpty)
    #expect(Self.files(under: sim.root + "/records/2026") == ["09.automerge"])
  }

  @Test func aFolderToldOnlyByADatalessFileReplacesAsAProviderFolder() throws {
    // The system calls nothing here synced (`.plain`): only a dataless file tells it.
    let sim = try SimulatedFolder(kind: .plain)
    try sim.write(SimulatedFolder.month, device: 0)
    try sim.write("records/2025/01.automerge", device: 1)
    try sim.provider.makeDataless(sim.path("records/2025/01.automerge"))
    let month = AbsolutePath(sim.path(SimulatedFolder.month))
    #expect(sim.fileSystem.folderKind(of: month) == .plain)
    _ = try sim.scan()
    #expect(sim.fileSystem.folderKind(of: month) == .fileProvider)

    let outcome = try Self.mergeAndReplace(sim, adding: 1)
    #expect(outcome.route == .replacedItem)
    #expect(
      sim.provider.snapshot.log.contains {
        $0.hasPrefix("replaceItem \(sim.path(SimulatedFolder.month)) ")
          && $0.contains("[in replacing ")
      })
    #expect(sim.provider.snapshot.violations.isEmpty)
  }

  @Test func aPlainFolderKeepsTheSwap() throws {
    let sim = try SimulatedFolder(kind: .plain)
    try sim.write(SimulatedFolder.month, device: 0)
    _ = try sim.scan()
    let outcome = try Self.mergeAndReplace(sim, adding: 1)
    #expect(outcome.route == .exchange)
    #expect(sim.provider.snapshot.itemReplacements.isEmpty)
  }

  /// A `kill -9` after `replaceItemAt` leaves the backup item: the next writer merges it.
  @Test func aLeftoverBackupItemIsMergedByTheNextWriter() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    let leftover =
      "records/2026/"
      + TemporaryFileName.backupName(
        for: "09.automerge", token: "abc123")
    try sim.write(leftover, device: 2)
    let listing = try sim.scan()
    #expect(listing.temporaries.map(\.logicalName) == [leftover])
    let removed = TemporaryCleanup.removeStale(listing, fileSystem: sim.fileSystem)
    #expect(removed == [leftover])
    let expected = try SimulatedFolder.hashes(SimulatedFolder.device(0))
      .union(SimulatedFolder.hashes(SimulatedFolder.device(2)))
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == expected)
    #expect(Self.excludedNames(under: sim.root).isEmpty)
  }

  @Test func backupNamesAreTemporaries() {
    let name = TemporaryFileName.backupName(for: "09.automerge", token: "Ab12cd")
    #expect(name == ".09.automerge.mn-Ab12cd.backup")
    #expect(TemporaryFileName.target(of: name) == "09.automerge")
    #expect(TemporaryFileName.target(of: ".09.automerge.mn-Ab12c.backup") == nil)
    #expect(TemporaryFileName.target(of: ".09.automerge.mn-Ab12cd.nosync") == "09.automerge")
    #expect(TemporaryFileName.target(of: "09.automerge.mn-Ab12cd.backup") == nil)
  }
}
