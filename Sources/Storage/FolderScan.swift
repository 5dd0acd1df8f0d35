import Platform

/// The scan of a data folder: every document with its state, placeholders and conflict
/// copies, the other files, mn's stale temporaries, and what is out of place.
///
/// The whole tree is walked (for `other` files), at most `maxDepth` directories deep.
/// Symbolic links are reported and never followed; `.nosync` files and directories are
/// skipped (local-only by convention) except mn's temporaries, which are listed. A file is
/// examined with `lstat` only, and only when its size or time is used (a conflict copy is
/// known by its name and the type its directory entry gives); the one file ever read is an
/// iCloud stub (a few hundred bytes), so a scan never triggers a download. A stub is read
/// while its directory is listed, except the stub `.NAME.icloud` of a document: that one is
/// read only when the document's file is not beside it. A stale stub is not read: its real
/// name is the one in its file name, and the size it declares is not known. On macOS the
/// caller runs the scan inside `SyncProvider.withoutMaterializing`, and a dataless directory
/// is reported (`StorageError.notDownloadedDirectory`), never entered.
///
/// Unicode: names are kept exactly as the directory returns them (bytes), and sorted by
/// those bytes. Documents and their copies are recognised on the bytes of ASCII names, so
/// NFC/NFD cannot make a document twice. Two names in one directory that are canonically
/// equivalent but differ in bytes (possible on Linux, impossible on macOS) are both listed
/// and reported as `StorageError.equivalentNames`.
public enum FolderScan {
  /// The deepest directory walked (the root is depth 0): `FolderWalk.maxDepth`, which the
  /// change notifiers keep to as well.
  public static let maxDepth = FolderWalk.maxDepth

  /// Scans the data folder at `root`.
  ///
  /// - Parameters:
  ///   - root: absolute path of the data folder (a symbolic link to it is followed).
  ///   - fileSystem: every disk access goes through it.
  ///   - readingStaleStubs: read stale iCloud stubs too, for the size they declare (`fetch`,
  ///     and `migrate` for its `--fetch`, compare it with what they bring); otherwise they
  ///     are left unread.
  /// - Returns: the listing, every array sorted by logical name.
  /// - Throws: `StorageError.noSuchFolder`, `.notADirectory`, `.cannotReadEntry` or
  ///   `.cannotReadDirectory` when the root itself cannot be listed. Anything below the root
  ///   that cannot be read is a problem in the listing instead.
  public static func scan(
    root: AbsolutePath, fileSystem: any FileSystem, readingStaleStubs: Bool = false
  ) throws(StorageError)
    -> FolderListing
  {
    let rootInfo: FileInfo?
    do {
      rootInfo = try fileSystem.infoFollowingLinks(root)
    } catch let error as FileSystemError {
      throw .cannotReadEntry(root.string, error.errno)
    } catch {
      throw .cannotReadEntry(root.string, .ioError)
    }
    guard let rootInfo else { throw .noSuchFolder(root.string) }
    guard rootInfo.kind == .directory else { throw .notADirectory(root.string) }
    var walker = Walker(root: root, fileSystem: fileSystem, putsOffStubs: !readingStaleStubs)
    try walker.walk()
    // A dataless file anywhere in the folder makes all of it a File Provider folder (mn.md
    // §15), whatever the system says of its path.
    if let coordinated = fileSystem as? CoordinatedFileSystem,
      coordinated.sawDataless(under: root)
    {
      coordinated.noteProviderFolder(root)
    }
    return walker.listing()
  }
}

/// The mutable state of one scan.
private struct Walker {
  /// The root, as given: the paths of what the scan finds are built on it.
  let root: AbsolutePath
  let fileSystem: any FileSystem
  /// The root's components, as given and with links resolved, for telling where links go.
  let rootForms: [[Substring]]
  /// Whether a document's stubs wait until its directory is listed (`readStubs`), so that
  /// stale ones are not read.
  let putsOffStubs: Bool

