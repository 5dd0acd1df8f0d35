import Archive
import AutomergeCodec
import Platform
import Storage

/// Repairing damaged documents: the workflow behind `mn repair` (mn.md §14).
///
/// `plan` finds the damaged documents (by default every downloaded document that does not
/// load, as `doctor` reports them), gathers every change of each that survives anywhere, and
/// builds the repaired bytes in memory; it changes nothing. The sources, in order:
///
/// 1. the damaged file, salvaged (`Salvage`: only chunks that verify);
/// 2. its conflict copies in the folder (a damaged copy salvaged the same way);
/// 3. each `--from` folder (its file of the same name) or archive (checked against its
///    manifest; its entries for the document and its copies);
/// 4. every backup archive in the backup folder of *this* folder, newest first, read the
///    same way: one whose manifest records this folder or, across `migrate`, a folder it
///    descends from (`BackupLineage`), compared by real path; for a backup of two folders
///    (a migration's), only the entries of such a folder.
///
/// A conflict copy or backup entry that shares no change with what was salvaged from the
/// damaged file (holds none of its changes, nor a change they depend on) is not taken
/// either: what another document's changes would add to a month could never be taken out
/// again. Only `--from` takes a source regardless. What was not taken is reported
/// (`RepairSource.excluded`).
///
/// The repaired document is the union of their changes, by hash, minus the changes that
/// depend on a hash no source holds (those are reported, with the lost hashes): the bytes
/// of the largest source that loads, unchanged, followed by the change chunks of every other
/// change in dependency order, so that every Automerge opens it.
///
/// `execute` backs up every damaged file to be replaced (through the caller's closure,
/// before the first write), then writes each repaired document in place, reads it back and
/// checks that it holds every recovered change. A `kill -9` at any moment loses nothing:
/// the damaged file stays until the repaired one is renamed over it, and it is in the
/// backup. A document that loads is never rewritten. Callers hold the write lock.
public enum RepairOperation {
  /// The largest file or archive entry read, in bytes.
  public static let maxFileSize = 1 << 31

  /// A change-bearing file found for a document, before it is decoded.
  struct Input {
    var kind: RepairSource.Kind
    var location: String
    var bytes: [UInt8]
    /// Why it is not taken, decided before it is read (a backup of another folder).
    var excluded: RepairExclusion? = nil
  }

