import Foundation
import Testing

@testable import Archive
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `NSFileVersion` conflict versions merged as copies and resolved only once durable
/// (mn.md §15), in a simulated iCloud Drive container.
@Suite struct ConflictVersionsTests {
  struct Killed: Error {}

  /// The month document (device 0) with a readable version (device 1) and, when
  /// `unreadable`, a version that cannot be read (device 2).
  func folder(unreadable: Bool) throws -> (SimulatedFolder, [SyncVersion]) {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    var versions = [try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))]
    versions.append(
      try sim.provider.addVersion(
        of: month, bytes: try SimulatedFolder.device(2), readable: !unreadable, device: nil))
    return (sim, versions)
  }

  func plan(_ sim: SimulatedFolder) throws -> VersionMergePlan {
    ConflictVersions.plan(
      try sim.scan().documents, root: AbsolutePath(sim.root), provider: sim.provider,
      fileSystem: sim.fileSystem)
  }

  @Test func versionsAreMergedThenResolvedAndTheirBytesBackedUpFirst() throws {
    let (sim, versions) = try folder(unreadable: false)
    let month = sim.path(SimulatedFolder.month)
    let plan = try plan(sim)
    #expect(plan.documents.count == 1)
    #expect(plan.documents.first?.versions.allSatisfy { $0.problem == nil && $0.adds > 0 } == true)
    var backedUp: [ExportFile] = []
    var logAtBackup: [String] = []
    let report = try ConflictVersions.execute(
      plan, provider: sim.provider, fileSystem: sim.fileSystem,
      backup: { files in
        backedUp = files
        logAtBackup = sim.provider.snapshot.log
        return "/backups/x.tar.gz"
      })
    #expect(report.backupPath == "/backups/x.tar.gz")
    #expect(Set(backedUp.map(\.absolutePath.string)) == Set([month] + versions.map(\.path.string)))
    #expect(!logAtBackup.contains { $0.hasPrefix("exchange") || $0.hasPrefix("resolve") })
    let document = try #require(report.documents.first)
    #expect(document.written)
    #expect(document.versions.allSatisfy { $0.resolved })
    #expect(document.removedOthers)
    #expect(sim.provider.unresolved(month).isEmpty)
    #expect(sim.provider.snapshot.violations.isEmpty)
    let all = try [0, 1, 2].map { try SimulatedFolder.hashes(try SimulatedFolder.device($0)) }
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == all.reduce(Set(), { $0.union($1) }))
    let log = sim.provider.snapshot.log
    #expect(
      log.contains {
        $0.hasPrefix("replaceItem \(month) ") && $0.hasSuffix("[in replacing \(month)]")
      })
    // Durable before resolved: the exchange, then the directory's sync, then the resolution.
    let rename = try #require(log.firstIndex { $0.hasPrefix("replaceItem \(month) ") })
    let synced = try #require(log.firstIndex { $0.hasPrefix("syncDirectory ") })
    let resolved = try #require(log.firstIndex { $0.hasPrefix("resolve") })
    #expect(rename < synced && synced < resolved)
    // The versions are removed inside a coordinated write of the document (mn.md §15).
    #expect(log[resolved].hasSuffix("[in replacing \(month)]"))
  }

  /// A version resolved meanwhile on another device, whose URL the system no longer gives,
  /// is never passed on to be resolved (on a Mac that nil URL would trap), and nothing of
  /// what was merged is lost.
  @Test func aVersionWhoseURLGoesNilIsSkipped() throws {
    let (sim, versions) = try folder(unreadable: false)
    let month = sim.path(SimulatedFolder.month)
    let plan = try plan(sim)
    #expect(plan.documents.first?.versions.count == 2)
    sim.provider.loseURL(of: versions[1])
    let report = try ConflictVersions.execute(
      plan, provider: sim.provider, fileSystem: sim.fileSystem, backup: { _ in "/backups/x" })
    #expect(sim.provider.snapshot.violations.isEmpty, "\(sim.provider.snapshot.violations)")
    #expect(sim.provider.snapshot.log.contains { $0.hasPrefix("resolve 1 of \(month)") })
    let all = try [0, 1, 2].map { try SimulatedFolder.hashes(try SimulatedFolder.device($0)) }
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == all.reduce(Set(), { $0.union($1) }))
    #expect(report.documents.first?.written == true)
  }

  @Test func anUnreadableVersionStaysUnresolvedAndIsReported() throws {
    let (sim, versions) = try folder(unreadable: true)
    let month = sim.path(SimulatedFolder.month)
    let plan = try plan(sim)
    let items = try #require(plan.documents.first?.versions)
    #expect(items[0].problem == nil)
    #expect(items[1].problem?.description.contains("kept unresolved") == true)
    #expect(
      !ConflictVersions.backupFiles(plan).contains { $0.absolutePath == versions[1].path })
    let report = try ConflictVersions.execute(
      plan, provider: sim.provider, fileSystem: sim.fileSystem, backup: { _ in nil })
    let document = try #require(report.documents.first)
    #expect(document.versions.map(\.resolved) == [true, false])
    // The file's other versions are not removed: that would remove the unreadable one.
    #expect(!document.removedOthers)
    #expect(sim.provider.unresolved(month).map(\.value) == [versions[1]])
    #expect(sim.provider.snapshot.violations.isEmpty)
  }

  @Test func keepingCopiesMergesButResolvesNothing() throws {
    let (sim, _) = try folder(unreadable: false)
    let report = try ConflictVersions.execute(
      try plan(sim), provider: sim.provider, fileSystem: sim.fileSystem, resolving: false,
      backup: { _ in nil })
    #expect(report.documents.first?.written == true)
    #expect(sim.provider.unresolved(sim.path(SimulatedFolder.month)).count == 2)
  }

  @Test func resolutionRemovesOthersOnlyWhenEveryUnresolvedVersionWasMerged() {
    let document = AbsolutePath("/d")
    let a = SyncVersion(documentPath: document, path: AbsolutePath("/v/a"))
    let b = SyncVersion(documentPath: document, path: AbsolutePath("/v/b"))
    let c = SyncVersion(documentPath: document, path: AbsolutePath("/v/c"))
    #expect(ConflictVersions.resolution(merged: [a, b], unresolved: [a, b]) == ([a, b], true))
    #expect(ConflictVersions.resolution(merged: [a, b], unresolved: [b, c]) == ([b], false))
    #expect(ConflictVersions.resolution(merged: [a], unresolved: []) == ([], false))
    #expect(ConflictVersions.resolution(merged: [], unresolved: [a]) == ([], false))
  }

  /// Stops the workflow after each of its steps in turn: whatever step it stops at, every
  /// version's changes are in the file on disk or the version is still unresolved; a rerun
  /// then finishes the job.
  @Test(arguments: [false, true]) func aKillAtEveryStepLosesNothing(unreadable: Bool) throws {
    var finished = false
    var stopAt = 0
    while !finished {
      stopAt += 1
      let (sim, _) = try folder(unreadable: unreadable)
      let month = sim.path(SimulatedFolder.month)
      let originals = sim.provider.snapshot.versions[month] ?? []
      var steps = 0
      do {
        _ = try ConflictVersions.execute(
          try plan(sim), provider: sim.provider, fileSystem: sim.fileSystem,
          backup: { _ in nil },
          checkpoint: { _ in
            steps += 1
            if steps == stopAt { throw Killed() }
          })
        finished = true
      } catch is Killed {}
      let held = try sim.hashesOnDisk(SimulatedFolder.month)
      let unresolved = Set(sim.provider.unresolved(month).map(\.value))
      for version in originals {
        let kept = unresolved.contains(version.value)
        let inFile = try SimulatedFolder.hashes(version.bytes).isSubset(of: held)
        #expect(kept || inFile, "stopped after step \(stopAt): \(version.value.path) lost")
      }
      #expect(sim.provider.snapshot.violations.isEmpty, "stopped after step \(stopAt)")
      // The rerun merges and resolves what is left.
      _ = try ConflictVersions.execute(
        try plan(sim), provider: sim.provider, fileSystem: sim.fileSystem, backup: { _ in nil })
      #expect(sim.provider.unresolved(month).count == (unreadable ? 1 : 0))
      #expect(sim.provider.snapshot.violations.isEmpty)
    }
    #expect(stopAt >= 4)
  }

  /// A failure at any write, sync or rename of the merge (as a crash there would leave it):
  /// no version is resolved unless its changes are in the file, and a rerun finishes.
  @Test(arguments: [
    FaultyFileSystem.Operation.createExclusive, .write, .sync, .close, .removeFile, .syncDirectory,
    .readFile,
  ])
  func aFailureAtAnyWriteStepResolvesNothingUnmerged(_ operation: FaultyFileSystem.Operation)
    throws
  {
    for call in 1...2 {
      let (sim, _) = try folder(unreadable: false)
      let month = sim.path(SimulatedFolder.month)
      let originals = sim.provider.snapshot.versions[month] ?? []
      let faulty = FaultyFileSystem(base: sim.provider, failing: operation, onCall: call)
      let fileSystem = CoordinatedFileSystem(base: faulty, provider: sim.provider)
      let first = ConflictVersions.plan(
        try sim.scan().documents, root: AbsolutePath(sim.root), provider: sim.provider,
        fileSystem: fileSystem)
      let failed =
        (try? ConflictVersions.execute(
          first, provider: sim.provider, fileSystem: fileSystem, backup: { _ in nil })) == nil
      // The first call of each operation is part of every merge (a read, of its plan): the
      // fault is reached, and the run stops or the document is refused.
      let refused = first.documents.first?.refusal != nil
      if call == 1 { #expect(failed || refused, "\(operation) #1 was never called") }
      let held = try sim.hashesOnDisk(SimulatedFolder.month)
      let unresolved = Set(sim.provider.unresolved(month).map(\.value))
      for version in originals {
        let inFile = try SimulatedFolder.hashes(version.bytes).isSubset(of: held)
        #expect(
          unresolved.contains(version.value) || inFile,
          "\(operation) #\(call): \(version.value.path) lost")
      }
      #expect(sim.provider.snapshot.violations.isEmpty, "\(operation) #\(call)")
      _ = try ConflictVersions.execute(
        try plan(sim), provider: sim.provider, fileSystem: sim.fileSystem, backup: { _ in nil })
      #expect(sim.provider.unresolved(month).isEmpty, "\(operation) #\(call)")
    }
  }

  @Test func hiddenVersionsAreSaid() throws {
    let (sim, _) = try folder(unreadable: false)
    sim.provider.hideVersions()
    let plan = try plan(sim)
    #expect(plan.documents.isEmpty)
    #expect(plan.hidden == [SimulatedFolder.month])
  }
}
