import Foundation
import Testing

@testable import Core

/// `migrate` in a simulated iCloud Drive container (mn.md §15): a stale document blocks it
/// as a placeholder does, and conflict versions are merged and resolved after the backup.
@Suite struct SyncMigrationTests {
  @Test func aStaleDocumentBlocksTheMigrationNamingTheFile() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    sim.provider.makeStale(month, newer: try SimulatedFolder.device(2))
    try sim.folder.makeDirectory("destination")
    let plan = try Migration.plan(
      source: sim.root, destination: sim.folder.absolute("destination"),
      fileSystem: sim.fileSystem, syncProvider: sim.provider)
    #expect(plan.placeholders == [month])
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
      source: sim.root, destination: sim.folder.absolute("destination"),
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
}
