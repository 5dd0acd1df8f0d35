/// The replace of a document that a sync client may replace too (mn.md §6): every document
/// write in the data folder goes through `Replace.replace`.
///
/// The write lock keeps the app out, but a sync client never takes it: it may rename another
/// device's version over the target at any moment, including between mn's read and mn's
/// write. So a replace is *swap, then look at what was displaced*:
///
/// 1. the content goes to a temporary `.NAME.mn-XXXXXX.nosync` beside the target, which is
///    written, fsynced and closed;
/// 2. the temporary and the target are exchanged atomically (`FileSystem.exchange`), and the
///    directory is fsynced; the displaced file now has the temporary's name;
/// 3. the displaced file is examined. If it is the basis (the file the content was computed
///    from: same device, inode, size and modification time, or the same bytes), nothing
///    arrived. If not, a version arrived meanwhile: its changes are merged into the content
///    (`ReplaceMerger.merge`) and the replace runs again from step 1;
/// 4. the displaced files are removed (the content in place holds every change of each),
///    and the target is looked at once more: if it was replaced again meanwhile, the content
///    is merged with what is there now and the replace runs again.
///
/// A new target (the basis says it was absent) is put in place by `renameExclusive`, which
/// refuses to overwrite; when something appeared there, it is merged as in step 3. Where the
/// file system refuses the exchange or the exclusive rename (`Errno.isExchangeRefusal`), the
/// target is read right before a plain rename, after the temporary is written and synced,
/// and compared with the basis; when it differs, the merge runs again (`Route.compared`).
///
/// In a sync provider's folder (`ItemReplacingFileSystem.replacementDirectory(for:)` gives a
/// directory) the temporary is written there, outside the synced tree, and step 2 is
/// `ItemReplacingFileSystem.replaceItem` instead of the exchange: the provider sees an edit
/// of the same item, and the displaced original is the backup item
/// `.NAME.mn-XXXXXX.backup` beside the target, examined in step 3 and removed in step 4
/// exactly as a swap's displaced file (`Route.replacedItem`).
///
/// A `kill -9` at any step leaves every change in the target or in a temporary: the
/// displaced files keep their temporary names until they are removed, and the next writer
/// holding the lock merges a temporary's changes into its document before removing it
/// (`TemporaryCleanup`). The target must be a regular file or absent: a link, a directory
/// or anything else is refused before anything is written, and never exchanged.
public enum Replace {
  /// The rounds one replace may take before it gives up (a target that keeps changing).
  public static let maxRounds = 8
  /// The largest version a replace reads (a target or a displaced file), in bytes.
  public static let readLimit = 1 << 30

  /// Puts `content` at `target` without losing a version that arrived since `basis` was read.
  ///
  /// - Parameters:
  ///   - target: The target; its directory must exist.
  ///   - content: The new content, computed from `basis` (it holds every change of it).
  ///   - basis: The target as it was read when `content` was computed.
  ///   - merger: How versions are merged and compared (the document layer's).
  ///   - fileSystem: Where to write.
  ///   - permissions: The mode of a new target; an existing target's mode is kept.
  ///   - random: The random part of temporary names.
  /// - Returns: What the target holds now, and the way it was put there.
  /// - Throws: `ReplaceError.notRegularFile` (nothing written), `ReplaceError.keepsChanging`
  ///   and `ReplaceError.arrivalNotMergeable` (the target holds a superset of the basis or
  ///   is unchanged; displaced files stay as temporaries), or `FileSystemError` (the target
  ///   is unchanged or holds a merge; no temporary of this round remains).
  public static func replace(
    _ target: AbsolutePath, with content: [UInt8], basis: ReplaceBasis, merger: ReplaceMerger,
    fileSystem: any FileSystem, permissions: FilePermissions = 0o644,
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> ReplaceOutcome {
    var state = Round(
      path: target, content: content, basis: basis, merger: merger, fileSystem: fileSystem)
    let present = try state.regularFileInfo()
    let mode = present?.permissions ?? basis.info?.permissions ?? permissions
    let replacing = fileSystem as? any ItemReplacingFileSystem
    let directory = try replacing?.replacementDirectory(for: target)
    if directory != nil { state.itemReplacer = replacing }
    defer { if let directory { try? fileSystem.removeDirectory(directory) } }
    // The temporary's place: beside the target, or in the replacement directory.
    let beside = directory.map { $0.appending(target.lastComponent) } ?? target
    for _ in 0..<maxRounds {
      let temporary = try AtomicFile.writeTemporary(
        state.content, beside: beside, permissions: mode,
        fileSystem: fileSystem, random: random)
      if let outcome = try state.put(temporary, backupToken: random) { return outcome }
    }
    throw ReplaceError.keepsChanging(path: target.string)
  }
}

/// The target as it was read when a replace's content was computed.
public struct ReplaceBasis: Sendable, Equatable {
  /// Its `lstat` information before it was read; nil when the target did not exist.
  public var info: FileInfo?
  /// Its bytes as read; nil when not kept (identity is then compared by `info` alone).
  public var bytes: [UInt8]?

