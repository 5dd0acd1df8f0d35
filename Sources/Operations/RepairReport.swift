import Archive
import AutomergeCodec
import Platform
import Storage

/// Where `mn repair` looks for the changes of a damaged document besides the folder itself
/// (mn.md §14).
public enum RepairOrigin: Sendable, Equatable {
  /// Another copy of the data folder (absolute path): its file of the same logical name.
  case directory(AbsolutePath)
  /// An archive (absolute path) written by `mn export` or a backup, checked against its
  /// manifest: its entries for the document and its conflict copies.
  case archive(AbsolutePath)
}

/// One place a damaged document's changes were looked for.
public struct RepairSource: Sendable, Equatable {
  /// What kind of place it is. The raw value is the `--json` spelling.
  public enum Kind: String, Sendable, Equatable {
    /// The damaged file itself.
    case damaged
    /// A conflict copy of the document in the data folder.
    case copy
    /// A `--from` folder or archive.
    case from
    /// An archive in the backup folder.
    case backup
  }

  public var kind: Kind
  /// A file path, or `ARCHIVE:ENTRY` for an archive's entry.
  public var location: String
  /// The verified changes it holds (distinct).
  public var changes: Int = 0
  /// The changes no earlier source held (sources are taken in report order).
  public var recovered: Int = 0
  /// Whether it did not load, so that its verified chunks were salvaged.
  public var salvaged: Bool = false
  /// What salvage skipped, when `salvaged`.
  public var skipped: [SkippedRange] = []
  /// Why it could not be used at all (cannot be read); nil when it was read.
  public var problem: String?
  /// Why its changes were not taken although it holds the document; nil when they were.
  public var excluded: RepairExclusion?

  public init(kind: Kind, location: String) {
    self.kind = kind
    self.location = location
  }
}

/// Why a source that holds the document was not mixed into it (mn.md §14): changes of
/// another folder cannot be taken out of a CRDT again, so only `--from` can take them.
public enum RepairExclusion: Sendable, Equatable, CustomStringConvertible {
  /// A backup of another data folder (the folder it recorded), not in this folder's lineage.
  case otherFolder(String)
  /// A backup that records no folder (it has no manifest).
  case noFolderRecorded
  /// It holds no change that was salvaged from the damaged file, nor one that a salvaged
  /// change depends on.
  case sharesNoChange

  /// The `--json` spelling.
  public var code: String {
    switch self {
    case .otherFolder: return "other-folder"
    case .noFolderRecorded: return "no-folder-recorded"
    case .sharesNoChange: return "shares-no-change"
    }
  }

  public var description: String {
    switch self {
    case .otherFolder(let folder): return "a backup of another data folder, '\(folder)'"
    case .noFolderRecorded: return "the backup records no data folder"
    case .sharesNoChange:
      return "it shares no change with what was salvaged from the damaged file"
    }
  }
}

/// Why a document was not repaired.
public enum RepairRefusal: Sendable, Equatable, CustomStringConvertible {
  /// It loads: `repair` never rewrites a document that loads.
  case loads
  /// It is not downloaded (a placeholder): `mn fetch` first.
  case notDownloaded
  /// The damaged file cannot be read.
  case cannotRead(String)
  /// No source holds a single change that can be written.
  case nothingRecovered
  /// Two different changes share an actor and sequence number: no Automerge would load the
  /// union.
  case collision(actor: ActorId, seq: UInt64)
  /// The file kept changing while it was being repaired.
  case changedDuringRun

  public var description: String {
    switch self {
    case .loads: return "it loads; not rewritten"
    case .notDownloaded: return "not downloaded (run mn fetch first)"
    case .cannotRead(let why): return "cannot read it: \(why)"
    case .nothingRecovered: return "no change could be recovered from any source"
    case .collision(let actor, let seq):
      return "two different changes are change \(seq) of actor \(actor)"
    case .changedDuringRun: return "the file kept changing during the repair"
    }
  }
}

/// What `repair` found, and did, for one damaged document.
public struct RepairDocument: Sendable {
  public var logicalName: String
  /// For a damaged conflict copy, its document's logical name (the copy is rebuilt from its
  /// own chunks only); nil for the document itself.
  public var copyOf: String?
  /// The damaged file's absolute path.
  public var path: AbsolutePath
  /// Every source looked at, in the order their changes were taken.
  public var sources: [RepairSource] = []
  /// The changes of the repaired document.
  public var recovered: Int = 0
  /// Recovered changes left out because a change they depend on is lost.
  public var stranded: [ChangeHash] = []
  /// Hashes that recovered changes depend on and that no source holds, sorted.
  public var lost: [ChangeHash] = []
  /// The heads of the repaired document, sorted.
  public var heads: [ChangeHash] = []
  /// Why it was not (or would not be) repaired; nil when it was (or would be).
  public var refusal: RepairRefusal?
  /// Whether the repaired document was written.
  public var written = false

  /// The damaged file's bytes as read, until salvaged.
  var input: [UInt8] = []
  /// The repaired document's bytes (plan), until written.
  var output: [UInt8] = []
  /// The damaged file as read (`lstat`), to notice a replacement before writing.
  var info: FileInfo?
  /// The document's entry in the listing.
  var entry: DocumentEntry

  init(entry: DocumentEntry, path: AbsolutePath) {
    self.entry = entry
    self.logicalName = entry.logicalName
    self.path = path
  }

  /// Whether something is known to be lost (a dependency no source holds).
  public var losesSomething: Bool { !lost.isEmpty || !stranded.isEmpty }

  /// The sources that hold the document but were not taken (`RepairSource.excluded`).
  public var excludedSources: [RepairSource] { sources.filter { $0.excluded != nil } }
}

/// What `RepairOperation.plan` found and `RepairOperation.execute` did.
public struct RepairReport: Sendable {
  /// The data folder.
  public var root: AbsolutePath
  /// The damaged documents (and those named that load), in listing order.
  public var documents: [RepairDocument]
  /// Archives that could not be used (path and why), each looked at once for all documents.
  public var unusableArchives: [(path: AbsolutePath, problem: String)] = []
  /// The backup written before the first write; nil when nothing was written.
  public var backupPath: AbsolutePath?

  public init(root: AbsolutePath, documents: [RepairDocument]) {
    self.root = root
    self.documents = documents
  }

  /// The documents that would be (or were) written.
  public var repairable: [RepairDocument] { documents.filter { $0.refusal == nil } }
}
