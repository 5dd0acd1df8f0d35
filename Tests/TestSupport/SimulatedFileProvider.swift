import AutomergeCodec
import Foundation
import Platform
import Storage

/// A simulated File Provider folder (mn.md §15) for testing the portable decisions on Linux:
/// a `FileSystem` over a real scratch folder and the `SyncProvider` of that folder, sharing
/// one state.
///
/// It models what macOS does:
/// - dataless files and directories (`SF_DATALESS` in the flags `info` gives);
/// - a read of a dataless file fails with `EDEADLK` while materialization is off
///   (`withoutMaterializing`), and with it on downloads the file first (recorded in
///   `materialized`: a listing must never do that);
/// - a status per file (current, stale, not downloaded) that a download changes over time:
///   a download started with `startDownloading` (or `startMaterializing`) completes after a
///   number of status polls, stalls, or fails;
/// - unresolved conflict versions that can be read or not, resolved and removed as
///   `NSFileVersion` does (`removeOtherVersionsOfItem` removes every other version);
/// - a log of every write, sync, removal, coordinated access and resolution, in order, so
///   that a test sees which operation ran inside which coordination.
final class SimulatedFileProvider: FileSystem, SyncProvider, @unchecked Sendable {
  /// How a started download behaves.
  enum Download: Sendable {
    /// It completes at the given look (`info` or `status`) after it started.
    case completeAfter(polls: Int)
    /// It never completes.
    case stall
    /// The system refuses to start it.
    case fail
  }

  /// One conflict version.
  struct Version: Sendable {
    var value: SyncVersion
    var bytes: [UInt8]
    var readable: Bool
    var resolved = false
    var removed = false
    /// The system no longer gives its URL (`NSFileVersion.url` nil: resolved meanwhile on
    /// another device); the Darwin adapter then skips it, so it is not listed.
    var urlGone = false
  }

  struct State {
    var dataless: Set<String> = []
    /// What a download brings down, by path.
    var cloud: [String: [UInt8]] = [:]
    var status: [String: SyncItemStatus] = [:]
    var downloadBehaviour: [String: Download] = [:]
    /// Downloads under way and the polls each has had.
    var running: [String: Int] = [:]
    var materializationOff = 0
    var startedDownloads: [String] = []
    var workerReads: [String] = []
    var materialized: [String] = []
    var listed: [String] = []
    var active: [(CoordinatedAccess, String)] = []
    var log: [String] = []
    var versions: [String: [Version]] = [:]
    var versionsHidden = false
    /// Whether `moveIntoUbiquity` refuses.
    var refuseMoves = false
    /// Violations the simulator saw (a version resolved while its changes were not durable
    /// in the file, a version removed unmerged).
    var violations: [String] = []
  }

  let root: String
  let kind: SyncFolderKind
  let versionStore: String
  private let base = LiveFileSystem()
  private var state = State()
  private let lock = NSLock()

  /// A provider for the folder `root` (an existing directory), of `kind`; versions' bytes
  /// are kept in `versionStore` (an existing directory outside `root`).
  init(root: String, kind: SyncFolderKind = .ubiquityContainer, versionStore: String) {
    self.root = root
    self.kind = kind
    self.versionStore = versionStore
  }