  /// Finds the damaged documents and builds their repaired bytes; changes nothing.
  ///
  /// - Parameters:
  ///   - listing: a scan of the data folder.
  ///   - documents: the documents named on the command line (`listing.select`); nil for
  ///     every document that does not load. A named document that loads is reported as such.
  ///   - origins: the `--from` folders and archives.
  ///   - backupDirectory: the backup folder, whose `minuta-backup-*` archives of this folder
  ///     (and of the folders its lineage file names) are sources; nil for none.
  ///   - fileSystem: where to read.
  ///   - progress: told `(done, total, name)` as each document is gathered.
  /// - Returns: the report of what `execute` would do.
  public static func plan(
    listing: FolderListing, documents: [DocumentEntry]? = nil, origins: [RepairOrigin] = [],
    backupDirectory: AbsolutePath?, fileSystem: any FileSystem,
    progress: (Int, Int, String) -> Void = { _, _, _ in }
  ) -> RepairReport {
    var report = RepairReport(root: listing.root, documents: [])
    var targets: [RepairDocument] = []
    for entry in documents ?? listing.documents {
      var document = RepairDocument(
        entry: entry, path: entry.name.path(root: listing.root))
      guard entry.isDownloaded else {
        if documents != nil {
          document.refusal = .notDownloaded
          report.documents.append(document)
        }
        continue
      }
      var files = [document]
      // A damaged conflict copy is repaired in place from its own chunks, so that
      // merge-conflicts can then merge it (the document itself takes its changes too).
      for copy in entry.copies where copy.placeholder == nil {
        var item = RepairDocument(entry: entry, path: copy.path)
        item.logicalName = copy.logicalName
        item.copyOf = entry.logicalName
        files.append(item)
      }
      for var file in files {
        do {
          file.info = try fileSystem.info(file.path)
          file.input = try fileSystem.readFile(file.path, limit: maxFileSize)
          _ = try AutomergeFile.decode(file.input, keepOps: false)
          file.input = []
          file.refusal = .loads
          if documents != nil && file.copyOf == nil { report.documents.append(file) }
        } catch is AutomergeDecodeError {
          targets.append(file)
        } catch let error as FileSystemError where error.meansNotDownloaded {
          // EDEADLK: dataless (mn.md §15), not damaged and not an I/O error.
          file.refusal = .notDownloaded
          report.documents.append(file)
        } catch {
          file.refusal = .cannotRead("\(error)")
          report.documents.append(file)
        }
      }
    }
    guard !targets.isEmpty else { return report }

    // Archives are read once each, for every target at once.
    var archived = [[Input]](repeating: [], count: targets.count)
    var archives: [(kind: RepairSource.Kind, path: AbsolutePath)] = []
    var directories: [AbsolutePath] = []
    for origin in origins {
      switch origin {
      case .archive(let path): archives.append((.from, path))
      case .directory(let path): directories.append(path)
      }
    }
    var lineage: Set<AbsolutePath> = []
    if let backupDirectory {
      let named = Set(archives.map { $0.path.resolvingLinks(fileSystem) })
      for name in backupArchives(in: backupDirectory, fileSystem: fileSystem) {
        let path = backupDirectory.appending(name)
        // An archive named by --from is taken as such, once.
        if !named.contains(path.resolvingLinks(fileSystem)) { archives.append((.backup, path)) }
      }
      lineage = BackupLineage.lineage(
        of: listing.root,
        links: BackupLineage.links(in: backupDirectory, fileSystem: fileSystem),
        fileSystem: fileSystem)
    }
    for (kind, path) in archives {
      let archive: ReadArchive
      do {
        archive = try ArchiveReader.verify(path: path, fileSystem: fileSystem)
      } catch {
        report.unusableArchives.append((path, error.description))
        continue
      }
      // A backup's folders by entry prefix, and whether each is of this folder's lineage.
      var ours: [String?: Bool] = [:]
      var recorded: [String?: String] = [:]
      if kind == .backup, let manifest = archive.manifest {
        for (prefix, folder) in BackupLineage.folders(ofManifestSource: manifest.source) {
          ours[prefix] = BackupLineage.contains(lineage, folder, fileSystem: fileSystem)
          recorded[prefix] = folder.string
        }
      }
      for entry in archive.entries {
        for (t, target) in targets.enumerated()
        where target.copyOf == nil && holds(entry.path, logicalName: target.logicalName) {
          var input = Input(kind: kind, location: "\(path):\(entry.path)", bytes: entry.bytes)
          if kind == .backup {
            let key = prefix(entry.path, logicalName: target.logicalName)
            if archive.manifest == nil {
              input.excluded = .noFolderRecorded
            } else if let folder = recorded[key] {
              if ours[key] != true { input.excluded = .otherFolder(folder) }
            } else {
              // Another document of that folder (`x/records/…` is not `records/…`).
              continue
            }
            if input.excluded != nil { input.bytes = [] }
          }
          archived[t].append(input)
        }
      }
    }
    for (t, var target) in targets.enumerated() {
      progress(t, targets.count, target.logicalName)
      var inputs: [Input] = []
      var unreadable: [RepairSource] = []
      func read(_ kind: RepairSource.Kind, _ path: AbsolutePath) {
        do {
          inputs.append(
            Input(
              kind: kind, location: path.string,
              bytes: try fileSystem.readFile(path, limit: maxFileSize)))
        } catch {
          var source = RepairSource(kind: kind, location: path.string)
          source.problem = "\(error)"
          unreadable.append(source)
        }
      }
      inputs.append(Input(kind: .damaged, location: target.path.string, bytes: target.input))
      target.input = []
      if target.copyOf == nil {
        for copy in target.entry.copies where copy.placeholder == nil {
          read(.copy, copy.path)
        }
        for directory in directories {
          for path in fromFiles(in: directory, logicalName: target.logicalName, fileSystem) {
            read(.from, path)
          }
        }
        // From-archives (in command-line order), then backups, as `archives` lists them.
        inputs.append(contentsOf: archived[t])
      }
      build(&target, from: inputs)
      target.sources.append(contentsOf: unreadable)
      report.documents.append(target)
    }
    report.documents.sort { $0.logicalName.precedesByBytes($1.logicalName) }
    progress(targets.count, targets.count, "")
    return report
  }

  /// The `minuta-backup-*` archives of the backup folder (only what mn wrote there, mn.md
  /// §13), newest first; none when the folder is absent or unreadable.
  static func backupArchives(in directory: AbsolutePath, fileSystem: any FileSystem)
    -> [String]
  {
    guard let names = try? fileSystem.contentsOfDirectory(directory) else { return [] }
    return names.filter { $0.hasPrefix("minuta-backup-") && $0.hasSuffix(".tar.gz") }
      .sorted { $1.precedesByBytes($0) }
  }

