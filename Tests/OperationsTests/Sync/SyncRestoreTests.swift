import Foundation
import Testing

@testable import Archive
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `restore` into a synced folder writes each document through the coordinated replace
/// (mn.md §6, §15), as every other verb does.
@Suite struct SyncRestoreTests {
  @Test func aRestoredDocumentIsReplacedInsideOneCoordinatedWrite() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    var tar = TarBuilder()
    tar.add("Minuta/" + SimulatedFolder.month, try SimulatedFolder.device(1), mode: 0o644)
    let archive = try ArchiveReader.read(bytes: tar.archive)
    try sim.folder.makeDirectory("backups")
    let outcome = try RestoreWorkflow.run(
      archive: archive, destination: AbsolutePath(sim.root),
      backupDirectory: sim.folder.location("backups"),
      version: "test", now: 1_790_000_000, fileSystem: sim.fileSystem)
    #expect(outcome.report.merged == [SimulatedFolder.month])
    let log = sim.provider.snapshot.log
    let placed = try #require(
      log.firstIndex { $0.hasPrefix("replaceItem \(month) ") || $0.hasPrefix("rename \(month)") })
    #expect(log[placed].hasSuffix("[in replacing \(month)]"))
    // The look at what was displaced, and its removal, are inside the same write.
    let after = log[(placed + 1)...].filter { $0.hasPrefix("remove ") }
    #expect(!after.isEmpty)
    #expect(after.allSatisfy { $0.hasSuffix("[in replacing \(month)]") })
    #expect(log.allSatisfy { !$0.contains(", ") })
    let all = try [0, 1].map { try SimulatedFolder.hashes(try SimulatedFolder.device($0)) }
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == all[0].union(all[1]))
  }
}