  /// Every document found, with what belongs to it (placeholders sorted by path, copies by
  /// logical name). A document's file, placeholders and copies are all in its own
  /// directory, so they are gathered per directory (`parts`), and each document's entry is
  /// made when its directory is done.
  var documents: [DocumentEntry] = []
  /// What belongs to each document of the directory being walked, by its index there
  /// (`DocumentFolder.documentIndex(named:)`).
  var parts: [DocumentParts] = []
  var others: [OtherFile] = []
  var temporaries: [TemporaryFile] = []
  var problems: [StorageError] = []

  /// What belongs to one document, gathered while walking.
  struct DocumentParts {
    var file: FileInfo?
    /// Each placeholder with its own information (unknown for a stale stub not read).
    var placeholders: [(Placeholder, FileInfo?)] = []
    /// The document's stub `.NAME.icloud`, put off until the directory is listed (a
    /// directory holds one file of that name at most).
    var stub: DirectoryEntry?
    var copies: [ConflictCopy] = []

    var isEmpty: Bool { file == nil && placeholders.isEmpty && stub == nil && copies.isEmpty }
  }

  init(root: AbsolutePath, fileSystem: any FileSystem, putsOffStubs: Bool) {
    self.root = root
    self.fileSystem = fileSystem
    self.putsOffStubs = putsOffStubs
    var forms = [root.components]
    if let real = try? fileSystem.realPath(root) {
      let realForm = real.components
      if realForm != forms[0] { forms.append(realForm) }
    }
    rootForms = forms
  }

  mutating func walk() throws(StorageError) {
    var pending: [(directory: LogicalName, depth: Int)] = [(.root, 0)]
    while let (directory, depth) = pending.popLast() {
      let entries: [DirectoryEntry]
      let folder = DocumentFolder(logicalPath: directory.string)
      let directoryPath = location(directory)
      do {
        entries = try list(directoryPath, folder)
      } catch {
        let errno = (error as? FileSystemError)?.errno ?? .ioError
        if directory.isRoot { throw .cannotReadDirectory(root.string, errno) }
        problems.append(.cannotReadDirectory(directory.string, errno))
        continue
      }
      checkEquivalentNames(entries, in: directory)
      parts = Array(repeating: DocumentParts(), count: folder.documentCount)
      var subdirectories = entries.compactMap { visit($0, in: directory, folder) }
      subdirectories += readStubs(in: directory, at: directoryPath, folder)
      // Walked in byte order (the last pushed is walked first): the documents then come out
      // nearly in order, and sorting them in `listing` costs about one pass.
      subdirectories.sort { $1.string.precedesByBytes($0.string) }
      for sub in subdirectories {
        if depth + 1 > FolderScan.maxDepth {
          problems.append(.tooDeep(sub.string))
        } else {
          pending.append((sub, depth + 1))
        }
      }
      for index in parts.indices where !parts[index].isEmpty {
        guard let document = folder.document(at: index) else { continue }
        // Sorted here, in place: sorting copies later would hold every copy twice.
        parts[index].placeholders.sort { $0.0.path.string.precedesByBytes($1.0.path.string) }
        parts[index].copies.sort { $0.logicalName.precedesByBytes($1.logicalName) }
        documents.append(entry(document, parts[index]))
      }
    }
  }

  /// What the scan needs to know of a regular file of a listing.
  enum Detail {
    /// Its kind (what the directory entry says): no `lstat`.
    case kind
    /// Its `lstat` information.
    case info
    /// Its information and its content, read from the open file.
    case content
  }

  /// What the scan uses of the entry `name` of `folder`, so that only the system calls it
  /// needs are made. A document's plain iCloud stub waits for `readStubs` (read only if the
  /// document's file is missing); other iCloud stubs are read while listing (their
  /// information then comes from the open file). A name that may be a conflict copy gets its
  /// kind only: a copy's size and time are not used. The rest gets `lstat`.
  func detail(of name: String, in folder: DocumentFolder) -> Detail {
    if putsOffStubs && folder.documentIndex(ofStub: name) != nil { return .kind }
    if let stub = Placeholder.parseFileName(name) {
      return stub.kind == .icloud ? .content : .info
    }
    let mayBeCopy = folder.mayHoldCopy(named: name) && folder.documentIndex(named: name) == nil
    return mayBeCopy ? .kind : .info
  }

