import AutomergeCodec
import Platform

/// Which data folders a folder descends from, across `mn migrate` (mn.md §7, §14), and which
/// folder each entry of a backup was taken of: what decides whether a backup is a source for
/// `mn repair`.
///
/// The record is the file `minuta-lineage.jsonl` in the backup folder, beside the backups it
/// is about (both are local to this device, neither is synced, and only `mn` writes them).
/// `migrate` appends one line before it moves anything:
/// `{"tool": "mn", "created": "…", "source": "…", "sourceReal": "…", "destination": "…",
/// "destinationReal": "…"}`, the folders as given and with links resolved at that time (the
/// source may be gone later). The file only grows: a line is added by rewriting the file
/// atomically under the backup folder's lock (`BackupCatalog.lockFileName`) with every old
/// byte kept; `mn backups prune` never touches it, and a line that does not parse is kept
/// and ignored.
///
/// Folders are compared by real path (links resolved as far as the path exists), never by a
/// string prefix: `/home/ada/Minuta-test` is not `/home/ada/Minuta`.
public enum BackupLineage {
  /// The lineage file's name in the backup folder.
  public static let fileName = "minuta-lineage.jsonl"

  /// One migration: the destination descends from the source.
  public struct Link: Sendable, Equatable {
    public var source: AbsolutePath
    /// The source with its links resolved when the link was recorded.
    public var sourceReal: AbsolutePath
    public var destination: AbsolutePath
    /// The destination with its links resolved when the link was recorded.
    public var destinationReal: AbsolutePath

    public init(
      source: AbsolutePath, sourceReal: AbsolutePath, destination: AbsolutePath,
      destinationReal: AbsolutePath
    ) {
      self.source = source
      self.sourceReal = sourceReal
      self.destination = destination
      self.destinationReal = destinationReal
    }
  }

  /// The manifest `source` of a backup of two folders (a migration's): `SOURCE -> DESTINATION`,
  /// whose entries sit under `source/` and `destination/`.
  public static func pairSource(_ source: AbsolutePath, _ destination: AbsolutePath) -> String {
    "\(source) -> \(destination)"
  }

  /// The folders a backup's manifest `source` names, with the entry prefix of each: one
  /// folder (prefix nil: its entries sit directly under the top folder), or a migration's
  /// two (`source`, `destination`). Empty when it names no absolute folder.
  public static func folders(ofManifestSource source: String) -> [(
    prefix: String?, folder: AbsolutePath
  )] {
    guard source.hasPrefix("/") else { return [] }
    for range in source.ranges(of: " -> ") where source[range.upperBound...].hasPrefix("/") {
      return [
        ("source", AbsolutePath(String(source[..<range.lowerBound]))),
        ("destination", AbsolutePath(String(source[range.upperBound...]))),
      ]
    }
    return [(nil, AbsolutePath(source))]
  }

  /// Appends a link to the lineage file in `directory` (created with mode 0o700 when missing,
  /// the file with 0o600), under the backup folder's lock.
  ///
  /// - Parameters:
  ///   - source: the folder migrated from.
  ///   - destination: the folder migrated to.
  ///   - directory: the backup folder.
  ///   - now: seconds since the epoch (recorded as `created`).
  ///   - fileSystem: where to read and write.
  ///   - wait: how long to wait for the backup folder's lock, in seconds.
  ///   - sleep: sleeps for the given number of seconds.
  /// - Throws: `LockError` when the lock cannot be taken; `FileSystemError` when the file
  ///   cannot be read or written (it is then unchanged).
  public static func record(
    source: AbsolutePath, destination: AbsolutePath, directory: AbsolutePath, now: Int64,
    fileSystem: any FileSystem, wait: Double, sleep: (Double) -> Void
  ) throws {
    try fileSystem.makeDirectories(directory, permissions: 0o700)
    let lock = try FileLock.acquire(
      file: directory.appending(BackupCatalog.lockFileName), timeout: wait,
      fileSystem: fileSystem, sleep: sleep)
    defer { lock.release() }
    let path = directory.appending(fileName)
    var bytes =
      try fileSystem.info(path) == nil ? [] : try fileSystem.readFile(path, limit: 64 << 20)
    if let last = bytes.last, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
    let line = JSONValue.object([
      ("tool", .string("mn")), ("created", .string(UTCDateTime(secondsSinceEpoch: now).iso8601)),
      ("source", .string(source.string)),
      ("sourceReal", .string(source.resolvingLinks(fileSystem).string)),
      ("destination", .string(destination.string)),
      ("destinationReal", .string(destination.resolvingLinks(fileSystem).string)),
    ])
    bytes += Array((JSONWriter.string(line) + "\n").utf8)
    try AtomicFile.write(bytes, to: path, fileSystem: fileSystem, permissions: 0o600)
  }