  /// The files of another data folder that hold the document: its file, then its conflict
  /// copies (by name).
  static func fromFiles(in root: AbsolutePath, logicalName: String, _ fileSystem: any FileSystem)
    -> [AbsolutePath]
  {
    let document = root.appending(logicalName)
    let (folder, name) = (document.parent, document.lastComponent)
    let names = (try? fileSystem.contentsOfDirectory(folder)) ?? []
    let copies = names.filter { other in
      other != name && ConflictCopy.parse(fileName: other)?.canonicalName == name
    }.sorted { $0.precedesByBytes($1) }
    return ((names.contains(name) ? [name] : []) + copies).map { folder.appending($0) }
  }

  /// Whether an archive entry is the document `logicalName` or one of its conflict copies,
  /// directly under the top folder or under one more folder (a migrate backup's).
  static func holds(_ entryPath: String, logicalName: String) -> Bool {
    guard let entry = LogicalName(entryPath) else { return false }
    let name = entry.lastComponent
    let canonical = ConflictCopy.parse(fileName: name)?.canonicalName ?? name
    let directory = entry.parent ?? .root
    let path = directory.isRoot ? canonical : directory.appending(canonical).string
    if path == logicalName { return true }
    guard path.hasSuffix("/" + logicalName) else { return false }
    return !path.dropLast(logicalName.count + 1).contains("/")
  }

  /// The folder prefix of an entry that `holds` the document: nil when it sits directly
  /// under the top folder, else the one folder above it (`source`, `destination`).
  static func prefix(_ entryPath: String, logicalName: String) -> String? {
    guard let first = entryPath.split(separator: "/", maxSplits: 1).first,
      entryPath.split(separator: "/").count > logicalName.split(separator: "/").count
    else { return nil }
    return String(first)
  }

  /// Decodes (or salvages) every input and builds the repaired document.
  static func build(_ document: inout RepairDocument, from inputs: [Input]) {
    struct SeqKey: Hashable {
      var actor: ActorId
      var seq: UInt64
    }
    var union: [Change] = []
    var index: [ChangeHash: Int] = [:]
    var bySeq: [SeqKey: ChangeHash] = [:]
    // The largest input that loads without orphans: the output starts with its bytes.
    var base: (bytes: [UInt8], hashes: Set<ChangeHash>)?
    // What was salvaged from the damaged file, and what its changes depend on: every other
    // source but --from must hold one of these (a dependency's hash ties a source to the
    // document's history as surely as a change in common).
    var salvagedHashes = Set<ChangeHash>()
    for input in inputs {
      var source = RepairSource(kind: input.kind, location: input.location)
      source.excluded = input.excluded
      guard input.excluded == nil else {
        document.sources.append(source)
        continue
      }
      let changes: [Change]
      var loaded: AutomergeFile?
      // The damaged file is known not to load: it goes straight to salvage.
      if input.kind != .damaged, let file = try? AutomergeFile.decode(input.bytes, keepOps: false) {
        changes = file.changes
        loaded = file
      } else {
        let salvaged = Salvage.salvage(input.bytes)
        changes = salvaged.changes
        source.salvaged = true
        source.skipped = salvaged.skipped
      }
      source.changes = changes.count
      if input.kind == .damaged {
        for change in changes {
          salvagedHashes.insert(change.hash)
          salvagedHashes.formUnion(change.deps)
        }
      } else if input.kind != .from
        && !changes.contains(where: { salvagedHashes.contains($0.hash) })
      {
        source.excluded = .sharesNoChange
        document.sources.append(source)
        continue
      }
      if let loaded,
        loaded.orphans.isEmpty && !changes.isEmpty
          && changes.count > (base?.hashes.count ?? 0)
      {
        base = (input.bytes, Set(changes.map(\.hash)))
      }
      for change in changes where index[change.hash] == nil {
        let key = SeqKey(actor: change.author, seq: change.seq)
        if let other = bySeq[key], other != change.hash {
          document.refusal = .collision(actor: key.actor, seq: key.seq)
        }
        bySeq[key] = change.hash
        index[change.hash] = union.count
        union.append(change)
        source.recovered += 1
      }
      document.sources.append(source)
    }

    // Kahn's algorithm over the union; a dependency outside it is never satisfied, so the
    // changes that need it (directly or not) are stranded.
    var indegree = [Int](repeating: 0, count: union.count)
    var dependents = [[Int]](repeating: [], count: union.count)
    var lost = Set<ChangeHash>()
    for (i, change) in union.enumerated() {
      for d in Set(change.deps) {
        indegree[i] += 1
        if let j = index[d] { dependents[j].append(i) } else { lost.insert(d) }
      }
    }
    var heap = HashHeap()
    for i in union.indices where indegree[i] == 0 { heap.push(union[i].hash, i) }
    var output = base?.bytes ?? []
    var written = [Bool](repeating: false, count: union.count)
    var count = 0
    while let i = heap.pop() {
      written[i] = true
      count += 1
      if base?.hashes.contains(union[i].hash) != true { output.append(contentsOf: union[i].chunk) }
      for j in dependents[i] {
        indegree[j] -= 1
        if indegree[j] == 0 { heap.push(union[j].hash, j) }
      }
    }
    var isDep = Set<ChangeHash>()
    for i in union.indices where written[i] { isDep.formUnion(union[i].deps) }
    document.recovered = count
    document.stranded = union.indices.filter { !written[$0] }.map { union[$0].hash }.sorted()
    document.lost = lost.sorted()
    document.heads = union.indices.filter { written[$0] && !isDep.contains(union[$0].hash) }
      .map { union[$0].hash }.sorted()
    if document.refusal == nil && count == 0 { document.refusal = .nothingRecovered }
    document.output = document.refusal == nil ? output : []
  }