  public init(info: FileInfo?, bytes: [UInt8]?) {
    self.info = info
    self.bytes = bytes
  }

  /// The target did not exist.
  public static let absent = ReplaceBasis(info: nil, bytes: nil)

  /// Whether a file found now (its information and bytes) is this basis.
  func matches(_ info: FileInfo?, _ bytes: [UInt8]?) -> Bool {
    guard let info else { return self.info == nil }
    if let known = self.info, known.isSameFile(as: info) { return true }
    if let mine = self.bytes, let bytes { return mine == bytes }
    return false
  }
}

/// How a replace merges and compares versions of a document: supplied by the layer that
/// knows their format (Operations gives Automerge's).
public struct ReplaceMerger: Sendable {
  /// `content` with every change of `arrived` added; throws when `arrived` cannot be read.
  public var merge: @Sendable (_ content: [UInt8], _ arrived: [UInt8]) throws -> [UInt8]
  /// Whether `holder` holds every change of `version`.
  public var holdsAll: @Sendable (_ holder: [UInt8], _ version: [UInt8]) -> Bool
  /// The name, beside the target, of the `attempt`-th (from 0) candidate under which an
  /// arrival that cannot be merged is kept, so that nothing of it is lost.
  public var asideName: @Sendable (_ targetName: String, _ attempt: Int) -> String

  public init(
    merge: @escaping @Sendable ([UInt8], [UInt8]) throws -> [UInt8],
    holdsAll: @escaping @Sendable ([UInt8], [UInt8]) -> Bool,
    asideName: @escaping @Sendable (String, Int) -> String
  ) {
    self.merge = merge
    self.holdsAll = holdsAll
    self.asideName = asideName
  }
}

/// What a replace did.
public struct ReplaceOutcome: Sendable, Equatable {
  /// The way a temporary was put in place.
  public enum Route: String, Sendable, Equatable {
    /// Atomic exchange with the target, then the displaced file examined.
    case exchange
    /// A new target: a rename that refuses to overwrite.
    case exclusive
    /// The file system refused both: the target compared with the basis right before a
    /// plain rename.
    case compared
    /// In a sync provider's folder: `ItemReplacingFileSystem.replaceItem`, then the backup
    /// item (the displaced original) examined.
    case replacedItem = "replaced-item"
  }

  /// How the last round put the content in place.
  public var route: Route
  /// What the target holds now.
  public var content: [UInt8]
  /// The `lstat` information of the file put in place (to notice a later replacement).
  public var placed: FileInfo
  /// How many versions arrived meanwhile and were merged in, by where they were found.
  public var arrivals: Arrivals
  /// Arrivals that could not be merged, kept beside the target under these paths.
  public var keptAside: [AbsolutePath]
  /// How many temporaries were put in place (1 when nothing arrived).
  public var rounds: Int

  /// Versions that arrived during a replace, by the step of the protocol that found them.
  public struct Arrivals: Sendable, Equatable {
    /// At the target before it was put in place: a new target's exclusive rename found a
    /// file there, or the compare before a plain rename found another file.
    public var beforePlacing = 0
    /// Displaced by the exchange (or kept as the backup item of a replace in a provider's
    /// folder): it arrived after the basis was read.
    public var displaced = 0
    /// At the target after the content was put in place (the last look).
    public var afterPlacing = 0

    public init() {}

    /// All of them.
    public var total: Int { beforePlacing + displaced + afterPlacing }
  }

  /// What a report keeps of a replace, for `-v`: the way and how many versions arrived.
  public struct Summary: Sendable, Equatable {
    public var route: Route
    public var arrivals: Arrivals
    public var keptAside: [AbsolutePath]

    public init(route: Route, arrivals: Arrivals, keptAside: [AbsolutePath]) {
      self.route = route
      self.arrivals = arrivals
      self.keptAside = keptAside
    }
  }

  /// The summary of this outcome.
  public var summary: Summary { Summary(route: route, arrivals: arrivals, keptAside: keptAside) }
}

/// Why a replace did not happen or did not finish.
public enum ReplaceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The target is a link, a directory or another kind of file: refused, nothing written.
  case notRegularFile(path: String, kind: FileKind)
  /// Versions kept arriving for `Replace.maxRounds` rounds; the target holds a superset of
  /// the basis, and displaced versions wait in temporaries for the next writer.
  case keepsChanging(path: String)
  /// On a file system that cannot exchange, the target holds a version that cannot be
  /// merged; nothing was written.
  case arrivalNotMergeable(path: String)

