import Foundation
import Testing

@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `migrate` in a simulated iCloud Drive container (mn.md §15): a stale document blocks it
/// as a placeholder does, and conflict versions are merged and resolved after the backup.
@Suite struct SyncMigrationTests {
  @Test func aStaleDocumentBlocksTheMigrationNamingTheFile() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    sim.provider.makeStale(month, newer: try SimulatedFolder.device(2))
    try sim.folder.makeDirectory("destination")
    let plan = try Migration.plan(
      source: AbsolutePath(sim.root), destination: AbsolutePath(sim.folder.absolute("destination")),
      fileSystem: sim.fileSystem, syncProvider: sim.provider)
    #expect(plan.placeholders == [AbsolutePath(month)])
    guard case .placeholders(let paths)? = plan.blocker else {
      Issue.record("not blocked: \(String(describing: plan.blocker))")
      return
    }
    #expect(paths == [month])
  }

  @Test func versionsAreBackedUpMergedAndResolved() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let version = try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    try sim.folder.makeDirectory("destination")
    let plan = try Migration.plan(
      source: AbsolutePath(sim.root), destination: AbsolutePath(sim.folder.absolute("destination")),
      fileSystem: sim.fileSystem, syncProvider: sim.provider)
    #expect(plan.blocker == nil, "\(String(describing: plan.blocker))")
    #expect(plan.hasWork(keepSource: true))
    #expect(Migration.backupFiles(plan).contains { $0.absolutePath == version.path })
    let after = try Migration.mergeConflicts(
      plan, keepSource: false, backupPath: "/backups/x.tar.gz", fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(sim.provider.unresolved(month).isEmpty)
    #expect(sim.provider.snapshot.violations.isEmpty)
    #expect(after.versions.isEmpty)
    let expected = try SimulatedFolder.hashes(try SimulatedFolder.device(0)).union(
      try SimulatedFolder.hashes(try SimulatedFolder.device(1)))
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == expected)
  }

  /// A local folder to migrate into the simulated iCloud Drive container.
  func local(_ sim: SimulatedFolder) throws -> (source: String, file: String) {
    let file = try sim.folder.write(
      "local/" + SimulatedFolder.month, try SimulatedFolder.device(0))
    return (sim.folder.absolute("local"), file)
  }

  @Test func aDocumentIsMovedIntoICloudByTheSystem() throws {
    let sim = try SimulatedFolder()
    let (source, file) = try local(sim)
    let plan = try Migration.plan(
      source: AbsolutePath(source), destination: AbsolutePath(sim.root), fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(plan.blocker == nil)
    let report = try Migration.execute(
      plan, keepSource: false, pointerFile: nil, previous: nil, fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(report.moved == [SimulatedFolder.month])
    let month = sim.path(SimulatedFolder.month)
    #expect(sim.provider.snapshot.log.contains("setUbiquitous \(file) -> \(month)"))
    #expect(!FileManager.default.fileExists(atPath: file))
    #expect(
      try sim.hashesOnDisk(SimulatedFolder.month)
        == (try SimulatedFolder.hashes(try SimulatedFolder.device(0))))
  }

  @Test func aKeptSourceIsCopiedNotMovedByTheSystem() throws {
    let sim = try SimulatedFolder()
    let (source, file) = try local(sim)
    let plan = try Migration.plan(
      source: AbsolutePath(source), destination: AbsolutePath(sim.root), fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    _ = try Migration.execute(
      plan, keepSource: true, pointerFile: nil, previous: nil, fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(!sim.provider.snapshot.log.contains { $0.hasPrefix("setUbiquitous") })
    #expect(FileManager.default.fileExists(atPath: file))
    #expect(FileManager.default.fileExists(atPath: sim.path(SimulatedFolder.month)))
    #expect(
      !Migration.usesSystemMove(
        source: AbsolutePath(file), target: AbsolutePath(sim.path(SimulatedFolder.month)),
        targetExists: false,
        keepSource: false, provider: NoSyncProvider()))
  }

  /// Where the system refuses its move (a build without the container's entitlement, as
  /// Homebrew's is), the document is copied through the coordinated replace, verified and
  /// synced, and only then is the source removed; the report says which way it went.
  @Test func aRefusedSystemMoveCopiesVerifiesThenRemovesTheSource() throws {
    let sim = try SimulatedFolder()
    let (source, file) = try local(sim)
    sim.provider.locked { $0.refuseMoves = true }
    let plan = try Migration.plan(
      source: AbsolutePath(source), destination: AbsolutePath(sim.root), fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    let report = try Migration.execute(
      plan, keepSource: false, pointerFile: nil, previous: nil, fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(report.moved == [SimulatedFolder.month])
    guard case .copied(let refusal)? = report.intoICloud[SimulatedFolder.month] else {
      Issue.record("not copied: \(String(describing: report.intoICloud))")
      return
    }
    #expect(refusal.contains("refused"))
    #expect(!FileManager.default.fileExists(atPath: file))
    #expect(
      try sim.hashesOnDisk(SimulatedFolder.month)
        == (try SimulatedFolder.hashes(try SimulatedFolder.device(0))))
    let month = sim.path(SimulatedFolder.month)
    let log = sim.provider.snapshot.log
    let placed = try #require(
      log.firstIndex { $0.hasPrefix("rename \(month)") || $0.hasPrefix("replaceItem \(month) ") })
    #expect(log[placed].hasSuffix("[in replacing \(month)]"))
    let synced = try #require(
      log.firstIndex { $0.hasPrefix("syncDirectory \(AbsolutePath(month).parent.string)") })
    let removed = try #require(log.firstIndex { $0.hasPrefix("remove \(file)") })
    #expect(placed < synced && synced < removed)
  }

  @Test func theSystemMoveIsReported() throws {
    let sim = try SimulatedFolder()
    let (source, _) = try local(sim)
    let plan = try Migration.plan(
      source: AbsolutePath(source), destination: AbsolutePath(sim.root), fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    let report = try Migration.execute(
      plan, keepSource: false, pointerFile: nil, previous: nil, fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(report.intoICloud == [SimulatedFolder.month: .systemMove])
  }
}
