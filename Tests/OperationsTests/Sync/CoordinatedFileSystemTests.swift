import Foundation
import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

/// What runs inside which coordinated access (mn.md §6, §15).
@Suite struct CoordinatedFileSystemTests {
  @Test func aReplaceRunsOnceInsideItsCoordinationWithEverythingItDoes() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let path = AbsolutePath(month)
    let bytes = try SimulatedFolder.device(1)
    try CoordinatedFileSystem.run(.replacing, path, on: sim.fileSystem) {
      _ = try sim.fileSystem.readFile(path, limit: 1 << 20)
      try AtomicFile.write(bytes, to: path, fileSystem: sim.fileSystem)
    }
    let log = sim.provider.snapshot.log
    #expect(log.contains("read \(month) [in replacing \(month)]"))
    #expect(log.contains("rename \(month) [in replacing \(month)]"))
    #expect(log.allSatisfy { !$0.contains(", ") })
    // Outside, each call is coordinated on its own.
    _ = try sim.fileSystem.readFile(path, limit: 1 << 20)
    #expect(sim.provider.snapshot.log.last == "read \(month) [in reading \(month)]")
  }

  @Test func outsideSyncedFoldersNothingIsCoordinated() throws {
    let sim = try SimulatedFolder()
    let outside = try sim.folder.write("elsewhere/x.automerge", try SimulatedFolder.device(0))
    _ = try sim.fileSystem.readFile(AbsolutePath(outside), limit: 1 << 20)
    try sim.fileSystem.removeFile(AbsolutePath(outside))
    #expect(sim.provider.snapshot.log == ["read \(outside)", "remove \(outside)"])
    // With no provider at all, `run` just runs.
    let plain = CoordinatedFileSystem(base: LiveFileSystem(), provider: NoSyncProvider())
    let x = AbsolutePath("/x")
    #expect(try CoordinatedFileSystem.run(.deleting, x, on: plain) { 7 } == 7)
    #expect(try CoordinatedFileSystem.run(.deleting, x, on: LiveFileSystem()) { 8 } == 8)
  }
}