  public var description: String {
    switch self {
    case .notRegularFile(let path, let kind):
      "refusing to replace '\(path)': it is \(kind.article), not a regular file"
    case .keepsChanging(let path):
      "'\(path)' kept changing while it was replaced; run the command again"
    case .arrivalNotMergeable(let path):
      "'\(path)' was replaced meanwhile by a file that is not a readable document"
    }
  }
}

extension FileKind {
  /// "a symbolic link", "a directory", "a special file", "a regular file".
  public var article: String {
    switch self {
    case .regular: "a regular file"
    case .directory: "a directory"
    case .symlink: "a symbolic link"
    case .other: "a special file"
    }
  }
}

extension FileInfo {
  /// Whether two `lstat` results name the same, unchanged file: device, inode, size and
  /// modification time.
  public func isSameFile(as other: FileInfo) -> Bool {
    inode == other.inode && device == other.device && size == other.size
      && modificationSeconds == other.modificationSeconds
      && modificationNanoseconds == other.modificationNanoseconds
  }
}

/// The state of one replace between its rounds.
private struct Round {
  let path: AbsolutePath
  var content: [UInt8]
  var basis: ReplaceBasis
  let merger: ReplaceMerger
  let fileSystem: any FileSystem
  /// Displaced files (at temporary names) to remove once the target holds their changes.
  var displaced: [AbsolutePath] = []
  var arrivals = ReplaceOutcome.Arrivals()
  var keptAside: [AbsolutePath] = []
  var rounds = 0
  /// Set in a sync provider's folder: the temporaries are in its replacement directory and
  /// are put in place by `replaceItem`.
  var itemReplacer: (any ItemReplacingFileSystem)?

  init(
    path: AbsolutePath, content: [UInt8], basis: ReplaceBasis, merger: ReplaceMerger,
    fileSystem: any FileSystem
  ) {
    self.path = path
    self.content = content
    self.basis = basis
    self.merger = merger
    self.fileSystem = fileSystem
  }

  /// The target's information; nil when absent; throws when it is not a regular file.
  func regularFileInfo() throws -> FileInfo? {
    guard let info = try fileSystem.info(path) else { return nil }
    guard info.kind == .regular else {
      throw ReplaceError.notRegularFile(path: path.string, kind: info.kind)
    }
    return info
  }

  /// Puts one written temporary in place; the outcome when done, nil for another round.
  /// `backupToken` gives the random part of a backup item's name.
  mutating func put(_ temporary: AtomicFile.Temporary, backupToken: () -> String) throws
    -> ReplaceOutcome?
  {
    rounds += 1
    let route: ReplaceOutcome.Route
    // Where the displaced file is after the exchange (the temporary's name) or the
    // provider's replace (the backup item).
    var displacedPath = temporary.path
    do {
      if basis.info == nil {
        try fileSystem.renameExclusive(temporary.path, to: path)
        route = .exclusive
      } else if let itemReplacer {
        let name = TemporaryFileName.backupName(for: path.lastComponent, token: backupToken())
        displacedPath = try itemReplacer.replaceItem(
          at: path, withItemAt: temporary.path, backupName: name)
        route = .replacedItem
      } else {
        try fileSystem.exchange(temporary.path, path)
        route = .exchange
      }
    } catch let error as FileSystemError
      where error.errno == .fileExists || error.errno == .noSuchFileOrDirectory
    {
      // Something appeared where the target was absent, or the target went away.
      try? fileSystem.removeFile(temporary.path)
      try adoptTarget()
      return nil
    } catch let error as FileSystemError
      where error.errno.isExchangeRefusal && itemReplacer == nil
    {
      return try compareAndRename(temporary)
    } catch {
      try? fileSystem.removeFile(temporary.path)
      throw error
    }
    do {
      try fileSystem.syncDirectory(path.parent)
    } catch {
      // The exchange stands; a displaced basis holds nothing the target lacks.
      if route != .exclusive, let known = basis.info,
        let displaced = try? fileSystem.info(displacedPath), known.isSameFile(as: displaced)
      {
        try? fileSystem.removeFile(displacedPath)
      }
      throw error
    }
    if route != .exclusive, try !examineDisplaced(displacedPath, placed: temporary) {
      return nil
    }
    return try settle(placed: temporary.info, route: route)
  }

