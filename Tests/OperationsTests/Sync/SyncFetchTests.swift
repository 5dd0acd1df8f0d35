import Foundation
import Testing

@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// Only current inputs are merged, and `fetch` waits for the current version (mn.md §15).
@Suite struct SyncFetchTests {
  /// `fetch` with no source, as the verb sets it up, in the simulated folder.
  func fetch(_ sim: SimulatedFolder, timeout: Double = 10) throws -> (FetchReport, FakeClock, Int) {
    let listing = try sim.scan()
    var plan = FetchOperation.plan(root: AbsolutePath(sim.root), documents: listing.documents)
    plan.items += SyncReadiness.staleItems(
      listing.documents, root: AbsolutePath(sim.root), provider: sim.provider)
    let clock = FakeClock()
    var progressed = 0
    let provider = sim.provider
    let context = FetchContext(
      system: SystemContext(
        fileSystem: sim.fileSystem, now: clock.now, sleep: clock.sleep, syncProvider: provider),
      requestDownload: { try SyncDownload.request($0, provider: provider) },
      progress: { _, _, _ in progressed += 1 })
    let report = try FetchOperation.run(
      plan, source: .sync, options: FetchOptions(timeout: timeout, pollInterval: 1),
      context: context)
    return (report, clock, progressed)
  }

  @Test func aStaleInputIsNeverMerged() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    let copy = try sim.write(SimulatedFolder.copy, device: 1)
    sim.provider.makeStale(copy, newer: try SimulatedFolder.device(2))
    let before = try sim.hashesOnDisk(SimulatedFolder.month)
    let listing = try sim.scan()

