import AutomergeCodec
import Foundation
import Platform
import Storage
import Testing

/// A simulated File Provider folder (mn.md §15) for testing the portable decisions on Linux:
/// a `FileSystem` over a real scratch folder and the `SyncProvider` of that folder, sharing
/// one state.
///
/// It models what macOS does:
/// - dataless files and directories (`SF_DATALESS` in the flags `info` gives);
/// - a read of a dataless file fails with `EDEADLK` while materialization is off (for the
///   process, `turnOffMaterializationForProcess()`, as mn does at start on macOS; or on the
///   thread, `withoutMaterializing`); with neither it downloads the file (recorded in
///   `materialized`) and fails the running test: mn never reads without the policy;
/// - `replaceItemAt`'s semantics (`replaceItem`): the new item in place, the original kept
///   as the backup item beside it; temporaries in a replacement directory outside the
///   folder. Any `.nosync` name other than the write lock that appears inside the folder is
///   a violation, and `beforeStep` lets a test look at the folder at each step;
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
    /// `setiopolicy_np(…, IOPOL_SCOPE_PROCESS, …_OFF)` was called.
    var processMaterializationOff = false
    /// What `replaceItem` did: target and backup item, in order.
    var itemReplacements: [(target: String, backup: String)] = []
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
  /// Called before each step that changes the folder (`createExclusive`, `rename`,
  /// `exchange`, `renameExclusive`, `replaceItem`, `removeFile`), with its name and path.
  var beforeStep: (@Sendable (_ step: String, _ path: String) -> Void)?
  /// Where `replacementDirectory` makes its directories (outside `root`).
  var replacementStore: String { versionStore + "/replacements" }

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
    let bytes = try cloud ?? base.readFile(AbsolutePath(path), limit: 1 << 30)
    locked {
      $0.dataless.insert(path)
      $0.cloud[path] = bytes
      $0.status[path] = .notDownloaded
    }
  }

  /// What mn does at start on macOS: materialization off for the whole process.
  func turnOffMaterializationForProcess() { locked { $0.processMaterializationOff = true } }

  /// Makes a directory dataless (it is never listed without materializing it).
  func makeDatalessDirectory(_ path: String) { locked { _ = $0.dataless.insert(path) } }

  /// Makes the file at `path` stale: what is on disk is old, `newer` is in the cloud.
  func makeStale(_ path: String, newer: [UInt8]) {
    locked {
      $0.cloud[path] = newer
      $0.status[path] = .stale
    }
  }

  /// A download the system made on its own (another app opened the file): its cloud bytes
  /// on disk, no longer dataless, current.
  func finishDownload(_ path: String) { complete(path) }

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
      documentPath: AbsolutePath(path), path: AbsolutePath(file), device: device,
      modificationSeconds: seconds)
    locked {
      $0.versions[path, default: []].append(Version(value: value, bytes: bytes, readable: readable))
    }
    return value
  }

  func hideVersions() { locked { $0.versionsHidden = true } }

  /// Makes the system stop giving `version`'s URL, as when another device resolves it.
  func loseURL(of version: SyncVersion) {
    locked { state in
      let path = version.documentPath.string
      for k in (state.versions[path] ?? []).indices where state.versions[path]?[k].value == version
      {
        state.versions[path]?[k].urlGone = true
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

  private var materializationIsOff: Bool {
    locked { $0.processMaterializationOff || $0.materializationOff > 0 }
  }

  /// Before a step that changes the folder: the test's hook, then a look that no `.nosync`
  /// name but the write lock is inside the folder after it (`path` is where the step
  /// creates or renames to).
  private func step(_ name: String, _ path: AbsolutePath) {
    beforeStep?(name, path.string)
    let file = path.lastComponent
    if folderKind(of: path) != .plain, file.hasSuffix(".nosync"),
      file != ".minuta.writelock.nosync"
    {
      locked { $0.violations.append("\(name) made the excluded name \(path) inside the folder") }
    }
  }

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

  func info(_ path: AbsolutePath) throws -> FileInfo? {
    tick(path.string)
    guard var info = try base.info(path) else { return nil }
    if isDataless(path.string) { info.flags |= DatalessFiles.flag }
    return info
  }

  func infoFollowingLinks(_ path: AbsolutePath) throws -> FileInfo? {
    guard var info = try base.infoFollowingLinks(path) else { return nil }
    if isDataless(path.string) { info.flags |= DatalessFiles.flag }
    return info
  }

  /// The portable forms of the other listing calls build on this one, so that every entry
  /// gets its information from `info` (with the dataless flag).
  func contentsOfDirectory(_ path: AbsolutePath) throws -> [String] {
    locked { $0.listed.append(path.string) }
    if isDataless(path.string) {
      if materializationIsOff { throw FileSystemError("open directory", path, .deadlock) }
      locked {
        $0.materialized.append(path.string)
        $0.dataless.remove(path.string)
      }
    }
    return try base.contentsOfDirectory(path)
  }

  func readFile(_ path: AbsolutePath, limit: Int) throws -> [UInt8] {
    if isDataless(path.string) {
      if materializationIsOff {
        record("read \(path): EDEADLK")
        throw FileSystemError("read", path, .deadlock)
      }
      Issue.record(
        """
        read the dataless file \(path) without the materialization policy: on macOS it \
        would download, maybe inside mn's own coordinated write
        """)
      locked { $0.materialized.append(path.string) }
      complete(path.string)
    }
    record("read \(path)")
    return try base.readFile(path, limit: limit)
  }

  func makeDirectory(_ path: AbsolutePath, permissions: FilePermissions) throws {
    try base.makeDirectory(path, permissions: permissions)
  }
  func createExclusive(_ path: AbsolutePath, permissions: FilePermissions) throws
    -> FileDescriptor
  {
    step("create", path)
    return try base.createExclusive(path, permissions: permissions)
  }
  func openForReading(_ path: AbsolutePath) throws -> FileDescriptor {
    try base.openForReading(path)
  }
  func openForLocking(_ path: AbsolutePath) throws -> FileDescriptor {
    try base.openForLocking(path)
  }
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: AbsolutePath) throws {
    try base.write(fd, bytes, path: path)
  }
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: AbsolutePath)
    throws -> Int
  {
    try base.read(fd, into: buffer, path: path)
  }
  func sync(_ fd: FileDescriptor, path: AbsolutePath) throws {
    try base.sync(fd, path: path)
    record("sync \(path)")
  }
  func close(_ fd: FileDescriptor, path: AbsolutePath) throws { try base.close(fd, path: path) }
  func syncDirectory(_ path: AbsolutePath) throws {
    try base.syncDirectory(path)
    record("syncDirectory \(path)")
  }
  func rename(_ from: AbsolutePath, to: AbsolutePath) throws {
    step("rename", to)
    try base.rename(from, to: to)
    record("rename \(to)")
  }
  func exchange(_ a: AbsolutePath, _ b: AbsolutePath) throws {
    step("exchange", b)
    step("exchange", a)
    try base.exchange(a, b)
    record("exchange \(b)")
  }
  func renameExclusive(_ from: AbsolutePath, to: AbsolutePath) throws {
    step("rename", to)
    try base.renameExclusive(from, to: to)
    record("rename \(to)")
  }
  func removeFile(_ path: AbsolutePath) throws {
    step("remove", path)
    if isDataless(path.string) {
      locked { $0.violations.append("removed the dataless file \(path)") }
    }
    try base.removeFile(path)
    record("remove \(path)")
  }
  func removeDirectory(_ path: AbsolutePath) throws { try base.removeDirectory(path) }
  func setPermissions(_ path: AbsolutePath, _ permissions: FilePermissions) throws {
    try base.setPermissions(path, permissions)
  }
  func tryLock(_ fd: FileDescriptor, path: AbsolutePath) throws -> Bool {
    try base.tryLock(fd, path: path)
  }
  func unlock(_ fd: FileDescriptor, path: AbsolutePath) throws { try base.unlock(fd, path: path) }
  func readLink(_ path: AbsolutePath) throws -> String { try base.readLink(path) }
  func realPath(_ path: AbsolutePath) throws -> AbsolutePath { try base.realPath(path) }

  // MARK: SyncProvider

  func folderKind(of path: AbsolutePath) -> SyncFolderKind {
    path.isInside(AbsolutePath(root)) ? kind : .plain
  }

  func status(of path: AbsolutePath) throws(SyncProviderError) -> SyncItemStatus {
    let path = path.string
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

  func startDownloading(_ path: AbsolutePath) throws(SyncProviderError) {
    let path = path.string
    locked { $0.startedDownloads.append(path) }
    if case .fail = start(path) {
      throw .failed(operation: "ask the system to download", path: path, detail: "refused")
    }
  }

  func startMaterializing(_ path: AbsolutePath) {
    locked { $0.workerReads.append(path.string) }
    _ = start(path.string)
  }

  func withoutMaterializing<T>(_ body: () throws -> T) rethrows -> T {
    locked { $0.materializationOff += 1 }
    defer { locked { $0.materializationOff -= 1 } }
    return try body()
  }

  func coordinate<T>(_ access: CoordinatedAccess, _ path: AbsolutePath, _ body: () throws -> T)
    throws -> T
  {
    locked { $0.active.append((access, path.string)) }
    defer { locked { _ = $0.active.popLast() } }
    return try body()
  }

  /// A new directory in `replacementStore`, outside the folder.
  func replacementDirectory(appropriateFor path: AbsolutePath) throws(SyncProviderError)
    -> AbsolutePath
  {
    let directory = AbsolutePath(replacementStore).appending(UUID().uuidString)
    do {
      try FileManager.default.createDirectory(
        atPath: directory.string, withIntermediateDirectories: true)
    } catch {
      throw .failed(
        operation: "find a replacement directory for", path: path.string, detail: "\(error)")
    }
    return directory
  }

  /// `replaceItemAt(_:withItemAt:backupItemName:options: .withoutDeletingBackupItem)` as
  /// Apple documents it: the new item at `target` (atomically: the target is never absent),
  /// the original kept as `backupItemName` beside it (an item of that name is replaced),
  /// `item` gone. A dataless original is a violation (mn must never displace one).
  func replaceItem(
    at target: AbsolutePath, withItemAt item: AbsolutePath, backupItemName: String
  ) throws(SyncProviderError) -> AbsolutePath {
    let backup = target.parent.appending(backupItemName)
    step("replaceItem", target)
    step("replaceItem", backup)
    if isDataless(target.string) {
      locked { $0.violations.append("replaceItem displaced the dataless file \(target)") }
    }
    if !locked({ $0.active.contains { $0.0 == .replacing && $0.1 == target.string } }) {
      locked { $0.violations.append("replaceItem of \(target) outside a coordinated write") }
    }
    do {
      try base.exchange(item, target)
      try base.rename(item, to: backup)
    } catch {
      throw .failed(operation: "replace", path: target.string, detail: "\(error)")
    }
    locked { $0.itemReplacements.append((target.string, backup.string)) }
    record("replaceItem \(target) backup \(backupItemName)")
    return backup
  }

  func moveIntoUbiquity(_ from: AbsolutePath, to: AbsolutePath) throws(SyncProviderError) {
    if locked({ $0.refuseMoves }) {
      throw .failed(operation: "move into iCloud", path: from.string, detail: "refused")
    }
    do { try base.rename(from, to: to) } catch {
      throw .failed(operation: "move into iCloud", path: from.string, detail: "\(error)")
    }
    record("setUbiquitous \(from) -> \(to)")
  }

  func conflictVersions(of path: AbsolutePath) -> [SyncVersion]? {
    locked { state in
      if state.versionsHidden { return nil }
      return (state.versions[path.string] ?? []).filter {
        !$0.resolved && !$0.removed && !$0.urlGone
      }
      .map(\.value)
    }
  }

  func readVersion(_ version: SyncVersion, limit: Int) throws(SyncProviderError) -> [UInt8] {
    let found = locked { state in
      state.versions[version.documentPath.string]?.first { $0.value == version }
    }
    guard let found, found.readable else {
      throw .failed(operation: "read version", path: version.path.string, detail: "unavailable")
    }
    record("read version \(version.path)")
    return found.bytes
  }

  func resolve(_ versions: [SyncVersion], of location: AbsolutePath, removingOthers: Bool)
    throws(SyncProviderError)
  {
    let path = location.string
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
      ((try? AutomergeFile.decode(base.readFile(location, limit: 1 << 30)))?.changes
        ?? []).map(\.hash))
    let log = snapshot.log
    // Durable: the last rename onto the file (if any) is followed by a sync of its directory.
    let directory = location.parent.string
    if let renamed = log.lastIndex(where: {
      $0.hasPrefix("rename \(path)") || $0.hasPrefix("replaceItem \(path) ")
    }),
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
