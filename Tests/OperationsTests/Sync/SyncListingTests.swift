import Foundation
import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// A data folder inside a simulated File Provider (mn.md §15): the scratch folder holds the
/// data folder at `root/` and the versions' bytes at `versions/`.
struct SimulatedFolder {
  static let month = "records/2026/09.automerge"
  static let october = "records/2026/10.automerge"
  static let copy = "records/2026/09 2.automerge"

  let folder: ScratchFolder
  let provider: SimulatedFileProvider
  /// The coordinating file system over the simulator, as the live environment has it.
  let fileSystem: CoordinatedFileSystem

  init(kind: SyncFolderKind = .ubiquityContainer) throws {
    folder = try ScratchFolder()
    try folder.makeDirectory("root")
    try folder.makeDirectory("versions")
    provider = SimulatedFileProvider(
      root: folder.absolute("root"), kind: kind, versionStore: folder.absolute("versions"))
    // As mn does at start on macOS (LiveEnvironment).
    provider.turnOffMaterializationForProcess()
    fileSystem = CoordinatedFileSystem(base: provider, provider: provider)
  }

  var root: String { folder.absolute("root") }
  func path(_ logical: String) -> String { folder.absolute("root/" + logical) }

  @discardableResult
  func write(_ logical: String, device: Int) throws -> String {
    try folder.write("root/" + logical, try Self.device(device))
  }

  static func device(_ n: Int) throws -> [UInt8] {
    try ConflictFixtures.bytes("seed-01/device-\(n)/records/2026/09.automerge")
  }

  static func hashes(_ bytes: [UInt8]) throws -> Set<ChangeHash> {
    Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
  }

  func hashesOnDisk(_ logical: String) throws -> Set<ChangeHash> {
    try Self.hashes(Array(try Data(contentsOf: URL(fileURLWithPath: path(logical)))))
  }

  func scan() throws -> FolderListing {
    try provider.withoutMaterializing {
      try FolderScan.scan(root: AbsolutePath(root), fileSystem: fileSystem)
    }
  }

  func entry(_ listing: FolderListing, _ logical: String) throws -> DocumentEntry {
    try #require(listing.documents.first { $0.logicalName == logical })
  }
}

@Suite struct SyncListingTests {
  @Test func listingNeverStartsADownload() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    try sim.write(SimulatedFolder.october, device: 1)
    try sim.write("records/2025/01.automerge", device: 2)
    try sim.provider.makeDataless(sim.path(SimulatedFolder.october))
    sim.provider.makeDatalessDirectory(sim.path("records/2025"))
    sim.provider.makeStale(sim.path(SimulatedFolder.month), newer: try SimulatedFolder.device(2))

    let listing = try sim.scan()
    let report = try sim.provider.withoutMaterializing {
      try DoctorOperation.examine(
        root: AbsolutePath(sim.root), source: .flag, fileSystem: sim.fileSystem,
        syncProvider: sim.provider)
    }