  /// The entries of a directory with what `detail(of:in:)` asks of each regular file;
  /// directories, links and other kinds get the kind their directory entry gives. Where the
  /// entry gives no kind, or on Darwin for regular files and directories (whose flags tell a
  /// dataless one, mn.md §15), the entry is `lstat`ed. An entry whose `lstat` fails carries
  /// the error; one that vanished in between is left out.
  func list(_ directoryPath: AbsolutePath, _ folder: DocumentFolder) throws -> [DirectoryEntry] {
    let items = try fileSystem.directoryItems(directoryPath)
    let directory = try fileSystem.openDirectory(directoryPath)
    defer { fileSystem.closeDirectory(directory) }
    return items.compactMap { item in
      let wanted =
        item.kind == .regular || item.kind == nil ? detail(of: item.name, in: folder) : .info
      switch (item.kind, wanted) {
      case (.regular?, .content), (nil, .content):
        // A file that cannot be opened (replaced by a link meanwhile) is `lstat`ed instead,
        // which says what it is.
        if let read = try? fileSystem.readFile(item.name, in: directory, limit: ICloudStub.maxSize)
        {
          return read
        }
      case (.regular?, .kind) where !DatalessFiles.areDetected:
        return DirectoryEntry(name: item.name, kind: .regular)
      case (let kind?, _)
      where kind != .regular && (kind != .directory || !DatalessFiles.areDetected):
        return DirectoryEntry(name: item.name, kind: kind)
      default: break
      }
      return examine(item.name, in: directory)
    }
  }

  /// The entry `name` of `directory` with its `lstat` information, or the error; nil when it
  /// does not exist.
  func examine(_ name: String, in directory: OpenDirectory) -> DirectoryEntry? {
    do {
      guard let info = try fileSystem.info(name, in: directory) else { return nil }
      return DirectoryEntry(name: name, info: info)
    } catch {
      return DirectoryEntry(
        name: name, info: nil, error: (error as? FileSystemError)?.errno ?? .ioError)
    }
  }

  /// The stubs of the directory's documents that were put off: a document's file beside them
  /// makes them stale, and they are kept unread; otherwise they are read now. Returns what
  /// `visit` returns for them (a stub replaced by a directory meanwhile is walked).
  /// `directoryPath` is the directory's absolute path.
  mutating func readStubs(
    in directory: LogicalName, at directoryPath: AbsolutePath, _ folder: DocumentFolder
  ) -> [LogicalName] {
    var unread: [DirectoryEntry] = []
    for index in parts.indices {
      guard let entry = parts[index].stub else { continue }
      parts[index].stub = nil
      if parts[index].file == nil {
        unread.append(entry)
        continue
      }
      // `.NAME.icloud`, as `documentIndex(ofStub:)` made sure.
      let realName = NameBytes.withBytes(entry.name) {
        NameBytes.string(UnsafeBufferPointer(rebasing: $0[1..<($0.count - 7)]))
      }
      let stub = Placeholder(
        kind: .icloud, path: directoryPath.appending(entry.name),
        realName: realName)
      parts[index].placeholders.append((stub, entry.info))
    }
    guard !unread.isEmpty else { return [] }
    var entries = unread
    do {
      let opened = try fileSystem.openDirectory(directoryPath)
      defer { fileSystem.closeDirectory(opened) }
      entries = unread.compactMap { entry in
        let read = try? fileSystem.readFile(entry.name, in: opened, limit: ICloudStub.maxSize)
        return read ?? examine(entry.name, in: opened)
      }
    } catch {
      // The listed entries then go on unread: each is still a placeholder, with the reason.
      problems.append(
        .cannotReadDirectory(directory.string, (error as? FileSystemError)?.errno ?? .ioError))
    }
    return entries.compactMap { visit($0, in: directory, folder, puttingOffStubs: false) }
  }