  func locked<T>(_ body: (inout State) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&state)
  }

  var snapshot: State { locked { $0 } }

  // MARK: Setting up

  /// Makes the file at `path` dataless; a download brings `cloud` (default: its bytes now).
  func makeDataless(_ path: String, cloud: [UInt8]? = nil) throws {
    let bytes = try cloud ?? base.readFile(path, limit: 1 << 30)
    locked {
      $0.dataless.insert(path)
      $0.cloud[path] = bytes
      $0.status[path] = .notDownloaded
    }
  }

  /// Makes a directory dataless (it is never listed without materializing it).
  func makeDatalessDirectory(_ path: String) { locked { _ = $0.dataless.insert(path) } }

  /// Makes the file at `path` stale: what is on disk is old, `newer` is in the cloud.
  func makeStale(_ path: String, newer: [UInt8]) {
    locked {
      $0.cloud[path] = newer
      $0.status[path] = .stale
    }
  }

  func setDownload(_ path: String, _ behaviour: Download) {
    locked { $0.downloadBehaviour[path] = behaviour }
  }

  /// Adds an unresolved conflict version of the file at `path`.
  @discardableResult
  func addVersion(
    of path: String, bytes: [UInt8], readable: Bool = true, device: String? = "Ada's MacBook",
    seconds: Int64? = 1_788_700_000
  ) throws -> SyncVersion {
    let count = locked { $0.versions.values.reduce(0) { $0 + $1.count } }
    let file = versionStore + "/version-\(count + 1).automerge"
    _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    let value = SyncVersion(
      documentPath: path, path: file, device: device, modificationSeconds: seconds)
    locked {
      $0.versions[path, default: []].append(Version(value: value, bytes: bytes, readable: readable))
    }
    return value
  }

  func hideVersions() { locked { $0.versionsHidden = true } }

  /// Makes the system stop giving `version`'s URL, as when another device resolves it.
  func loseURL(of version: SyncVersion) {
    locked { state in
      for k in (state.versions[version.documentPath] ?? []).indices
      where state.versions[version.documentPath]?[k].value == version {
        state.versions[version.documentPath]?[k].urlGone = true
      }
    }
  }

  /// The versions of `path` not resolved and not removed.
  func unresolved(_ path: String) -> [Version] {
    locked { ($0.versions[path] ?? []).filter { !$0.resolved && !$0.removed } }
  }

  // MARK: Internals

  private func record(_ event: String) {
    locked { state in
      let inside = state.active.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
      state.log.append(inside.isEmpty ? event : "\(event) [in \(inside)]")
    }
  }

  private func isDataless(_ path: String) -> Bool { locked { $0.dataless.contains(path) } }

  /// Brings the file down: its cloud bytes on disk, no longer dataless, current.
  private func complete(_ path: String) {
    let bytes = locked { $0.cloud[path] }
    if let bytes { _ = FileManager.default.createFile(atPath: path, contents: Data(bytes)) }
    locked {
      $0.dataless.remove(path)
      $0.status[path] = .current
      $0.running[path] = nil
    }
  }

  private func start(_ path: String) -> Download {
    locked { state in
      let behaviour = state.downloadBehaviour[path] ?? .completeAfter(polls: 1)
      if case .fail = behaviour { return behaviour }
      state.running[path] = state.running[path] ?? 0
      return behaviour
    }
  }

  // MARK: FileSystem

  func info(_ path: String) throws -> FileInfo? {
    tick(path)
    guard var info = try base.info(path) else { return nil }
    if isDataless(path) { info.flags |= DatalessFiles.flag }
    return info
  }

  func infoFollowingLinks(_ path: String) throws -> FileInfo? {
    guard var info = try base.infoFollowingLinks(path) else { return nil }
    if isDataless(path) { info.flags |= DatalessFiles.flag }
    return info
  }

  /// The portable forms of the other listing calls build on this one, so that every entry
  /// gets its information from `info` (with the dataless flag).
  func contentsOfDirectory(_ path: String) throws -> [String] {
    locked { $0.listed.append(path) }
    if isDataless(path) {
      let off = locked { $0.materializationOff > 0 }
      if off { throw FileSystemError("open directory", path, .deadlock) }
      locked {
        $0.materialized.append(path)
        $0.dataless.remove(path)
      }
    }
    return try base.contentsOfDirectory(path)
  }

  func readFile(_ path: String, limit: Int) throws -> [UInt8] {
    if isDataless(path) {
      if locked({ $0.materializationOff > 0 }) {
        record("read \(path): EDEADLK")
        throw FileSystemError("read", path, .deadlock)
      }
      locked { $0.materialized.append(path) }
      complete(path)
    }
    record("read \(path)")
    return try base.readFile(path, limit: limit)
  }

  func makeDirectory(_ path: String, permissions: UInt32) throws {
    try base.makeDirectory(path, permissions: permissions)
  }
  func createExclusive(_ path: String, permissions: UInt32) throws -> FileDescriptor {
    try base.createExclusive(path, permissions: permissions)
  }
  func openForReading(_ path: String) throws -> FileDescriptor { try base.openForReading(path) }
  func openForLocking(_ path: String) throws -> FileDescriptor { try base.openForLocking(path) }
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    try base.write(fd, bytes, path: path)
  }
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String) throws
    -> Int
  {
    try base.read(fd, into: buffer, path: path)
  }
  func sync(_ fd: FileDescriptor, path: String) throws {
    try base.sync(fd, path: path)
    record("sync \(path)")
  }
  func close(_ fd: FileDescriptor, path: String) throws { try base.close(fd, path: path) }
  func syncDirectory(_ path: String) throws {
    try base.syncDirectory(path)
    record("syncDirectory \(path)")
  }
  func rename(_ from: String, to: String) throws {
    try base.rename(from, to: to)
    record("rename \(to)")
  }
  func exchange(_ a: String, _ b: String) throws {
    try base.exchange(a, b)
    record("exchange \(b)")
  }
  func renameExclusive(_ from: String, to: String) throws {
    try base.renameExclusive(from, to: to)
    record("rename \(to)")
  }
  func removeFile(_ path: String) throws {
    try base.removeFile(path)
    record("remove \(path)")
  }
  func removeDirectory(_ path: String) throws { try base.removeDirectory(path) }
  func setPermissions(_ path: String, _ permissions: UInt32) throws {
    try base.setPermissions(path, permissions)
  }
  func tryLock(_ fd: FileDescriptor, path: String) throws -> Bool {
    try base.tryLock(fd, path: path)
  }
  func readLink(_ path: String) throws -> String { try base.readLink(path) }
  func realPath(_ path: String) throws -> String { try base.realPath(path) }

  // MARK: SyncProvider

  func folderKind(of path: String) -> SyncFolderKind {
    path.hasPrefix(root + "/") || path == root ? kind : .plain
  }

  func status(of path: String) throws(SyncProviderError) -> SyncItemStatus {
    tick(path)
    return locked { state in
      state.status[path] ?? (state.dataless.contains(path) ? .notDownloaded : .current)
    }
  }

  /// One look at a file whose download is under way (its flags or its status): time passes
  /// for the download, which completes at the look its behaviour says.
  private func tick(_ path: String) {
    let due = locked { state -> Bool in
      guard let polls = state.running[path] else { return false }
      state.running[path] = polls + 1
      if case .completeAfter(let n) = state.downloadBehaviour[path] ?? .completeAfter(polls: 1) {
        return polls + 1 >= n
      }
      return false
    }
    if due { complete(path) }
  }

  func startDownloading(_ path: String) throws(SyncProviderError) {
    locked { $0.startedDownloads.append(path) }
    if case .fail = start(path) {
      throw .failed(operation: "ask the system to download", path: path, detail: "refused")
    }
  }

  func startMaterializing(_ path: String) {
    locked { $0.workerReads.append(path) }
    _ = start(path)
  }

  func withoutMaterializing<T>(_ body: () throws -> T) rethrows -> T {
    locked { $0.materializationOff += 1 }
    defer { locked { $0.materializationOff -= 1 } }
    return try body()
  }

  func coordinate<T>(_ access: CoordinatedAccess, _ path: String, _ body: () throws -> T) throws
    -> T
  {
    locked { $0.active.append((access, path)) }
    defer { locked { _ = $0.active.popLast() } }
    return try body()
  }

  func moveIntoUbiquity(_ from: String, to: String) throws(SyncProviderError) {
    if locked({ $0.refuseMoves }) {
      throw .failed(operation: "move into iCloud", path: from, detail: "refused")
    }
    do { try base.rename(from, to: to) } catch {
      throw .failed(operation: "move into iCloud", path: from, detail: "\(error)")
    }
    record("setUbiquitous \(from) -> \(to)")
  }

  func conflictVersions(of path: String) -> [SyncVersion]? {
    locked { state in
      if state.versionsHidden { return nil }
      return (state.versions[path] ?? []).filter { !$0.resolved && !$0.removed && !$0.urlGone }
        .map(\.value)
    }
  }

  func readVersion(_ version: SyncVersion, limit: Int) throws(SyncProviderError) -> [UInt8] {
    let found = locked { state in
      state.versions[version.documentPath]?.first { $0.value == version }
    }
    guard let found, found.readable else {
      throw .failed(operation: "read version", path: version.path, detail: "unavailable")
    }
    record("read version \(version.path)")
    return found.bytes
  }

  func resolve(_ versions: [SyncVersion], of path: String, removingOthers: Bool)
    throws(SyncProviderError)
  {
    record("resolve \(versions.count) of \(path)\(removingOthers ? " removing others" : "")")
    let gone = locked { state in
      (state.versions[path] ?? []).filter { $0.urlGone && versions.contains($0.value) }
    }
    if !gone.isEmpty {
      locked { $0.violations.append("resolved \(gone.count) version(s) without a URL") }
    }
    if !locked({ $0.active.contains { $0.0 != .reading && $0.1 == path } }) {
      locked { $0.violations.append("resolved versions of \(path) outside a coordinated write") }
    }
    let held = Set(
      ((try? AutomergeFile.decode(base.readFile(path, limit: 1 << 30)))?.changes ?? []).map(\.hash))
    let log = snapshot.log
    // Durable: the last rename onto the file (if any) is followed by a sync of its directory.
    let directory = AbsolutePath(path).parent.string
    if let renamed = log.lastIndex(where: { $0.hasPrefix("rename \(path)") }),
      !log[renamed...].contains(where: { $0.hasPrefix("syncDirectory \(directory)") })
    {
      locked { $0.violations.append("resolved before the rename of \(path) was synced") }
    }
    locked { state in
      var list = state.versions[path] ?? []
      for k in list.indices {
        let version = list[k]
        let inFile = (try? AutomergeFile.decode(version.bytes))?.changes.allSatisfy {
          held.contains($0.hash)
        }
        if versions.contains(version.value) {
          if inFile != true { state.violations.append("resolved \(version.value.path) unmerged") }
          list[k].resolved = true
        } else if removingOthers && !version.resolved && !version.removed {
          if inFile != true { state.violations.append("removed \(version.value.path) unmerged") }
        }
        if removingOthers { list[k].removed = true }
      }
      state.versions[path] = list
    }
  }
}