    let state = sim.provider.snapshot
    #expect(state.startedDownloads.isEmpty)
    #expect(state.workerReads.isEmpty)
    #expect(state.materialized.isEmpty)
    // The dataless directory is reported, never listed.
    #expect(!state.listed.contains(sim.path("records/2025")))
    #expect(listing.problems == [.notDownloadedDirectory("records/2025")])
    let october = try sim.entry(listing, SimulatedFolder.october)
    #expect(october.state == .placeholder)
    #expect(october.placeholder?.kind == .dataless)
    #expect(try sim.entry(listing, SimulatedFolder.month).state == .local)
    let kinds = Set(report.findings.map { "\($0.kind.rawValue) \($0.subject)" })
    #expect(kinds.contains("not-current \(SimulatedFolder.month)"))
    #expect(kinds.contains("placeholder \(SimulatedFolder.october)"))
    #expect(kinds.contains("scan-problem records/2025"))
  }

  @Test func deadlockOnReadMeansNotDownloaded() throws {
    let sim = try SimulatedFolder()
    let path = try sim.write(SimulatedFolder.month, device: 0)
    try sim.provider.makeDataless(path)
    var report = Examination()
    sim.provider.withoutMaterializing {
      DoctorOperation.check(
        AbsolutePath(path), name: SimulatedFolder.month, isCopy: false, into: &report,
        fileSystem: sim.fileSystem)
    }
    #expect(report.findings.map(\.kind) == [.placeholder])
    #expect(sim.provider.snapshot.materialized.isEmpty)
    let error = FileSystemError("read", path, .deadlock)
    #expect(error.meansNotDownloaded)
    #expect(error.description.contains("not downloaded"))
    // Outside `withoutMaterializing`, the process-wide policy makes the read fail the same way.
    #expect(throws: FileSystemError("read", path, .deadlock)) {
      try sim.fileSystem.readFile(AbsolutePath(path), limit: 1 << 20)
    }
    #expect(sim.provider.snapshot.materialized.isEmpty)
  }

  /// A process that never set the policy downloads a dataless file it reads: the simulator
  /// fails the test (mn.md §15: off for the whole process at start).
  @Test func aReadWithoutThePolicyFailsTheTest() throws {
    let folder = try ScratchFolder()
    try folder.makeDirectory("root")
    try folder.makeDirectory("versions")
    let provider = SimulatedFileProvider(
      root: folder.absolute("root"), versionStore: folder.absolute("versions"))
    let path = try folder.write("root/x.automerge", try SimulatedFolder.device(0))
    try provider.makeDataless(path)
    withKnownIssue {
      _ = try? provider.readFile(AbsolutePath(path), limit: 1 << 20)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("without the materialization policy") }
    }
    #expect(provider.snapshot.materialized == [path])
  }

  @Test func doctorReportsUnresolvedVersionsAndOnceThatVersionsAreHidden() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    try sim.write(SimulatedFolder.october, device: 0)
    try sim.provider.addVersion(
      of: sim.path(SimulatedFolder.month), bytes: try SimulatedFolder.device(1))
    let report = try DoctorOperation.examine(
      root: AbsolutePath(sim.root), source: .flag, fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(report.findings.map(\.kind) == [.unresolvedVersions])
    #expect(report.findings.first?.subject == SimulatedFolder.month)
    #expect(report.notes.isEmpty)

    sim.provider.hideVersions()
    let hidden = try DoctorOperation.examine(
      root: AbsolutePath(sim.root), source: .flag, fileSystem: sim.fileSystem,
      syncProvider: sim.provider)
    #expect(hidden.notes.count == 1)
    #expect(hidden.findings.isEmpty)
  }

  @Test func versionsAreListedAsCopies() throws {
    let sim = try SimulatedFolder()
    try sim.write(SimulatedFolder.month, device: 0)
    let version = try sim.provider.addVersion(
      of: sim.path(SimulatedFolder.month), bytes: try SimulatedFolder.device(1),
      device: "Grace's iMac", seconds: 1_788_710_400)
    let listing = try sim.scan()
    let (versions, hidden) = ConflictVersions.list(
      listing.documents, root: AbsolutePath(sim.root), provider: sim.provider)
    #expect(hidden.isEmpty)
    #expect(versions[SimulatedFolder.month] == [version])
    #expect(version.device == "Grace's iMac")
    #expect(version.date == "2026-09-06T16:00:00Z")
    #expect(SyncVersion.service == "icloud-version")
    // A plain folder has no versions to ask for.
    let plain = ConflictVersions.list(
      listing.documents, root: AbsolutePath(sim.root), provider: NoSyncProvider())
    #expect(plain.versions.isEmpty)
  }

  @Test func foldersAreToldApartByWhereTheyAre() {
    let home = AbsolutePath("/Users/ada")
    func kind(_ path: String, home: AbsolutePath? = home) -> SyncFolderKind {
      SyncFolderKind.classify(AbsolutePath(path), home: home)
    }
    #expect(
      kind("/Users/ada/Library/Mobile Documents/iCloud~tools~minuta~app/Documents/tags.automerge")
        == .ubiquityContainer)
    #expect(
      kind("/Users/ada/Library/CloudStorage/Dropbox/Minuta/x", home: AbsolutePath("/Users/ada/"))
        == .fileProvider)
    #expect(kind("/Users/ada/Documents/Minuta/x") == .plain)
    #expect(kind("/Users/adam/Library/CloudStorage/x") == .plain)
    #expect(kind("/x", home: nil) == .plain)
  }

  /// Not by a path prefix alone (mn.md §15): a root reached through a link, or through the
  /// data volume's firmlink, is the folder it leads to.
  @Test func aProviderFolderReachedThroughALinkIsOne() throws {
    let folder = try ScratchFolder()
    try folder.makeDirectory("home/Library/Mobile Documents/iCloud~tools~minuta~app/Documents")
    try FileManager.default.createSymbolicLink(
      atPath: folder.absolute("Minuta"),
      withDestinationPath: folder.absolute(
        "home/Library/Mobile Documents/iCloud~tools~minuta~app/Documents"))
    let live = LiveFileSystem()
    let kind = SyncFolderKind.classify(
      AbsolutePath(folder.absolute("Minuta/records/2026/09.automerge")),
      home: AbsolutePath(folder.absolute("home")), realPath: { try? live.realPath($0) },
      isUbiquitous: { _ in false })
    #expect(kind == .ubiquityContainer)
    #expect(
      SyncFolderKind.classify(
        AbsolutePath("/System/Volumes/Data/Users/ada/Library/CloudStorage/Dropbox/Minuta/x"),
        home: AbsolutePath("/Users/ada"), realPath: { _ in nil }, isUbiquitous: { _ in false })
        == .fileProvider)
  }

  /// iCloud's "Desktop & Documents" makes `~/Documents/Minuta` an iCloud Drive folder: the
  /// system says so of the nearest existing folder, and mn believes it.
  @Test func aFolderTheSystemCallsUbiquitousIsOne() {
    let existing = AbsolutePath("/Users/ada/Documents/Minuta")
    let home = AbsolutePath("/Users/ada")
    var asked: [AbsolutePath] = []
    let kind = SyncFolderKind.classify(
      existing.appending("records/2026/09.automerge"), home: home,
      realPath: { $0 == existing || $0 == home ? $0 : nil },
      isUbiquitous: {
        asked.append($0)
        return $0 == existing
      })
    #expect(kind == .ubiquityContainer)
    #expect(asked == [existing])
    #expect(
      SyncFolderKind.classify(
        existing.appending("x"), home: home, realPath: { $0 == existing ? $0 : nil },
        isUbiquitous: { _ in false }) == .plain)
  }
}
