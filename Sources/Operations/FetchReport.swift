import Platform

/// A file that is now real, downloaded and verified.
public struct FetchedFile: Sendable, Equatable {
  /// How it got there.
  public enum Action: String, Sendable {
    /// The fetched content was written where only a placeholder was.
    case fetched
    /// The fetched content was merged into a file that was present.
    case merged
    /// A file was present and already held every fetched change: nothing written.
    case unchanged
    /// The sync client or the `--exec` command put it in place.
    case downloaded
    /// It was present already (a stale placeholder) and reads as Automerge.
    case verified
  }

  public var logicalName: String
  public var path: AbsolutePath
  public var action: Action
  /// Bytes of the file on disk now.
  public var size: Int64
  /// The size the placeholder declared, if any.
  public var declaredSize: Int64?
  /// Bytes that were fetched (before any merge), for the size check.
  public var fetchedSize: Int64?
  /// The stubs removed.
  public var removedPlaceholders: [String]
  /// Stubs that could not be removed, and why.
  public var keptPlaceholders: [String: String]
  /// How the file was replaced (mn.md §6), when mn wrote it.
  public var replace: ReplaceOutcome.Summary? = nil

  /// False when the placeholder declared a size and the fetched content has another.
  public var sizeMatches: Bool {
    guard let declaredSize, let fetchedSize else { return true }
    return declaredSize == fetchedSize
  }
}

/// A file that was not written, or that is on disk but does not read as Automerge.
public struct FetchFailure: Sendable, Equatable {
  /// Why.
  public enum Reason: Sendable, Equatable, CustomStringConvertible {
    /// The fetched content (from `origin`) is not valid Automerge; nothing was written.
    case invalidContent(origin: String, detail: String)
    /// The file on disk (present, or put there by the sync client or the command) is not
    /// valid Automerge.
    case invalidFile(detail: String)
    /// Something that is not a regular file is where the file goes.
    case inTheWay(String)
    /// Reading or writing failed; the target is as it was.
    case ioFailed(FileSystemError)
    /// The file read back does not hold every fetched change.
    case verificationFailed
    /// A sync client kept replacing the file, or replaced it with something unreadable,
    /// while it was written; a rerun finishes.
    case changedDuringRun(String)

    public var description: String {
      switch self {
      case .invalidContent(let origin, let detail):
        return "'\(origin)' is not a valid Automerge file: \(detail); nothing written"
      case .invalidFile(let detail): return "the file is not a valid Automerge file: \(detail)"
      case .inTheWay(let what): return "\(what) is where the file goes; nothing written"
      case .ioFailed(let error): return error.description
      case .verificationFailed:
        return "the file read back does not hold every fetched change"
      case .changedDuringRun(let detail): return detail
      }
    }

    /// Whether the failure is an I/O error rather than bad data.
    public var isIOError: Bool {
      if case .ioFailed = self { return true }
      return false
    }
  }

  public var logicalName: String
  public var path: AbsolutePath
  public var reason: Reason
}

/// A file still not downloaded when `run` returned.
public struct FetchMissing: Sendable, Equatable {
  /// Why it is still missing.
  public enum Reason: Sendable, Equatable, CustomStringConvertible {
    /// The source directory or archive has no such file.
    case notInSource
    /// The `--exec` command failed.
    case commandFailed(ProcessStatus)
    /// The `--exec` command was still running at the timeout (it was stopped).
    case commandTimedOut
    /// The timeout came before the file.
    case notDownloaded
    /// The placeholder went away and no file came (deleted on another device?).
    case vanished
    /// A source was given, but the file in place is dataless (macOS): only iCloud has its
    /// bytes, so the source's content is not put in its place (mn.md §15).
    case notDownloadedInPlace

    public var description: String {
      switch self {
      case .notInSource: return "not in the source"
      case .commandFailed(let status): return "the command failed: \(status)"
      case .commandTimedOut: return "the command was stopped at the timeout"
      case .notDownloaded: return "not downloaded before the timeout"
      case .vanished: return "the placeholder went away and no file came"
      case .notDownloadedInPlace:
        return "the file in place is not downloaded; run 'mn fetch' without a source first"
      }
    }
  }

  public var logicalName: String
  public var path: AbsolutePath
  public var reason: Reason
}

/// What `FetchOperation.run` did.
public struct FetchReport: Sendable, Equatable {
  /// Files now real and verified, sorted by logical name (as are the other lists).
  public var fetched: [FetchedFile] = []
  /// Files refused or unreadable; their stubs are kept.
  public var failed: [FetchFailure] = []
  /// Files still not downloaded; their stubs are kept.
  public var missing: [FetchMissing] = []
  /// Things worth a warning: the system refused a download request, and the like.
  public var warnings: [String] = []

  public init() {}
}