  /// Takes what is at the target now as the basis and merges it into the content: a
  /// version appeared where the target was absent, or replaced it before a compared rename.
  mutating func adoptTarget() throws {
    guard let info = try regularFileInfo() else {
      basis = .absent
      return
    }
    let bytes = try fileSystem.readFile(path, limit: Replace.readLimit)
    if !basis.matches(info, bytes) {
      arrivals.beforePlacing += 1
      guard let merged = try? merger.merge(content, bytes) else {
        throw ReplaceError.arrivalNotMergeable(path: path.string)
      }
      content = merged
    }
    basis = ReplaceBasis(info: info, bytes: bytes)
  }

  /// The fallback where the file system cannot exchange: compare, then a plain rename.
  mutating func compareAndRename(_ temporary: AtomicFile.Temporary) throws -> ReplaceOutcome? {
    let now: FileInfo?
    let bytes: [UInt8]?
    do {
      now = try regularFileInfo()
      bytes = now == nil ? nil : try fileSystem.readFile(path, limit: Replace.readLimit)
    } catch {
      try? fileSystem.removeFile(temporary.path)
      throw error
    }
    guard basis.matches(now, bytes) else {
      try? fileSystem.removeFile(temporary.path)
      try adoptTarget()
      return nil
    }
    try AtomicFile.rename(temporary, over: path, fileSystem: fileSystem)
    return try settle(placed: temporary.info, route: .compared)
  }

  /// Looks at the file an exchange displaced (now at `displacedPath`, the temporary's name or
  /// the backup item); true when the content in place (`placed`) holds everything, false
  /// when another round is needed.
  mutating func examineDisplaced(
    _ displacedPath: AbsolutePath, placed temporary: AtomicFile.Temporary
  ) throws -> Bool {
    guard let info = try fileSystem.info(displacedPath) else { return true }
    guard info.kind == .regular else {
      // Something that is not a file took the target's place: put it back, and refuse.
      try fileSystem.exchange(displacedPath, path)
      try? fileSystem.removeFile(displacedPath)
      throw ReplaceError.notRegularFile(path: path.string, kind: info.kind)
    }
    // The identity first: the basis may be a placeholder that must not be read (a dataless
    // file would be downloaded).
    if let known = basis.info, known.isSameFile(as: info) {
      displaced.append(displacedPath)
      return true
    }
    let bytes = try fileSystem.readFile(displacedPath, limit: Replace.readLimit)
    if basis.matches(info, bytes) {
      displaced.append(displacedPath)
      return true
    }
    arrivals.displaced += 1
    guard let merged = try? merger.merge(content, bytes) else {
      keptAside.append(try keepAside(displacedPath))
      return true
    }
    displaced.append(displacedPath)
    if merged == content { return true }
    // The content just put in place is the next round's basis. A provider's replace may
    // keep the original's inode at the target, so there its bytes tell it too.
    basis = ReplaceBasis(info: temporary.info, bytes: itemReplacer == nil ? nil : content)
    content = merged
    return false
  }

  /// Renames an arrival that cannot be merged to a free name beside the target.
  func keepAside(_ displacedPath: AbsolutePath) throws -> AbsolutePath {
    let (directory, name) = (path.parent, path.lastComponent)
    for attempt in 0..<100 {
      let aside = directory.appending(merger.asideName(name, attempt))
      do {
        try fileSystem.renameExclusive(displacedPath, to: aside)
        return aside
      } catch let error as FileSystemError where error.errno == .fileExists {
        continue
      }
    }
    throw FileSystemError("rename", displacedPath, .fileExists)
  }

  /// Removes the displaced files, then makes sure the target, looked at now, still holds
  /// everything: if it was replaced again meanwhile, the content (which holds every change
  /// of every displaced file) is merged with what is there now, for another round.
  mutating func settle(placed: FileInfo, route: ReplaceOutcome.Route) throws -> ReplaceOutcome? {
    for file in displaced { try fileSystem.removeFile(file) }
    if !displaced.isEmpty { try fileSystem.syncDirectory(path.parent) }
    displaced = []
    guard let now = try regularFileInfo() else {
      // The target went away after it was put in place: put the content back.
      basis = .absent
      return nil
    }
    var placed = placed
    if !now.isSameFile(as: placed) {
      let bytes = try fileSystem.readFile(path, limit: Replace.readLimit)
      guard merger.holdsAll(bytes, content) else {
        arrivals.afterPlacing += 1
        guard let merged = try? merger.merge(content, bytes) else {
          throw ReplaceError.arrivalNotMergeable(path: path.string)
        }
        content = merged
        basis = ReplaceBasis(info: now, bytes: bytes)
        return nil
      }
      content = bytes
      placed = now
    }
    return ReplaceOutcome(
      route: route, content: content, placed: placed, arrivals: arrivals, keptAside: keptAside,
      rounds: rounds)
  }
}