    let (ready, refused) = SyncReadiness.split(
      listing.documents, root: AbsolutePath(sim.root), provider: sim.provider,
      fileSystem: sim.fileSystem)
    #expect(ready.isEmpty)
    #expect(refused.count == 1)
    #expect(refused.first?.refusal == .notCurrent(path: AbsolutePath(copy), .stale))
    #expect(refused.first?.refusal?.description.contains(copy) == true)
    // Nothing of the document was read, and merging what is ready changes nothing.
    #expect(!sim.provider.snapshot.log.contains { $0.hasPrefix("read ") })
    let plan = try ConflictMerge.plan(
      listing: listing, documents: ready, fileSystem: sim.fileSystem)
    let report = try ConflictMerge.execute(plan, fileSystem: sim.fileSystem, backup: { _ in nil })
    #expect(report.documents.isEmpty)
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == before)
    #expect(FileManager.default.fileExists(atPath: copy))

    // Once the copy is current, the document is merged.
    sim.provider.locked { $0.status[copy] = .current }
    #expect(
      SyncReadiness.split(
        listing.documents, root: AbsolutePath(sim.root), provider: sim.provider,
        fileSystem: sim.fileSystem
      ).ready.count == 1)
  }

  @Test func aDatalessOrStaleDocumentRefusesItsVersions() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(1))
    sim.provider.makeStale(month, newer: try SimulatedFolder.device(2))
    let plan = ConflictVersions.plan(
      try sim.scan().documents, root: AbsolutePath(sim.root), provider: sim.provider,
      fileSystem: sim.fileSystem)
    #expect(plan.documents.first?.refusal == .notCurrent(path: AbsolutePath(month), .stale))
    #expect(!plan.mergesVersions)
    #expect(!sim.provider.snapshot.log.contains { $0.hasPrefix("read") })
  }

  @Test func fetchPollsUntilTheDownloadIsCurrent() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let october = try sim.write(SimulatedFolder.october, device: 1)
    let newer = try SimulatedFolder.device(2)
    sim.provider.makeStale(month, newer: newer)
    sim.provider.setDownload(month, .completeAfter(polls: 6))
    try sim.provider.makeDataless(october)
    sim.provider.setDownload(october, .completeAfter(polls: 2))

    let (report, clock, progressed) = try fetch(sim)
    #expect(report.missing.isEmpty)
    #expect(report.failed.isEmpty)
    #expect(
      Set(report.fetched.map(\.logicalName)) == [SimulatedFolder.month, SimulatedFolder.october])
    #expect(report.fetched.allSatisfy { $0.action == .downloaded })
    #expect(Set(sim.provider.snapshot.startedDownloads) == [month, october])
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == (try SimulatedFolder.hashes(newer)))
    #expect(sim.provider.snapshot.dataless.isEmpty)
    #expect(clock.slept >= 2)
    #expect(progressed == 2)
  }

  @Test func aStalledDownloadIsMissingAtTheTimeout() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    sim.provider.makeStale(month, newer: try SimulatedFolder.device(2))
    sim.provider.setDownload(month, .stall)
    let (report, clock, _) = try fetch(sim, timeout: 5)
    #expect(report.fetched.isEmpty)
    #expect(report.missing.map(\.reason) == [.notDownloaded])
    #expect(clock.slept == 5)
    // The stale bytes were never taken for the current ones.
    #expect(
      try sim.hashesOnDisk(SimulatedFolder.month)
        == (try SimulatedFolder.hashes(try SimulatedFolder.device(0))))
  }

  @Test func aRefusedDownloadIsAWarningAndMissing() throws {
    let sim = try SimulatedFolder()
    let october = try sim.write(SimulatedFolder.october, device: 1)
    try sim.provider.makeDataless(october)
    sim.provider.setDownload(october, .fail)
    let (report, _, _) = try fetch(sim, timeout: 3)
    #expect(report.missing.map(\.logicalName) == [SimulatedFolder.october])
    #expect(report.warnings.count == 1)
    #expect(report.warnings.first?.contains("cannot ask the system to download") == true)
  }

  @Test func anotherFileProviderFolderIsReadOnAWorkerThread() throws {
    let sim = try SimulatedFolder(kind: .fileProvider)
    let october = try sim.write(SimulatedFolder.october, device: 1)
    try sim.provider.makeDataless(october)
    let (report, _, _) = try fetch(sim)
    #expect(report.fetched.map(\.logicalName) == [SimulatedFolder.october])
    #expect(sim.provider.snapshot.workerReads == [october])
    #expect(sim.provider.snapshot.startedDownloads.isEmpty)
  }

  /// `fetch --from DIR` onto a dataless file (mn.md §15): the source's content is not put in
  /// its place, the file is not read (that would download it), displaced or removed, and
  /// the item is missing (exit 69) with the reason, so the changes only iCloud has survive.
  @Test func aSourceNeverReplacesADatalessFile() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let cloudOnly = try SimulatedFolder.device(2)
    try sim.provider.makeDataless(month, cloud: cloudOnly)
    try sim.folder.makeDirectory("source/records/2026")
    try sim.folder.write("source/" + SimulatedFolder.month, try SimulatedFolder.device(1))
    let listing = try sim.scan()
    let plan = FetchOperation.plan(root: AbsolutePath(sim.root), documents: listing.documents)
    #expect(plan.items.map(\.path.string) == [month])
    let clock = FakeClock()
    let report = try sim.provider.withoutMaterializing {
      try FetchOperation.run(
        plan, source: .directory(sim.folder.location("source")),
        options: FetchOptions(timeout: 5, pollInterval: 1),
        context: FetchContext(
          system: SystemContext(
            fileSystem: sim.fileSystem, now: clock.now, sleep: clock.sleep,
            syncProvider: sim.provider)))
    }
    #expect(report.fetched.isEmpty)
    #expect(report.missing.map(\.reason) == [.notDownloadedInPlace])
    let state = sim.provider.snapshot
    #expect(state.dataless.contains(month))
    #expect(state.cloud[month] == cloudOnly)
    #expect(state.materialized.isEmpty)
    #expect(!state.log.contains { $0.hasPrefix("read \(month)") })
    #expect(!state.log.contains { $0.hasPrefix("exchange ") || $0.hasPrefix("rename ") })
    #expect(!state.log.contains { $0.hasPrefix("remove ") })
    // Once downloaded, the same fetch merges the source into iCloud's version.
    sim.provider.finishDownload(month)
    let merged = try FetchOperation.run(
      plan, source: .directory(sim.folder.location("source")),
      options: FetchOptions(timeout: 5, pollInterval: 1),
      context: FetchContext(
        system: SystemContext(
          fileSystem: sim.fileSystem, now: clock.now, sleep: clock.sleep,
          syncProvider: sim.provider)))
    #expect(merged.fetched.map(\.action) == [.merged])
    let onDisk = try sim.hashesOnDisk(SimulatedFolder.month)
    #expect(onDisk.isSuperset(of: try SimulatedFolder.hashes(cloudOnly)))
    #expect(onDisk.isSuperset(of: try SimulatedFolder.hashes(try SimulatedFolder.device(1))))
  }

  @Test func aPlainFolderAsksNobody() throws {
    let file = AbsolutePath("/data/x.automerge")
    #expect(throws: SyncProviderError.self) {
      try SyncDownload.request(file, provider: NoSyncProvider())
    }
    #expect(
      SyncReadiness.check(file, info: FileInfo(kind: .regular, size: 1), provider: NoSyncProvider())
        == nil)
    #expect(
      SyncReadiness.check(
        file, info: FileInfo(kind: .regular, size: 1, flags: DatalessFiles.flag),
        provider: NoSyncProvider())?.status == .notDownloaded)
  }

  @Test func mergeReadsReplacesAndRemovesInsideCoordination() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let copy = try sim.write(SimulatedFolder.copy, device: 1)
    let listing = try sim.scan()
    let plan = try ConflictMerge.plan(listing: listing, fileSystem: sim.fileSystem)
    _ = try ConflictMerge.execute(plan, fileSystem: sim.fileSystem, backup: { _ in nil })
    let log = sim.provider.snapshot.log
    #expect(log.contains("read \(month) [in reading \(month)]"))
    #expect(log.contains("read \(copy) [in reading \(copy)]"))
    #expect(
      log.contains {
        $0.hasPrefix("replaceItem \(month) ") && $0.hasSuffix("[in replacing \(month)]")
      })
    #expect(log.contains("remove \(copy) [in deleting \(copy)]"))
    // Writes of the temporary itself are not coordinated, and nothing is coordinated twice.
    #expect(log.allSatisfy { !$0.contains(", ") })
    #expect(!FileManager.default.fileExists(atPath: copy))
  }
}
