import Foundation
import Operations
import Platform
import Testing

@testable import TestSupport

/// `MigrateOperation` driven directly, on the `Fixtures/migrate` folders (`MigrationScene`):
/// the workflow of `mn migrate` without the verb.
@Suite struct MigrateOperationTests {
  /// What a run told its callbacks, in order.
  final class Recorder {
    var events: [String] = []
    var confirmations = 0
  }

  let scene: MigrationScene
  let recorder = Recorder()

  init() throws { scene = try MigrationScene() }

  var backups: String { scene.scratch.absolute("backups") }

  func request(
    from: String?? = nil, to: String?? = nil, dryRun: Bool = false, keepSource: Bool = false
  ) -> MigrateOperation.Request {
    MigrateOperation.Request(
      from: (from ?? scene.source).map { AbsolutePath($0) },
      to: (to ?? scene.destination).map { AbsolutePath($0) },
      defaultSource: AbsolutePath(scene.scratch.absolute("default-local")),
      defaultDestination: AbsolutePath(scene.scratch.absolute("default-icloud")), dryRun: dryRun,
      keepSource: keepSource, fetch: nil, lockTimeout: 0, pointerFile: nil, version: "test")
  }

  func context(
    confirming answer: Bool = true, fileSystem: any FileSystem = LiveFileSystem()
  ) -> MigrateOperation.Context {
    let recorder = recorder
    let backups = backups
    return MigrateOperation.Context(
      system: SystemContext(fileSystem: fileSystem, now: { 1_788_710_400 }),
      backupDirectory: { AbsolutePath(backups) },
      fetchContext: { _, _ in
        Issue.record("nothing is fetched without --fetch")
        return FetchContext(system: SystemContext(fileSystem: LiveFileSystem(), now: { 0 }))
      },
      confirm: { _ in
        recorder.confirmations += 1
        return answer
      },
      event: { event in
        switch event {
        case .journalIgnored(let why): recorder.events.append("journal ignored: \(why)")
        case .removedTemporary(let path): recorder.events.append("removed \(path)")
        case .fetched: recorder.events.append("fetched")
        case .planned(let plan, let wouldFetch, let blocked):
          recorder.events.append(
            "planned \(plan.documents.count) \(wouldFetch.count) \(blocked ? "blocked" : "ok")")
        case .resuming(let journal): recorder.events.append("resuming \(journal)")
        case .backupWritten: recorder.events.append("backup")
        case .executing(let total): recorder.events.append("executing \(total)")
        case .migrating(let name): recorder.events.append("migrating \(name)")
        }
      })
  }

  /// The scene's files and directories, but the lock files (which taking a lock creates).
  func files() -> [String] {
    scene.listing().filter { !$0.hasSuffix("/" + FileLock.fileName) }
  }

  func isFree(_ root: String) -> Bool {
    guard
      let lock = try? WriteLocks.acquire(
        [AbsolutePath(root)], timeout: 0, fileSystem: LiveFileSystem(), sleep: { _ in })
    else { return false }
    lock.release()
    return true
  }