  /// The links recorded in `directory`'s lineage file; none when it is absent or unreadable,
  /// and a line that does not parse is skipped.
  public static func links(in directory: AbsolutePath, fileSystem: any FileSystem) -> [Link] {
    let path = directory.appending(fileName)
    guard let bytes = try? fileSystem.readFile(path, limit: 64 << 20) else { return [] }
    func absolute(_ value: JSONValue?) -> AbsolutePath? {
      guard let text = value?.stringValue, text.hasPrefix("/") else { return nil }
      return AbsolutePath(text)
    }
    return bytes.split(separator: UInt8(ascii: "\n")).compactMap { line in
      guard let value = try? JSONParser.parse(Array(line), maxDepth: 4),
        value["tool"]?.stringValue == "mn",
        let source = absolute(value["source"]), let destination = absolute(value["destination"])
      else { return nil }
      return Link(
        source: source, sourceReal: absolute(value["sourceReal"]) ?? source,
        destination: destination,
        destinationReal: absolute(value["destinationReal"]) ?? destination)
    }
  }

  /// The real paths of `root` and of every folder it descends from through `links`
  /// (transitively: a folder migrated twice descends from both earlier ones).
  public static func lineage(of root: AbsolutePath, links: [Link], fileSystem: any FileSystem)
    -> Set<AbsolutePath>
  {
    func real(_ path: AbsolutePath) -> AbsolutePath { path.resolvingLinks(fileSystem) }
    var members: Set<AbsolutePath> = [real(root)]
    var grew = true
    while grew {
      grew = false
      for link in links
      where members.contains(real(link.destination)) || members.contains(link.destinationReal) {
        for path in [real(link.source), link.sourceReal] where members.insert(path).inserted {
          grew = true
        }
      }
    }
    return members
  }

  /// Whether a backup whose manifest `source` is `source` was taken of a folder of
  /// `lineage` (either folder of a migration's backup).
  public static func names(
    _ lineage: Set<AbsolutePath>, manifestSource source: String, fileSystem: any FileSystem
  ) -> Bool {
    folders(ofManifestSource: source).contains {
      contains(lineage, $0.folder, fileSystem: fileSystem)
    }
  }

  /// The test of `names` for the folder at `root` and what it descends from, with the
  /// lineage file of the backup folder `directory`.
  public static func ofFolder(
    _ root: AbsolutePath, in directory: AbsolutePath, fileSystem: any FileSystem
  ) -> (String) -> Bool {
    let members = lineage(
      of: root, links: links(in: directory, fileSystem: fileSystem), fileSystem: fileSystem)
    return { source in names(members, manifestSource: source, fileSystem: fileSystem) }
  }

  /// Whether `folder` (a path a backup recorded) is one of `lineage`, by real path.
  public static func contains(
    _ lineage: Set<AbsolutePath>, _ folder: AbsolutePath, fileSystem: any FileSystem
  ) -> Bool {
    lineage.contains(folder.resolvingLinks(fileSystem))
  }
}
