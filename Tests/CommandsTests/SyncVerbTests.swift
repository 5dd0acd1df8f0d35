import Foundation
import Operations
import Platform
import Storage
import Testing

@testable import Commands

/// What `ls` and `merge-conflicts` make of a sync provider (mn.md §15), with a provider that
/// answers from tables: every path under the root is in an iCloud Drive container.
@Suite struct SyncVerbTests {
  final class TableProvider: SyncProvider, @unchecked Sendable {
    let root: AbsolutePath
    var status: [AbsolutePath: SyncItemStatus] = [:]
    var versions: [AbsolutePath: [SyncVersion]] = [:]
    /// The bytes of the versions that can be read, by their path.
    var versionBytes: [AbsolutePath: [UInt8]] = [:]
    var listingsWithoutMaterializing = 0

    init(root: String) { self.root = AbsolutePath(root) }

    func folderKind(of path: AbsolutePath) -> SyncFolderKind {
      path.logicalName(in: root).map { !$0.isRoot } == true ? .ubiquityContainer : .plain
    }
    func status(of path: AbsolutePath) throws(SyncProviderError) -> SyncItemStatus {
      status[path] ?? .current
    }
    func startDownloading(_ path: AbsolutePath) throws(SyncProviderError) {}
    func startMaterializing(_ path: AbsolutePath) {}
    func withoutMaterializing<T>(_ body: () throws -> T) rethrows -> T {
      listingsWithoutMaterializing += 1
      return try body()
    }
    func coordinate<T>(_ access: CoordinatedAccess, _ path: AbsolutePath, _ body: () throws -> T)
      throws -> T
    { try body() }
    func conflictVersions(of path: AbsolutePath) -> [SyncVersion]? { versions[path] ?? [] }
    func readVersion(_ version: SyncVersion, limit: Int) throws(SyncProviderError) -> [UInt8] {
      guard let bytes = versionBytes[version.path] else {
        throw .failed(
          operation: "read version", path: version.path.string, detail: "not in this test")
      }
      return bytes
    }
    func moveIntoUbiquity(_ from: AbsolutePath, to: AbsolutePath) throws(SyncProviderError) {}
    /// A directory beside the root, outside it.
    func replacementDirectory(appropriateFor path: AbsolutePath) throws(SyncProviderError)
      -> AbsolutePath
    {
      let directory = AbsolutePath(root.string + ".replacement-" + UUID().uuidString)
      try? FileManager.default.createDirectory(
        atPath: directory.string, withIntermediateDirectories: true)
      return directory
    }
    /// `replaceItemAt`'s effect: the new item in place, the original as the backup item.
    func replaceItem(
      at target: AbsolutePath, withItemAt item: AbsolutePath, backupItemName: String
    ) throws(SyncProviderError) -> AbsolutePath {
      let backup = target.parent.appending(backupItemName)
      do {
        try LiveFileSystem().exchange(item, target)
        try LiveFileSystem().rename(item, to: backup)
      } catch {
        throw .failed(operation: "replace", path: target.string, detail: "\(error)")
      }
      return backup
    }
    func resolve(_ versions: [SyncVersion], of path: AbsolutePath, removingOthers: Bool)
      throws(SyncProviderError)
    {
      self.versions[path]?.removeAll { versions.contains($0) || removingOthers }
    }
  }

  static let month = "records/2026/09.automerge"