  /// Classifies one entry of `directory` (whose documents `folder` says); returns its logical
  /// path when it is a directory to walk. Paths are built only for what is kept. A document's
  /// stub is put off (`readStubs`) unless `puttingOffStubs` is false.
  mutating func visit(
    _ entry: DirectoryEntry, in directory: LogicalName, _ folder: DocumentFolder,
    puttingOffStubs: Bool = true
  ) -> LogicalName? {
    let name = entry.name
    let temporaryTarget = TemporaryFileName.target(of: name)
    if temporaryTarget == nil && DataFolder.isNoSync(name) { return nil }
    guard let kind = entry.kind else {
      problems.append(.cannotReadEntry(directory.appending(name).string, entry.error ?? .ioError))
      return nil
    }
    switch kind {
    case .directory:
      if temporaryTarget != nil { return nil }
      if let info = entry.info, DatalessFiles.isDataless(info) {
        // Listing it would make the File Provider download it (mn.md §15).
        problems.append(.notDownloadedDirectory(directory.appending(name).string))
        return nil
      }
      if folder.documentIndex(named: name) != nil {
        problems.append(.documentIsDirectory(directory.appending(name).string))
      }
      return directory.appending(name)
    case .symlink:
      let logical = directory.appending(name)
      let target = (try? fileSystem.readLink(location(logical))) ?? ""
      problems.append(
        .symbolicLink(
          logical.string, target: target, outsideRoot: pointsOutside(target, from: directory)))
      return nil
    case .other:
      problems.append(.unsupportedFileType(directory.appending(name).string))
      return nil
    case .regular:
      if let target = temporaryTarget {
        let logical = directory.appending(name)
        guard let info = info(of: entry, in: directory) else { return nil }
        temporaries.append(
          TemporaryFile(
            logicalName: logical.string, path: location(logical),
            targetLogicalName: directory.appending(target).string,
            size: info.size, modificationSeconds: info.modificationSeconds))
      } else {
        file(entry, in: directory, folder, puttingOffStubs: puttingOffStubs)
      }
      return nil
    }
  }

  /// The `lstat` information of a regular file: from the listing, or (when it gave the kind
  /// only) asked now. Nil when the file vanished or is no longer a regular file (the next
  /// scan sees what replaced it), or could not be examined (a problem).
  mutating func info(of entry: DirectoryEntry, in directory: LogicalName) -> FileInfo? {
    if let info = entry.info { return info }
    let logical = directory.appending(entry.name)
    do {
      guard let info = try fileSystem.info(location(logical)), info.kind == .regular else {
        return nil
      }
      return info
    } catch {
      problems.append(
        .cannotReadEntry(logical.string, (error as? FileSystemError)?.errno ?? .ioError))
      return nil
    }
  }

  /// Where `logical` is on the machine.
  func location(_ logical: LogicalName) -> AbsolutePath {
    root.appending(logical)
  }