  @Test func migratesAndReportsEachStep() throws {
    let outcome = try MigrateOperation.run(request(), context: context())
    guard case .migrated(let plan, let report, let backup) = outcome else {
      Issue.record("unexpected outcome \(outcome)")
      return
    }
    try scene.expectMigrated()
    #expect(plan.documents.count == MigrationScene.documents.count)
    #expect(report.moved == ["records/2026/08.automerge"])
    #expect(report.merged == ["records/2026/09.automerge", "tags.automerge"])
    #expect(report.same == ["records/2026/07.automerge"])
    let path = try #require(backup)
    #expect(path.string.hasPrefix(backups + "/"))
    #expect(FileManager.default.fileExists(atPath: path.string))
    #expect(recorder.confirmations == 1)
    #expect(
      recorder.events == ["planned 4 0 ok", "backup", "executing 4"]
        + MigrationScene.documents.map { "migrating \($0)" })
    #expect(isFree(scene.source) || !FileManager.default.fileExists(atPath: scene.source))
    #expect(isFree(scene.destination))
  }

  @Test func aDryRunChecksAndChangesNothing() throws {
    let before = files()
    let outcome = try MigrateOperation.run(request(dryRun: true), context: context())
    guard case .checked(let plan) = outcome else {
      Issue.record("unexpected outcome \(outcome)")
      return
    }
    #expect(plan.documents.map(\.action) == [.same, .move, .merge, .merge])
    #expect(recorder.confirmations == 0)
    #expect(recorder.events == ["planned 4 0 ok"])
    #expect(files() == before)
  }

  @Test func aRefusedConfirmationChangesNothing() throws {
    let before = files()
    let outcome = try MigrateOperation.run(request(), context: context(confirming: false))
    guard case .declined = outcome else {
      Issue.record("unexpected outcome \(outcome)")
      return
    }
    #expect(recorder.confirmations == 1)
    #expect(files() == before)
    #expect(isFree(scene.source) && isFree(scene.destination))
  }

  @Test func aBlockerIsShownWithThePlanThenThrownAndTheLocksAreReleased() throws {
    try scene.scratch.write("local/records/2026/11.automerge", Array("not automerge".utf8))
    let before = files()
    #expect {
      try MigrateOperation.run(request(), context: context())
    } throws: { error in
      guard case MigrationError.unreadable(let files) = error else { return false }
      return files.map(\.path.string) == [scene.source + "/records/2026/11.automerge"]
    }
    #expect(recorder.events == ["planned 4 0 blocked"])
    #expect(recorder.confirmations == 0)
    #expect(files() == before)
    #expect(isFree(scene.source) && isFree(scene.destination))
  }

  @Test func aHeldLockStopsItBeforeAnythingAndReleasesTheOther() throws {
    // The destination (`icloud`) sorts first: its lock is taken, then the source's is held.
    let held = try WriteLocks.acquire(
      [AbsolutePath(scene.source)], timeout: 0, fileSystem: LiveFileSystem(), sleep: { _ in })
    let before = files()
    #expect(throws: LockError.self) { try MigrateOperation.run(request(), context: context()) }
    #expect(recorder.events.isEmpty)
    #expect(files() == before)
    #expect(isFree(scene.destination))
    held.release()
  }

  @Test func aLockFileThatCannotBeCreatedInTheDestinationMeansItIsNotWritable() throws {
    let lockFile = scene.destination + "/" + FileLock.fileName
    let faulty = FaultyFileSystem(failingPaths: [
      .init(operation: .openForLocking, path: lockFile, errno: .permissionDenied)
    ])
    #expect {
      try MigrateOperation.run(request(), context: context(fileSystem: faulty))
    } throws: { error in
      guard case MigrationError.destinationNotWritable(let path, let inner) = error else {
        return false
      }
      return path == scene.destination && inner.path == lockFile
    }
    #expect(isFree(scene.source) && isFree(scene.destination))
  }

  @Test func aLockFileThatCannotBeCreatedInTheSourceIsALockError() throws {
    let lockFile = scene.source + "/" + FileLock.fileName
    let faulty = FaultyFileSystem(failingPaths: [
      .init(operation: .openForLocking, path: lockFile, errno: .permissionDenied)
    ])
    #expect {
      try MigrateOperation.run(request(), context: context(fileSystem: faulty))
    } throws: { error in
      guard case LockError.fileSystem(let inner) = error else { return false }
      return inner.path == lockFile
    }
    // The destination's lock, taken first, was released.
    #expect(isFree(scene.destination))
  }

  @Test func aMissingDefaultSourceIsNothingToDoAndAMissingExplicitOneAnError() throws {
    let outcome = try MigrateOperation.run(request(from: .some(nil)), context: context())
    guard case .nothingToDo(let plan, .sourceMissing) = outcome else {
      Issue.record("unexpected outcome \(outcome)")
      return
    }
    #expect(plan.source.string == scene.scratch.absolute("default-local"))
    #expect(plan.destinationExists)
    let missing = scene.scratch.absolute("nowhere")
    #expect {
      try MigrateOperation.run(request(from: missing), context: context())
    } throws: { error in
      guard case MigrationError.noSuchSource(let path) = error else { return false }
      return path == missing
    }
  }

  @Test func anEmptySourceIsNothingToDo() throws {
    try scene.scratch.makeDirectory("empty")
    let outcome = try MigrateOperation.run(
      request(from: scene.scratch.absolute("empty")), context: context())
    guard case .nothingToDo(_, .noDocuments) = outcome else {
      Issue.record("unexpected outcome \(outcome)")
      return
    }
  }

  @Test func withoutDefaultsAFolderMustBeGiven() throws {
    var noDefaults = request(to: .some(nil))
    noDefaults.defaultDestination = nil
    #expect {
      try MigrateOperation.run(noDefaults, context: context())
    } throws: { error in
      guard case MigrationError.noDefaultFolder = error else { return false }
      return true
    }
  }

  @Test func theDefaultDestinationMustExist() throws {
    let outcome = request(to: .some(nil))
    #expect {
      try MigrateOperation.run(outcome, context: context())
    } throws: { error in
      guard case MigrationError.noSuchDestination(let path) = error else { return false }
      return path == scene.scratch.absolute("default-icloud")
    }
  }

  @Test func anExplicitDestinationIsCreatedAndLockedAfterTheConfirmation() throws {
    let fresh = scene.scratch.absolute("new/Minuta")
    let outcome = try MigrateOperation.run(request(to: fresh), context: context())
    guard case .migrated(_, let report, _) = outcome else {
      Issue.record("unexpected outcome \(outcome)")
      return
    }
    #expect(report.moved == MigrationScene.documents)
    #expect(FileManager.default.fileExists(atPath: fresh + "/tags.automerge"))
    #expect(isFree(fresh))
  }
}
