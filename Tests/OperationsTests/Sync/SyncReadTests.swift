import Foundation
import Testing

@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// Reading in a simulated iCloud Drive container (mn.md §15): `EDEADLK` means "not
/// downloaded" wherever a document is read, `doctor` reads only current files and inside a
/// coordinated read, and `migrate --fetch` fetches stale inputs as `fetch` does.
@Suite struct SyncReadTests {
  /// A folder whose document and copy were scanned while downloaded, then went dataless (the
  /// provider evicted them): the scan's entries name them as downloaded files.
  func evicted(_ logical: [String]) throws -> (SimulatedFolder, FolderListing) {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    try sim.write(SimulatedFolder.copy, device: 1)
    let listing = try sim.scan()
    for name in logical { try sim.provider.makeDataless(sim.path(name)) }
    return (sim, listing)
  }

  @Test func aDocumentReadGivingEDEADLKIsNotDownloaded() throws {
    let (sim, _) = try evicted([SimulatedFolder.month])
    let result = sim.provider.withoutMaterializing {
      DocumentReplace.read(
        AbsolutePath(sim.path(SimulatedFolder.month)), fileSystem: sim.fileSystem)
    }
    guard case .failure(.notDownloaded(let error)) = result else {
      Issue.record("not reported as not downloaded: \(result)")
      return
    }
    #expect(error.meansNotDownloaded)
    #expect(sim.provider.snapshot.materialized.isEmpty)
  }

  @Test func anEvictedCopyIsNotDownloadedNotAnIOError() throws {
    let (sim, listing) = try evicted([SimulatedFolder.copy])
    let plan = try sim.provider.withoutMaterializing {
      try ConflictMerge.plan(
        listing: listing, documents: listing.documents, fileSystem: sim.fileSystem)
    }
    let copy = try #require(plan.documents.first?.copies.first)
    #expect(copy.problem == .notDownloaded)
    #expect(sim.provider.snapshot.materialized.isEmpty)
  }

  @Test func anEvictedDocumentIsRefusedAsNotCurrent() throws {
    let (sim, listing) = try evicted([SimulatedFolder.month])
    let month = sim.path(SimulatedFolder.month)
    let plan = try sim.provider.withoutMaterializing {
      try ConflictMerge.plan(
        listing: listing, documents: listing.documents, fileSystem: sim.fileSystem)
    }
    #expect(plan.documents.first?.refusal == .notCurrent(path: AbsolutePath(month), .notDownloaded))
  }

  @Test func repairCallsAnEvictedDocumentNotDownloaded() throws {
    let (sim, listing) = try evicted([SimulatedFolder.month])
    let report = sim.provider.withoutMaterializing {
      RepairOperation.plan(
        listing: listing, documents: listing.documents, backupDirectory: nil,
        fileSystem: sim.fileSystem)
    }
    let document = try #require(report.documents.first { $0.copyOf == nil })
    #expect(document.refusal == .notDownloaded)
  }

  @Test func doctorReadsCurrentFilesCoordinatedAndNeverAStaleOne() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let october = try sim.write(SimulatedFolder.october, device: 1)
    let copy = try sim.write(SimulatedFolder.copy, device: 2)
    sim.provider.makeStale(october, newer: try SimulatedFolder.device(2))
    sim.provider.makeStale(copy, newer: try SimulatedFolder.device(1))
    let report = try sim.provider.withoutMaterializing {
      try DoctorOperation.examine(
        root: AbsolutePath(sim.root), source: .flag, fileSystem: sim.fileSystem,
        syncProvider: sim.provider)
    }
    let log = sim.provider.snapshot.log
    #expect(log.contains("read \(month) [in reading \(month)]"))
    #expect(!log.contains { $0.hasPrefix("read \(october)") || $0.hasPrefix("read \(copy)") })
    #expect(report.filesDecoded == 1)
    let stale = report.findings.filter { $0.kind == .notCurrent }.map(\.subject)
    #expect(Set(stale) == [SimulatedFolder.october, SimulatedFolder.copy])
    #expect(sim.provider.snapshot.startedDownloads.isEmpty)
    #expect(sim.provider.snapshot.materialized.isEmpty)
  }

  @Test func migrateFetchBringsDownAStaleDocumentAsFetchDoes() throws {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    sim.provider.makeStale(month, newer: try SimulatedFolder.device(2))
    try sim.folder.makeDirectory("destination")
    let plan = try Migration.plan(
      source: AbsolutePath(sim.root), destination: AbsolutePath(sim.folder.absolute("destination")),
      fileSystem: sim.fileSystem, syncProvider: sim.provider)
    #expect(plan.placeholders == [AbsolutePath(month)])
    // From --fetch-from or --fetch-exec (no provider asked) a stale file cannot be fetched.
    #expect(Migration.fetchPlans(plan).isEmpty)
    #expect(Migration.unfetchable(plan) == [AbsolutePath(month)])
    #expect(Migration.fetchPlans(plan, staleFrom: sim.provider).first?.items.first?.isStale == true)
    #expect(Migration.unfetchable(plan, staleFrom: sim.provider).isEmpty)

    let clock = FakeClock()
    let provider = sim.provider
    let context = FetchContext(
      system: SystemContext(
        fileSystem: sim.fileSystem, now: clock.now, sleep: clock.sleep, syncProvider: provider),
      requestDownload: { try SyncDownload.request($0, provider: provider) })
    let (report, again) = try Migration.fetch(
      plan, source: .sync, options: FetchOptions(timeout: 10, pollInterval: 1), context: context)
    #expect(report.fetched.map(\.path.string) == [month])
    #expect(sim.provider.snapshot.startedDownloads == [month])
    #expect(again.blocker == nil, "\(String(describing: again.blocker))")
    #expect(
      try sim.hashesOnDisk(SimulatedFolder.month)
        == (try SimulatedFolder.hashes(try SimulatedFolder.device(2))))
  }
}
