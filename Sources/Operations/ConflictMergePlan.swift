import AutomergeCodec
import Platform
import Storage

/// What `ConflictMerge.plan` found, and what `ConflictMerge.execute` did (mn.md §5).
///
/// A plan and a report have the same shape: one `ConflictMergeDocument` per document that
/// has conflict copies. In a plan, `written` and `removed` are false and say nothing; in a
/// report they say what happened.
public struct ConflictMergePlan: Sendable {
  /// The data folder's root.
  public var root: AbsolutePath
  /// The documents with conflict copies, in listing order.
  public var documents: [ConflictMergeDocument]
  /// The inputs as `plan` read and decoded them, by path: `execute` decodes again only the
  /// files whose bytes changed since.
  var decoded: [AbsolutePath: ConflictMerge.Loaded] = [:]

  /// Creates a plan.
  public init(root: AbsolutePath, documents: [ConflictMergeDocument]) {
    self.root = root
    self.documents = documents
  }

  /// Whether executing the plan would remove at least one copy (then a backup comes first).
  public var removesCopies: Bool {
    documents.contains { $0.refusal == nil && $0.copies.contains { $0.problem == nil } }
  }
}

/// The outcome of `ConflictMerge.execute`.
public struct ConflictMergeReport: Sendable {
  /// The data folder's root.
  public var root: AbsolutePath
  /// Every planned document: merged, left alone, or refused.
  public var documents: [ConflictMergeDocument]
  /// The backup archive's path; nil when none was made (nothing to remove, or the caller's
  /// `backup` closure made none).
  public var backupPath: AbsolutePath?
  /// Whether the run stopped early because the caller asked it to (SIGINT); the documents
  /// not reached are still listed, untouched (`written` and `removed` false).
  public var interrupted: Bool

  /// Creates a report.
  public init(
    root: AbsolutePath, documents: [ConflictMergeDocument], backupPath: AbsolutePath? = nil,
    interrupted: Bool = false
  ) {
    self.root = root
    self.documents = documents
    self.backupPath = backupPath
    self.interrupted = interrupted
  }
}

/// One document with conflict copies: its canonical file, its copies, and the merge.
public struct ConflictMergeDocument: Sendable {
  /// The document as the folder scan found it.
  public var entry: DocumentEntry
  /// Where the merged document is written: the canonical file's absolute path.
  public var canonicalPath: AbsolutePath
  /// The number of changes in the canonical file before the merge; nil when there is no
  /// canonical file (`copies-only`) or it cannot be read.
  public var canonicalChanges: Int?
  /// The number of changes of the merged document; nil when the document is refused.
  public var mergedChanges: Int?
  /// The copies, in the scan's order.
  public var copies: [ConflictMergeCopy]
  /// Why nothing is done to this document; nil when it is merged.
  public var refusal: ConflictMergeRefusal?
  /// Report only: whether the canonical file was written (created or appended to).
  public var written: Bool
  /// Report only: whether the run got to this document (false for a document refused in
  /// the plan, and for those after an interruption).
  public var completed: Bool
  /// Report only: how the canonical file was replaced (mn.md §6), when it was written.
  public var replace: ReplaceOutcome.Summary?

  /// Creates an entry.
  public init(
    entry: DocumentEntry, canonicalPath: AbsolutePath, canonicalChanges: Int? = nil,
    mergedChanges: Int? = nil, copies: [ConflictMergeCopy] = [],
    refusal: ConflictMergeRefusal? = nil, written: Bool = false, completed: Bool = false
  ) {
    self.entry = entry
    self.canonicalPath = canonicalPath
    self.canonicalChanges = canonicalChanges
    self.mergedChanges = mergedChanges
    self.copies = copies
    self.refusal = refusal
    self.written = written
    self.completed = completed
  }

  /// The logical name (`records/2026/09.automerge`).
  public var logicalName: String { entry.logicalName }
  /// Whether there is no canonical file and the merge of the copies creates one.
  public var createsCanonical: Bool { entry.state == .copiesOnly }
  /// The number of changes the merge adds to the canonical file (all of them when it is
  /// created); 0 when the canonical file already holds every change, or when refused.
  public var added: Int {
    guard let merged = mergedChanges else { return 0 }
    return merged - (canonicalChanges ?? 0)
  }
}

/// One conflict copy of a document and what the merge makes of it.
public struct ConflictMergeCopy: Sendable {
  /// The copy as the folder scan found it (path, service, device, date).
  public var copy: ConflictCopy
  /// The number of changes in the copy; nil when it cannot be read.
  public var changes: Int?
  /// How many of its changes the canonical file does not have (for a `copies-only`
  /// document: all of them).
  public var adds: Int
  /// Why the copy is kept; nil for a copy that is merged and (unless `--keep-copies`)
  /// removed.
  public var problem: ConflictCopyProblem?
  /// Report only: whether the copy was removed.
  public var removed: Bool