  /// Sorts a regular file into a document, a copy of one, or an other file.
  mutating func file(
    _ entry: DirectoryEntry, in directory: LogicalName, _ folder: DocumentFolder,
    puttingOffStubs: Bool
  ) {
    let name = entry.name
    if puttingOffStubs && putsOffStubs, let index = folder.documentIndex(ofStub: name) {
      parts[index].stub = entry
      return
    }
    var placeholder: Placeholder?
    if let info = entry.info, DatalessFiles.isDataless(info) {
      placeholder = Placeholder(
        kind: .dataless, path: location(directory.appending(name)), realName: name)
    } else if let parsed = Placeholder.parseFileName(name) {
      let stubPath = location(directory.appending(name))
      placeholder = Placeholder.read(path: stubPath, parsed: parsed) {
        if let content = entry.content { return .success(content) }
        if let error = entry.readError { return .failure(error) }
        // Not read while listing (it could not be opened then): read it now, to say why.
        return Placeholder.stubContent(stubPath, fileSystem)
      }
    }
    let realName = placeholder?.realName ?? name
    // A placeholder for a local-only file is as local-only as the file.
    if placeholder != nil && DataFolder.isNoSync(realName) { return }
    if let index = folder.documentIndex(named: realName) {
      guard let info = info(of: entry, in: directory) else { return }
      if let placeholder {
        parts[index].placeholders.append((placeholder, info))
      } else {
        parts[index].file = info
      }
      return
    }
    // Without a placeholder the real name is the file's own.
    let logical = directory.appending(realName)
    let filePath = placeholder?.path ?? location(logical)
    if folder.mayHoldCopy(named: realName), let copyName = ConflictCopy.parse(fileName: realName),
      let index = folder.documentIndex(named: copyName.canonicalName)
    {
      let copy = ConflictCopy(
        path: filePath, logicalName: logical.string, name: copyName, placeholder: placeholder)
      parts[index].copies.append(copy)
      return
    }
    guard let info = info(of: entry, in: directory) else { return }
    others.append(
      OtherFile(
        logicalName: logical.string, path: filePath,
        size: placeholder == nil ? info.size : placeholder?.declaredSize,
        modificationSeconds: info.modificationSeconds, placeholder: placeholder))
  }

  /// Whether a link's target leaves the data folder (lexically; links are never followed).
  func pointsOutside(_ target: String, from directory: LogicalName) -> Bool {
    if target.isEmpty { return true }
    if target.hasPrefix("/") {
      let components = AbsolutePath(target).components
      return !rootForms.contains { AbsolutePath.remainder(components, after: $0) != nil }
    }
    return directory.resolving(target) == nil
  }

  /// Reports names that are canonically equivalent but not byte-identical.
  mutating func checkEquivalentNames(_ entries: [DirectoryEntry], in directory: LogicalName) {
    var seen: [String: String] = [:]
    for entry in entries where !NameBytes.isASCII(entry.name) {
      let name = entry.name
      if let other = seen[name] {
        let pair = [other, name].sorted { $0.precedesByBytes($1) }
        problems.append(
          .equivalentNames(
            directory.appending(pair[0]).string, directory.appending(pair[1]).string))
      } else {
        seen[name] = name
      }
    }
  }

  /// The listing's entry of a document, from what was found of it.
  func entry(_ name: DocumentName, _ parts: DocumentParts) -> DocumentEntry {
    let placeholders = parts.placeholders
    let copies = parts.copies
    var entry = DocumentEntry(
      name: name, state: .local, path: name.path(root: root), size: nil,
      modificationSeconds: nil,
      placeholders: placeholders.map(\.0), copies: copies)
    if let file = parts.file {
      entry.state =
        !copies.isEmpty ? .conflicted : placeholders.isEmpty ? .local : .stalePlaceholder
      entry.size = file.size
      entry.modificationSeconds = file.modificationSeconds
      entry.modificationNanoseconds = file.modificationNanoseconds
    } else if let (placeholder, info) = placeholders.first {
      entry.state = .placeholder
      entry.path = placeholder.path
      entry.size = placeholder.declaredSize
      entry.modificationSeconds = info?.modificationSeconds
      entry.modificationNanoseconds = info?.modificationNanoseconds
    } else {
      entry.state = .copiesOnly
    }
    return entry
  }

  /// The listing, its documents sorted in place (walked in byte order, they are nearly so).
  mutating func listing() -> FolderListing {
    documents.sort { $0.name < $1.name }
    let byName = { (a: String, b: String) in a.precedesByBytes(b) }
    let byKeys = { (a: (String, String), b: (String, String)) in
      a.0 == b.0 ? byName(a.1, b.1) : byName(a.0, b.0)
    }
    return FolderListing(
      root: root, documents: documents,
      others: others.sorted {
        byKeys(($0.logicalName, $0.path.string), ($1.logicalName, $1.path.string))
      },
      temporaries: temporaries.sorted { byName($0.logicalName, $1.logicalName) },
      problems: problems.sorted {
        byKeys(($0.subject, $0.description), ($1.subject, $1.description))
      })
  }
}