  func folder() throws -> String {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mn-sync-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(
      atPath: root + "/records/2026", withIntermediateDirectories: true)
    let fixtures = TestSupport.packageRoot.appendingPathComponent(
      "Tests/Fixtures/conflicts/seed-01")
    for (device, name) in [(0, "09.automerge"), (1, "09 2.automerge")] {
      let bytes = try Data(
        contentsOf: fixtures.appendingPathComponent("device-\(device)/records/2026/09.automerge"))
      #expect(
        FileManager.default.createFile(atPath: "\(root)/records/2026/\(name)", contents: bytes))
    }
    return root
  }

  func run(_ arguments: [String], _ provider: TableProvider) -> (Int32, String, String) {
    let out = BufferSink()
    let err = BufferSink()
    let env = Environment(
      system: SystemContext(
        variables: ["HOME": provider.root.string], fileSystem: LiveFileSystem(), now: { 0 },
        syncProvider: provider),
      currentDirectory: "/", stdout: out, stderr: err)
    let status = CLI.run(["--root", provider.root.string] + arguments, env)
    return (status, out.text, err.text)
  }

  @Test func lsListsVersionsAsCopiesWithoutDownloading() throws {
    let root = try folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.removeItem(atPath: root + "/records/2026/09 2.automerge")
    let provider = TableProvider(root: root)
    let document = AbsolutePath(root).appending(Self.month)
    provider.versions[document] = [
      SyncVersion(
        documentPath: document, path: AbsolutePath("/.DocumentRevisions-V100/1"),
        device: "Ada's MacBook", modificationSeconds: 1_788_710_400)
    ]
    let (status, out, _) = run(["ls", "--json"], provider)
    #expect(status == 0)
    #expect(out.contains(#""state": "conflicted""#))
    #expect(out.contains(#""service": "icloud-version""#))
    #expect(out.contains(#""device": "Ada's MacBook""#))
    #expect(out.contains(#""date": "2026-09-06T16:00:00Z""#))
    #expect(provider.listingsWithoutMaterializing == 1)
    #expect(run(["ls", "--conflicts"], provider).1 == Self.month + "\n")
  }

  @Test func mergeConflictsRefusesAStaleCopyNamingIt() throws {
    let root = try folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let provider = TableProvider(root: root)
    let copy = root + "/records/2026/09 2.automerge"
    provider.status[AbsolutePath(copy)] = .stale
    let before = try Data(contentsOf: URL(fileURLWithPath: root + "/" + Self.month))
    let (status, _, err) = run(["merge-conflicts", "--no-backup"], provider)
    #expect(status == 69)
    #expect(err.contains("'\(copy)' is not the current version"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/" + Self.month)) == before)
    #expect(FileManager.default.fileExists(atPath: copy))

    provider.status[AbsolutePath(copy)] = .current
    let (merged, _, _) = run(["merge-conflicts", "--no-backup"], provider)
    #expect(merged == 0)
    #expect(!FileManager.default.fileExists(atPath: copy))
  }

  @Test func mergeConflictsJSONHasAVersionsSection() throws {
    let root = try folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.removeItem(atPath: root + "/records/2026/09 2.automerge")
    let provider = TableProvider(root: root)
    let document = AbsolutePath(root).appending(Self.month)
    let readable = SyncVersion(
      documentPath: document, path: AbsolutePath("/.DocumentRevisions-V100/1"),
      device: "Ada's MacBook", modificationSeconds: 1_788_710_400)
    let unreadable = SyncVersion(
      documentPath: document, path: AbsolutePath("/.DocumentRevisions-V100/2"))
    provider.versions[document] = [readable, unreadable]
    provider.versionBytes[readable.path] = Array(
      try Data(
        contentsOf: TestSupport.packageRoot.appendingPathComponent(
          "Tests/Fixtures/conflicts/seed-01/device-1/records/2026/09.automerge")))

    func versions(_ arguments: [String]) throws -> (Int32, [[String: Any]], [String: Any]) {
      let (status, out, _) = run(arguments, provider)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
      let documents = try #require(object["versions"] as? [[String: Any]])
      #expect(documents.count == 1)
      #expect(documents.first?["name"] as? String == Self.month)
      return (status, try #require(documents.first?["versions"] as? [[String: Any]]), object)
    }

    let (dryStatus, planned, dry) = try versions(["--json", "merge-conflicts", "--dry-run"])
    #expect(dryStatus == 74)
    #expect(dry["versionsHidden"] as? [String] == [])
    #expect(planned.map { $0["merged"] as? Bool } == [false, false])

    let (status, done, _) = try versions(["--json", "merge-conflicts", "--no-backup"])
    #expect(status == 74, "a version that cannot be read is an I/O problem")
    #expect(done.count == 2)
    #expect(done[0]["device"] as? String == "Ada's MacBook")
    #expect(done[0]["date"] as? String == "2026-09-06T16:00:00Z")
    #expect(done[0]["merged"] as? Bool == true)
    #expect(done[0]["resolved"] as? Bool == true)
    #expect(done[0]["problem"] is NSNull)
    #expect(done[1]["device"] is NSNull)
    #expect(done[1]["date"] is NSNull)
    #expect(done[1]["merged"] as? Bool == false)
    #expect(done[1]["resolved"] as? Bool == false)
    #expect((done[1]["problem"] as? String)?.contains("kept unresolved") == true)
    #expect(provider.versions[document] == [unreadable])
  }

  @Test func diffComparesTheDocumentWithItsICloudVersions() throws {
    let root = try folder()
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.removeItem(atPath: root + "/records/2026/09 2.automerge")
    let provider = TableProvider(root: root)
    let document = AbsolutePath(root).appending(Self.month)
    let readable = SyncVersion(
      documentPath: document, path: AbsolutePath("/.DocumentRevisions-V100/1"),
      device: "Ada's MacBook")
    provider.versions[document] = [readable]
    provider.versionBytes[readable.path] = Array(
      try Data(
        contentsOf: TestSupport.packageRoot.appendingPathComponent(
          "Tests/Fixtures/conflicts/seed-01/device-1/records/2026/09.automerge")))
    let (status, out, err) = run(["diff", Self.month], provider)
    #expect(status == 1, "\(err)")
    #expect(out.hasPrefix("diff '\(Self.month)' '\(Self.month) (version from Ada's MacBook)'\n"))
    #expect(out.contains("only in '\(Self.month) (version from Ada's MacBook)': 4 changes\n"))
    #expect(out.contains("adds 4 changes, touching 5 paths: "))
    #expect(provider.versions[document] == [readable], "diff resolves nothing")
  }
}