  /// Creates an entry.
  public init(
    copy: ConflictCopy, changes: Int? = nil, adds: Int = 0, problem: ConflictCopyProblem? = nil,
    removed: Bool = false
  ) {
    self.copy = copy
    self.changes = changes
    self.adds = adds
    self.problem = problem
    self.removed = removed
  }
}

/// Why a document is left alone: nothing is written and none of its copies is removed.
public enum ConflictMergeRefusal: Sendable, Equatable, CustomStringConvertible {
  /// The canonical file is a placeholder: it must be downloaded first (`mn fetch`).
  case notDownloaded
  /// An input (`path`: the file or a copy) is dataless, stale or not downloaded by its sync
  /// provider (mn.md §15); only current inputs are merged.
  case notCurrent(path: AbsolutePath, SyncItemStatus)
  /// The canonical file is not a valid Automerge file.
  case canonicalNotAutomerge(AutomergeDecodeError)
  /// The canonical file cannot be read.
  case canonicalCannotRead(FileSystemError)
  /// A `copies-only` document none of whose copies can be read.
  case noReadableCopy
  /// Two different changes share `(actor, seq)`: no valid document holds both (§9 of the
  /// format notes), so the inputs are kept as they are.
  case collision(actor: ActorId, seq: UInt64)
  /// The canonical file kept changing while it was being merged (a sync client writing it);
  /// a rerun merges it.
  case changedDuringRun
  /// The canonical path is a link, a directory or another kind of file: mn never replaces
  /// it, and leaves its copies alone.
  case canonicalNotRegularFile(FileKind)

  /// Whether it is `.notCurrent` (an input that `mn fetch` brings down to current).
  public var isNotCurrent: Bool {
    if case .notCurrent = self { return true }
    return false
  }

  public var description: String {
    switch self {
    case .changedDuringRun: return "the document kept changing during the run; run again"
    case .notDownloaded: return "the document is not downloaded (see 'mn fetch')"
    case .notCurrent(let path, let status):
      let why = status == .stale ? "a newer version is not downloaded yet" : "it is not downloaded"
      return "'\(path)' is not the current version (\(why)); run 'mn fetch' first"
    case .canonicalNotAutomerge(let error):
      return "the document is not a valid Automerge file: \(error)"
    case .canonicalCannotRead(let error): return error.description
    case .noReadableCopy: return "no copy can be read"
    case .canonicalNotRegularFile(let kind):
      return "the document is \(kind.article), not a regular file; nothing of it is touched"
    case .collision(let actor, let seq):
      return "two different changes are change \(seq) of actor \(actor); nothing can hold both"
    }
  }
}

/// Why a conflict copy is kept.
public enum ConflictCopyProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// The copy is a placeholder (not downloaded).
  case notDownloaded
  /// The copy is not a valid Automerge file.
  case notAutomerge(AutomergeDecodeError)
  /// The copy cannot be read.
  case cannotRead(FileSystemError)
  /// The copy changed during the run and the merged document does not hold its new
  /// changes; a rerun merges them.
  case changedDuringRun
  /// The copy is merged but could not be removed.
  case cannotRemove(FileSystemError)

  public var description: String {
    switch self {
    case .notDownloaded: return "not downloaded"
    case .notAutomerge(let error): return "not a valid Automerge file: \(error)"
    case .cannotRead(let error): return error.description
    case .changedDuringRun: return "changed during the run; run again to merge it"
    case .cannotRemove(let error): return error.description
    }
  }
}

/// Steps of `ConflictMerge.execute`, reported as they happen (for progress and for printing
/// the backup's path before anything is removed).
public enum ConflictMergeProgress: Sendable {
  /// The backup archive is written and verified.
  case backedUp(path: AbsolutePath)
  /// Work on document `index` (0-based) of `total` begins.
  case started(index: Int, total: Int, logicalName: String)
  /// A document is done (merged, or refused).
  case finished(ConflictMergeDocument)
}

/// A merge that broke its own invariant: nothing of that document was removed.
public enum ConflictMergeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The canonical file, read back after writing, does not hold every input change (a bug
  /// or a failing disk); its copies are kept.
  case verificationFailed(path: String)

  public var description: String {
    switch self {
    case .verificationFailed(let path):
      return "'\(path)' does not hold every change after the merge; no copy was removed"
    }
  }
}
