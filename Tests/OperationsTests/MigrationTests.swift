import AutomergeCodec
import Foundation
import Operations
import Platform
import Testing

@testable import TestSupport

/// A local folder and an iCloud folder from `Fixtures/migrate` (see its README), in a
/// scratch directory, with the oracle's expected change sets.
final class MigrationScene {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/migrate")
  static let documents = [
    "records/2026/07.automerge", "records/2026/08.automerge", "records/2026/09.automerge",
    "tags.automerge",
  ]

  let scratch: ScratchFolder
  var source: String { scratch.absolute("local") }
  var destination: String { scratch.absolute("icloud") }

  init() throws {
    scratch = try ScratchFolder()
    for side in ["local", "icloud"] {
      try FileManager.default.copyItem(
        atPath: Self.fixtures.appendingPathComponent(side).path, toPath: scratch.absolute(side))
    }
  }

  /// The change hashes the oracle expects in the migrated document.
  static func expected(_ name: String) throws -> Set<String> {
    let text = try String(
      contentsOf: fixtures.appendingPathComponent("expected/\(name).changes"), encoding: .utf8)
    return Set(
      text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
  }

  /// The change hashes of one file, or none when it is absent.
  static func changes(_ path: String) throws -> Set<String> {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    let bytes = try LiveFileSystem().readFile(AbsolutePath(path), limit: 1 << 30)
    return Set(try AutomergeFile.decode(bytes).changes.map(\.hash.description))
  }

  /// Checks that every expected change is in the source's or the destination's file.
  func expectNothingLost(sourceLocation: SourceLocation = #_sourceLocation) throws {
    for name in Self.documents {
      let found = try Self.changes(source + "/" + name).union(
        try Self.changes(destination + "/" + name))
      #expect(
        try Self.expected(name).isSubset(of: found), "\(name) lost changes",
        sourceLocation: sourceLocation)
    }
  }

  /// Checks that the destination holds exactly the expected changes and the source no document.
  func expectMigrated(sourceLocation: SourceLocation = #_sourceLocation) throws {
    for name in Self.documents {
      #expect(
        try Self.changes(destination + "/" + name) == Self.expected(name), "\(name)",
        sourceLocation: sourceLocation)
      #expect(
        !FileManager.default.fileExists(atPath: source + "/" + name), "\(name)",
        sourceLocation: sourceLocation)
    }
  }

  /// Every file and directory below `relative` of the scratch folder, sorted.
  func listing(_ relative: String = "") -> [String] {
    ((try? FileManager.default.subpathsOfDirectory(atPath: scratch.absolute(relative))) ?? [])
      .sorted()
  }

  func read(_ relative: String) -> [UInt8]? {
    FileManager.default.contents(atPath: scratch.absolute(relative)).map { [UInt8]($0) }
  }

  func plan(_ fileSystem: any FileSystem = LiveFileSystem()) throws -> MigrationPlan {
    try Migration.plan(
      source: AbsolutePath(source), destination: AbsolutePath(destination), fileSystem: fileSystem)
  }

  @discardableResult
  func migrate(
    _ fileSystem: any FileSystem = LiveFileSystem(), keepSource: Bool = false,
    pointerFile: String? = nil
  ) throws -> MigrationReport {
    let plan = try plan()
    var previous: MigrationJournal?
    if case .found(let journal) = MigrationJournal.read(
      destination: AbsolutePath(destination), fileSystem: fileSystem)
    {
      previous = journal
    }
    return try Migration.execute(
      plan, keepSource: keepSource, pointerFile: pointerFile.map { AbsolutePath($0) },
      previous: previous,
      fileSystem: fileSystem)
  }
}

@Suite struct MigrationTests {
  @Test func plansMoveMergeAndSame() throws {
    let scene = try MigrationScene()
    try scene.scratch.write("local/.minuta-version", Array("1\n".utf8))
    try scene.scratch.write("local/notes.txt", Array("mine\n".utf8))
    try scene.scratch.write("icloud/notes.txt", Array("theirs\n".utf8))
    let plan = try scene.plan()
    #expect(plan.blocker == nil)
    #expect(plan.documents.map(\.name.logicalName) == MigrationScene.documents)
    #expect(plan.documents.map(\.action) == [.same, .move, .merge, .merge])
    #expect(plan.documents.map(\.newChanges) == [0, 10, 4, 5])
    #expect(plan.files.map(\.logicalName) == [".minuta-version", "notes.txt"])
    #expect(plan.files.map(\.action) == [.copy, .differs])
    #expect(plan.warnings.isEmpty)
    #expect(plan.hasWork(keepSource: false))
  }