  /// Writes every repairable document of the plan, after one backup of the damaged files.
  ///
  /// - Parameters:
  ///   - plan: from `plan`, made under the same write lock.
  ///   - fileSystem: where to read and write.
  ///   - backup: called once before the first write with the damaged files; returns the
  ///     verified archive's path. An error stops the run before any write.
  ///   - progress: told `(done, total, name)` as each document is written.
  ///   - random: the random part of temporary names.
  /// - Returns: the plan with what was written.
  /// - Throws: the backup closure's error (nothing written); `FileSystemError` when a write
  ///   fails (that file is unchanged); `RepairError.verificationFailed` when a written file
  ///   does not read back with every recovered change.
  public static func execute(
    _ plan: RepairReport, fileSystem: any FileSystem, backup: ([ExportFile]) throws -> AbsolutePath,
    progress: (Int, Int, String) -> Void = { _, _, _ in },
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> RepairReport {
    var report = plan
    let files = plan.repairable.map {
      ExportFile(relativePath: $0.logicalName, absolutePath: $0.path, kind: .document)
    }
    guard !files.isEmpty else { return report }
    report.backupPath = try backup(files)
    let total = files.count
    var done = 0
    for k in report.documents.indices where report.documents[k].refusal == nil {
      let document = report.documents[k]
      progress(done, total, document.logicalName)
      let current = try fileSystem.info(document.path)
      let unchanged: Bool
      if let current, let known = document.info {
        unchanged = current.isSameFile(as: known)
      } else {
        unchanged = current == nil && document.info == nil
      }
      guard unchanged else {
        // A sync client put another version in place: repairing it is another run's job.
        report.documents[k].refusal = .changedDuringRun
        continue
      }
      // The damaged file is the basis: a version a sync client brings meanwhile is merged in.
      let outcome = try DocumentReplace.replace(
        document.path, with: document.output,
        basis: ReplaceBasis(info: document.info, bytes: nil), fileSystem: fileSystem,
        permissions: document.info?.permissions ?? 0o644, random: random)
      report.documents[k].written = true
      let back: AutomergeFile
      do {
        back = try AutomergeFile.decode(
          try fileSystem.readFile(document.path, limit: maxFileSize), keepOps: false)
      } catch is AutomergeDecodeError {
        throw RepairError.verificationFailed(path: document.path.string)
      }
      let exact = back.changes.count == document.recovered && back.heads == document.heads
      guard exact || (outcome.arrivals.total > 0 && back.changes.count >= document.recovered) else {
        throw RepairError.verificationFailed(path: document.path.string)
      }
      report.documents[k].output = []
      done += 1
    }
    progress(total, total, "")
    return report
  }
}

/// A repair that did not read back as planned (a bug; the backup holds the damaged file).
public enum RepairError: Error, Sendable, Equatable, CustomStringConvertible {
  case verificationFailed(path: String)

  public var description: String {
    switch self {
    case .verificationFailed(let path):
      return
        "'\(path)' does not read back with every recovered change (the backup holds the damaged file)"
    }
  }
}