  @Test func aDifferentVersionFileIsAWarning() throws {
    let scene = try MigrationScene()
    try scene.scratch.write("local/.minuta-version", Array("1\n".utf8))
    try scene.scratch.write("icloud/.minuta-version", Array("2\n".utf8))
    let plan = try scene.plan()
    #expect(plan.files.map(\.action) == [.differs])
    #expect(plan.warnings == [.versionDiffers])
  }

  @Test func placeholdersAndUnreadableDocumentsAndCopiesBlock() throws {
    let scene = try MigrationScene()
    try scene.scratch.write(
      "icloud/records/2026/.10.automerge.icloud", try StubBytes.stub(name: "10.automerge", size: 9))
    try scene.scratch.write("local/records/2026/11.automerge", Array("not automerge".utf8))
    try scene.scratch.write("local/records/2026/09 2.automerge", Array("not automerge".utf8))
    let plan = try scene.plan()
    #expect(
      plan.placeholders.map(\.string) == [scene.destination + "/records/2026/.10.automerge.icloud"])
    #expect(
      Set(plan.unreadable.map(\.path.string)) == [
        scene.source + "/records/2026/11.automerge", scene.source + "/records/2026/09 2.automerge",
      ])
    #expect(plan.conflictCopies.map(\.string) == [scene.source + "/records/2026/09 2.automerge"])
    guard case .placeholders? = plan.blocker else {
      Issue.record("expected placeholders first, got \(String(describing: plan.blocker))")
      return
    }
  }

  @Test func conflictCopiesOnBothSidesAreMergedFirst() throws {
    let scene = try MigrationScene()
    let fixtures = MigrationScene.fixtures
    try scene.scratch.write(
      "local/records/2026/09 2.automerge",
      Array(
        try Data(contentsOf: fixtures.appendingPathComponent("icloud/records/2026/09.automerge"))))
    try scene.scratch.write(
      "icloud/tags.sync-conflict-20260906-154512-ABCDEFG.automerge",
      Array(try Data(contentsOf: fixtures.appendingPathComponent("local/tags.automerge"))))
    let plan = try scene.plan()
    #expect(plan.blocker == nil)
    #expect(plan.conflicts.map(\.root.string) == [scene.source, scene.destination])
    #expect(plan.conflictCopies.count == 2)
    let merged = try Migration.mergeConflicts(
      plan, keepSource: false, backupPath: "/backup", fileSystem: LiveFileSystem())
    #expect(merged.conflictCopies.isEmpty && merged.conflicts.isEmpty)
    #expect(merged.documents.map(\.action) == [.same, .move, .merge, .merge])
    #expect(merged.documents.map(\.newChanges) == [0, 10, 4, 0])
    _ = try Migration.execute(
      merged, keepSource: false, pointerFile: nil, previous: nil, fileSystem: LiveFileSystem())
    try scene.expectMigrated()
    #expect(
      scene.listing("icloud").filter { $0.contains("sync-conflict") || $0.contains(" 2.") }.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: scene.source))
  }

  @Test(arguments: [("a", "a"), ("a", "a/b"), ("a/b", "a"), ("a/", "a/./")])
  func nestedFoldersAreRefused(_ pair: (String, String)) throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a/b")
    #expect(throws: MigrationError.self) {
      try Migration.checkRoots(
        source: AbsolutePath(scratch.absolute(pair.0)),
        destination: AbsolutePath(scratch.absolute(pair.1)),
        fileSystem: LiveFileSystem())
    }
    try Migration.checkRoots(
      source: AbsolutePath(scratch.absolute("a/b")),
      destination: AbsolutePath(scratch.absolute("ab")),
      fileSystem: LiveFileSystem())
  }

  @Test func migratesEveryChangeAndRemovesTheSource() throws {
    let scene = try MigrationScene()
    try scene.scratch.write("local/.minuta-version", Array("1\n".utf8))
    let pointer = try scene.scratch.write(
      "config/storage-path.txt", Array("  \(scene.source)/\n".utf8))
    let report = try scene.migrate(pointerFile: pointer)
    try scene.expectMigrated()
    #expect(report.moved == ["records/2026/08.automerge"])
    #expect(report.merged == ["records/2026/09.automerge", "tags.automerge"])
    #expect(report.same == ["records/2026/07.automerge"])
    #expect(report.removedDirectories == ["records/2026", "records", ""])
    #expect(report.pointerUpdated == AbsolutePath(pointer))
    #expect(!FileManager.default.fileExists(atPath: scene.source))
    #expect(try String(contentsOfFile: pointer, encoding: .utf8) == scene.destination + "\n")
    #expect(scene.read("icloud/.minuta-version") == Array("1\n".utf8))
    #expect(
      !FileManager.default.fileExists(
        atPath: MigrationJournal.path(destination: AbsolutePath(scene.destination)).string)
    )
    // The merged files start with the destination's bytes, unchanged (mn.md §6).
    let original = try Data(
      contentsOf: MigrationScene.fixtures.appendingPathComponent("icloud/tags.automerge"))
    #expect(scene.read("icloud/tags.automerge")?.starts(with: original) == true)
    // Nothing left: a second plan is empty.
    #expect(
      try Migration.plan(
        source: AbsolutePath(scene.source), destination: AbsolutePath(scene.destination),
        fileSystem: LiveFileSystem()
      ).documents.isEmpty)
  }

  @Test func keepSourceCopiesAndLeavesTheSource() throws {
    let scene = try MigrationScene()
    let before = scene.listing("local")
    let report = try scene.migrate(keepSource: true)
    #expect(report.removedFromSource.isEmpty && report.removedDirectories.isEmpty)
    #expect(scene.listing("local") == before)
    for name in MigrationScene.documents {
      #expect(
        try MigrationScene.changes(scene.destination + "/" + name) == MigrationScene.expected(name))
    }
  }

  @Test func anotherFileStopsTheSourceFromBeingRemoved() throws {
    let scene = try MigrationScene()
    try scene.scratch.write("local/records/notes.txt", Array("mine".utf8))
    let report = try scene.migrate()
    #expect(report.removedDirectories == ["records/2026"])
    #expect(report.leftInSource == ["records/notes.txt"])
    #expect(scene.read("icloud/records/notes.txt") == Array("mine".utf8))
    #expect(scene.read("local/records/notes.txt") == Array("mine".utf8))
  }

  @Test func anInterruptedRunResumesFromItsJournal() throws {
    let scene = try MigrationScene()
    // The second source removal fails: one document done, the journal says so.
    let faulty = FaultyFileSystem(failing: .removeFile, onCall: 2, with: .ioError)
    #expect(throws: MigrationError.self) { try scene.migrate(faulty) }
    guard
      case .found(let journal) = MigrationJournal.read(
        destination: AbsolutePath(scene.destination), fileSystem: LiveFileSystem())
    else {
      Issue.record("no journal after an interrupted run")
      return
    }
    #expect(journal.source.string == scene.source)
    #expect(journal.steps.map(\.done) == [true, false, false, false])
    try scene.expectNothingLost()
    let report = try scene.migrate()
    #expect(report.resumedSteps == 1)
    // The interrupted move was complete but for the removal: now it is the same.
    #expect(report.same == ["records/2026/08.automerge"])
    try scene.expectMigrated()
    #expect(
      !FileManager.default.fileExists(
        atPath: MigrationJournal.path(destination: AbsolutePath(scene.destination)).string)
    )
  }

  @Test func theJournalAloneFinishesAMigrationWhoseDocumentsAreAllMoved() throws {
    let scene = try MigrationScene()
    try scene.migrate(FaultyFileSystem(failing: .removeDirectory, onCall: 1, with: .ioError))
    let pointer = try scene.scratch.write("config/storage-path.txt", Array(scene.source.utf8))
    // As if killed before the finish: the journal is back, the source is empty.
    let journal = MigrationJournal(
      source: AbsolutePath(scene.source), destination: AbsolutePath(scene.destination),
      keepSource: false,
      steps: [
        .init(name: "records/2026/09.automerge", action: "merge", done: true)
      ])
    try journal.write(fileSystem: LiveFileSystem())
    let report = try scene.migrate(pointerFile: pointer)
    #expect(report.resumedSteps == 1)
    #expect(report.removedDirectories == ["records/2026", "records", ""])
    #expect(report.pointerUpdated == AbsolutePath(pointer))
    #expect(
      !FileManager.default.fileExists(
        atPath: MigrationJournal.path(destination: AbsolutePath(scene.destination)).string)
    )
  }

  @Test func journalsRoundTripAndHostileOnesAreIgnored() throws {
    let journal = MigrationJournal(
      source: "/a \"b\"", destination: "/c", keepSource: true,
      steps: [
        .init(name: "tags.automerge", action: "move", done: true), .init(name: "x", action: "copy"),
      ])
    #expect(MigrationJournal.decode(journal.encoded()) == journal)
    for bad in [
      "", "{}", "[1]", #"{"tool":"mn","format":2}"#,
      String(decoding: journal.encoded().dropLast(3), as: UTF8.self),
    ] {
      #expect(MigrationJournal.decode(Array(bad.utf8)) == nil, "\(bad)")
    }
    let scratch = try ScratchFolder()
    try scratch.write(MigrationJournal.fileName, Array("garbage".utf8))
    guard
      case .unreadable = MigrationJournal.read(
        destination: AbsolutePath(scratch.path), fileSystem: LiveFileSystem())
    else {
      Issue.record("a garbage journal is not reported")
      return
    }
  }

  /// ENOSPC at every write in turn: the run stops part-way with the I/O error, nothing is
  /// lost, no temporary is left, and a rerun finishes.
  @Test func noSpaceAtAnyWriteLosesNothingAndARerunFinishes() throws {
    var failures = 0
    for call in 1...40 {
      let scene = try MigrationScene()
      let faulty = FaultyFileSystem(failing: .write, onCall: call, with: .noSpace)
      do {
        try scene.migrate(faulty)
      } catch MigrationError.stepFailed(_, _, _, let underlying) {
        failures += 1
        #expect((underlying as? FileSystemError)?.errno == .noSpace, "write \(call): \(underlying)")
      }
      try scene.expectNothingLost()
      let temporaries = (scene.listing("local") + scene.listing("icloud")).filter {
        AtomicFile.isTemporaryName(($0 as NSString).lastPathComponent)
      }
      #expect(temporaries.isEmpty, "write \(call): \(temporaries)")
      try scene.migrate()
      try scene.expectMigrated()
      if faulty.calls(.write) < call { break }
    }
    #expect(failures >= 5)
  }

  @Test func anUnwritableDestinationMovesNothing() throws {
    let scene = try MigrationScene()
    let before = scene.listing()
    let faulty = FaultyFileSystem(failing: .createExclusive, onCall: 1, with: .permissionDenied)
    #expect {
      try scene.migrate(faulty)
    } throws: { error in
      guard case MigrationError.destinationNotWritable = error else { return false }
      return true
    }
    #expect(scene.listing() == before)
  }

  @Test func locksAreTakenInPathOrderAndAHeldOneIsReported() throws {
    let scene = try MigrationScene()
    let fs = LiveFileSystem()
    let locks = try Migration.lock(
      [scene.source, scene.destination].map { AbsolutePath($0) },
      destination: AbsolutePath(scene.destination), timeout: 0, fileSystem: fs,
      sleep: { _ in })
    #expect(
      locks.map(\.path)
        == [scene.destination, scene.source].map {
          AbsolutePath($0).appending(".minuta.writelock.nosync")
        })
    #expect(throws: LockError.self) {
      try Migration.lock(
        [AbsolutePath(scene.source)], destination: AbsolutePath(scene.destination), timeout: 0,
        fileSystem: fs, sleep: { _ in })
    }
    locks.forEach { $0.release() }
  }
}
