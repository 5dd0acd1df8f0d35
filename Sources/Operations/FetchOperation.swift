import Archive
import AutomergeCodec
import Platform
import Storage

/// `mn fetch`: makes placeholders real, downloaded files, then verifies them (mn.md §4).
///
/// The workflow is plan → act → verify:
///
/// 1. **Plan** (`plan(root:documents:)`): every placeholder of the chosen documents, and of
///    their conflict copies, is an item: the real file it stands for, its stubs, and whether
///    the real file is present already (a stale placeholder).
/// 2. **Act** (`run`), by source:
///    - `.directory`: the file of the same logical name in another copy of the data folder;
///    - `.archive`: the entry of the same path in an archive written by `mn export`, read and
///      checked against its manifest first;
///    - `.command`: a shell command per item (it puts the file in place), then a wait;
///    - `.sync`: on macOS the system is asked to download, then a wait for the sync client
///      (and, in a synced folder, for the provider to call the file current, mn.md §15).
///
///    Content taken from a directory or an archive must decode as Automerge, or it is never
///    written. It goes through `AtomicFile`; when a real file is present at the moment of
///    writing (a stale placeholder, or one that appeared meanwhile), the two are merged
///    (`DocumentTools.merge`), never overwritten. The check is made immediately before the
///    write, under the write lock that the app also takes; a sync client, which takes no
///    lock, could still land a file in the instant between the check and the rename.
/// 3. **Verify**: the file is read back from disk and decoded, and must hold every change
///    that was fetched; only then are its stubs (`.NAME.icloud`, `NAME.nextcloud`,
///    `NAME.owncloud`) removed. A dataless file (macOS) has no stub: it is the file itself.
///
/// A size that differs from the size the placeholder declared is reported with the item
/// (`FetchedFile.sizeMatches`), not refused: the source then holds another version of the
/// document, which for an Automerge document is no loss (a later sync merges them).
public enum FetchOperation {
  /// The largest document read, from the source or the disk.
  public static let maxDocumentSize = 1 << 31

  /// Builds the plan for `documents` (all of a scan, or those `PATH…` arguments selected).
  ///
  /// - Parameters:
  ///   - root: the data folder.
  ///   - documents: entries from `FolderScan`.
  /// - Returns: one item per real file that has a placeholder, sorted by logical name.
  public static func plan(root: String, documents: [DocumentEntry]) -> FetchPlan {
    var items: [FetchItem] = []
    for document in documents {
      if !document.placeholders.isEmpty {
        items.append(
          FetchItem(
            logicalName: document.logicalName, path: document.name.path(root: root),
            placeholders: document.placeholders, isCopy: false,
            fileExists: document.isDownloaded))
      }
      var copies: [String: FetchItem] = [:]
      var present: Set<String> = []
      for copy in document.copies {
        guard let placeholder = copy.placeholder else {
          present.insert(copy.logicalName)
          continue
        }
        copies[
          copy.logicalName,
          default: FetchItem(
            logicalName: copy.logicalName,
            path: AbsolutePath(root).appending(copy.logicalName).string, placeholders: [],
            isCopy: true, fileExists: false)
        ].placeholders.append(placeholder)
      }
      for var item in copies.values {
        item.fileExists = present.contains(item.logicalName)
        items.append(item)
      }
    }
    items.sort { $0.logicalName.precedesByBytes($1.logicalName) }
    return FetchPlan(root: root, items: items)
  }

  /// Tells a directory source from an archive source.
  ///
  /// - Parameters:
  ///   - path: the `--from` value, absolute.
  ///   - root: the data folder, which cannot be its own source.
  ///   - fileSystem: used to look.
  /// - Returns: `.directory` or `.archive`.
  /// - Throws: `FetchError.sourceNotFound`, `.sourceNotUsable`, `.sourceIsDataFolder`.
  public static func source(from path: String, root: String, fileSystem: any FileSystem)
    throws(FetchError) -> FetchSource
  {
    let info: FileInfo?
    do {
      info = try fileSystem.infoFollowingLinks(path)
    } catch {
      throw .sourceNotUsable(path, "\((error as? FileSystemError)?.errno ?? .ioError)")
    }
    guard let info else { throw .sourceNotFound(path) }
    switch info.kind {
    case .directory:
      let real = (try? fileSystem.realPath(path)) ?? path
      let realRoot = (try? fileSystem.realPath(root)) ?? root
      if real == realRoot { throw .sourceIsDataFolder(path) }
      return .directory(path)
    case .regular: return .archive(path)
    default: throw .sourceNotUsable(path, "not a directory or an archive")
    }
  }

  /// Fetches every item of `plan` and verifies it.
  ///
  /// - Parameters:
  ///   - plan: from `plan(root:documents:)`.
  ///   - source: where the content comes from.
  ///   - options: the timeout and the polling interval.
  ///   - context: the file system, the clock, the process runner and the progress hook.
  /// - Returns: what became of each item.
  /// - Throws: `ArchiveError` when an archive source cannot be read or does not match its
  ///   manifest, `ProcessError` when a command cannot be started. Failures of single items
  ///   (content that does not decode, a write that fails) are in the report instead.
  public static func run(
    _ plan: FetchPlan, source: FetchSource, options: FetchOptions = FetchOptions(),
    context: FetchContext
  ) throws -> FetchReport {
    var run = FetchRun(plan: plan, options: options, context: context)
    try run.execute(source)
    let byName = { (a: String, b: String) in a.precedesByBytes(b) }
    run.report.fetched.sort { byName($0.logicalName, $1.logicalName) }
    run.report.failed.sort { byName($0.logicalName, $1.logicalName) }
    run.report.missing.sort { byName($0.logicalName, $1.logicalName) }
    return run.report
  }
}

/// Where the content of placeholders comes from.
public enum FetchSource: Sendable, Equatable {
  /// No source: on macOS the system is asked to download; then the sync client is awaited.
  case sync
  /// Another copy of the data folder (absolute path).
  case directory(String)
  /// An archive written by `mn export` (absolute path).
  case archive(String)
  /// A shell command per item; `{}` is the file's absolute path and `{rel}` its logical name
  /// (both shell-quoted); with neither, the path is appended.
  case command(String)
}

/// How long `run` waits and how often it looks.
public struct FetchOptions: Sendable, Equatable {
  /// The most seconds spent waiting for files and commands (mn.md §4: 300 by default).
  public var timeout: Double
  /// Seconds between two looks at the folder while waiting.
  public var pollInterval: Double

  public init(timeout: Double = 300, pollInterval: Double = 0.5) {
    self.timeout = timeout
    self.pollInterval = pollInterval
  }
}

/// The side effects `FetchOperation.run` may use, passed in (style.md (d)).
public struct FetchContext {
  public var fileSystem: any FileSystem
  /// Seconds on a monotonic or wall clock; only differences are used.
  public var now: () -> Double
  /// Sleeps for the given number of seconds.
  public var sleep: (Double) -> Void
  /// Starts `--exec` commands.
  public var processRunner: any ProcessRunner
  /// The environment of `--exec` commands.
  public var variables: [String: String]
  /// Asks the system to download a file (macOS: `SyncDownload.request`); nil to skip.
  public var requestDownload: ((String) throws -> Void)?
  /// Called after each item is settled (fetched, refused or given up), with the counts.
  public var progress: (_ done: Int, _ total: Int, _ item: String) -> Void
  /// The random part of temporary names.
  public var random: () -> String
  /// Says whether a file is current (mn.md §15); `NoSyncProvider` where there is none.
  public var syncProvider: any SyncProvider

  public init(
    fileSystem: any FileSystem, now: @escaping () -> Double, sleep: @escaping (Double) -> Void,
    processRunner: any ProcessRunner = LiveProcessRunner(), variables: [String: String] = [:],
    requestDownload: ((String) throws -> Void)? = nil,
    progress: @escaping (Int, Int, String) -> Void = { _, _, _ in },
    random: @escaping () -> String = AtomicFile.randomSuffix,
    syncProvider: any SyncProvider = NoSyncProvider()
  ) {
    self.syncProvider = syncProvider
    self.fileSystem = fileSystem
    self.now = now
    self.sleep = sleep
    self.processRunner = processRunner
    self.variables = variables
    self.requestDownload = requestDownload
    self.progress = progress
    self.random = random
  }
}

/// One real file to bring down: a document or a conflict copy with its placeholders.
public struct FetchItem: Sendable, Equatable {
  /// The logical name of the real file (`records/2026/09.automerge`).
  public var logicalName: String
  /// Its absolute path.
  public var path: String
  /// The placeholders standing for it (normally one).
  public var placeholders: [Placeholder]
  /// Whether it is a conflict copy rather than a document.
  public var isCopy: Bool
  /// Whether the real file was present when planned (a stale placeholder).
  public var fileExists: Bool
  /// Whether the file is present but its sync provider has a newer version (mn.md §15).
  public var isStale: Bool

  public init(
    logicalName: String, path: String, placeholders: [Placeholder], isCopy: Bool,
    fileExists: Bool, isStale: Bool = false
  ) {
    self.logicalName = logicalName
    self.path = path
    self.placeholders = placeholders
    self.isCopy = isCopy
    self.fileExists = fileExists
    self.isStale = isStale
  }

  /// The size a placeholder declares, when one does.
  public var declaredSize: Int64? { placeholders.lazy.compactMap(\.declaredSize).first }
}

/// What `mn fetch` will do: the items, sorted by logical name.
public struct FetchPlan: Sendable, Equatable {
  public var root: String
  public var items: [FetchItem]

  public init(root: String, items: [FetchItem]) {
    self.root = root
    self.items = items
  }
}

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
  public var path: String
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
  public var path: String
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
  public var path: String
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

/// Why `mn fetch` cannot start.
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `--from` names nothing.
  case sourceNotFound(String)
  /// `--from` names something that is neither a directory nor a file, or cannot be examined.
  case sourceNotUsable(String, String)
  /// `--from` names the data folder itself.
  case sourceIsDataFolder(String)

  public var description: String {
    switch self {
    case .sourceNotFound(let p): return "no such source '\(p)'"
    case .sourceNotUsable(let p, let why): return "cannot use source '\(p)': \(why)"
    case .sourceIsDataFolder(let p): return "source '\(p)' is the data folder itself"
    }
  }
}

/// The state of one `FetchOperation.run`.
struct FetchRun {
  let plan: FetchPlan
  let options: FetchOptions
  let context: FetchContext
  let deadline: Double
  var report = FetchReport()
  var done = 0

  var fileSystem: any FileSystem { context.fileSystem }

  init(plan: FetchPlan, options: FetchOptions, context: FetchContext) {
    self.plan = plan
    self.options = options
    self.context = context
    deadline = context.now() + max(0, options.timeout)
  }

  mutating func execute(_ source: FetchSource) throws {
    guard !plan.items.isEmpty else { return }
    switch source {
    case .directory(let directory):
      for item in plan.items {
        let origin = AbsolutePath(directory).appending(item.logicalName).string
        do {
          deliver(
            item, try fileSystem.readFile(origin, limit: FetchOperation.maxDocumentSize), origin)
        } catch let error as FileSystemError
          where error.errno == .noSuchFileOrDirectory || error.errno == .notDirectory
        {
          settle(missing: item, .notInSource)
        } catch let error as FileSystemError {
          settle(failed: item, .ioFailed(error))
        }
      }
    case .archive(let path):
      let archive = try ArchiveReader.verify(path: path, fileSystem: fileSystem)
      for item in plan.items {
        if let entry = archive.entry(item.logicalName) {
          deliver(item, entry.bytes, path + ":" + archive.topFolder + "/" + entry.path)
        } else {
          settle(missing: item, .notInSource)
        }
      }
    case .command(let template):
      var waiting: [FetchItem] = []
      var failures: [String: FetchMissing.Reason] = [:]
      for item in plan.items {
        if item.fileExists {
          // The file is here: a command could overwrite it. Only the stubs are stale.
          waiting.append(item)
          continue
        }
        guard context.now() < deadline else {
          failures[item.logicalName] = .commandTimedOut
          waiting.append(item)
          continue
        }
        let command = Self.expand(template, item)
        let runner = context.processRunner
        let child = try runner.start(shellCommand: command, environment: context.variables)
        let status = try runner.wait(
          for: child, until: deadline, now: context.now, sleep: context.sleep)
        if let status, !status.succeeded {
          failures[item.logicalName] = .commandFailed(status)
        } else if status == nil {
          failures[item.logicalName] = .commandTimedOut
        }
        waiting.append(item)
      }
      wait(for: waiting, failures: failures)
    case .sync:
      if let request = context.requestDownload {
        for item in plan.items where !item.fileExists || item.isStale {
          do {
            try request(item.path)
          } catch {
            report.warnings.append(
              "cannot ask the system to download '\(item.logicalName)': \(error)")
          }
        }
      }
      wait(for: plan.items, failures: [:])
    }
  }

  /// The command line for one item: `{}` and `{rel}` replaced by the quoted path and
  /// logical name, in one pass (a name holding `{}` is not expanded again).
  static func expand(_ template: String, _ item: FetchItem) -> String {
    var out = ""
    var rest = template[...]
    var expanded = false
    while let brace = rest.firstIndex(of: "{") {
      out += rest[..<brace]
      let tail = rest[brace...]
      if tail.hasPrefix("{}") {
        out += ShellQuote.quote(item.path)
        rest = tail.dropFirst(2)
        expanded = true
      } else if tail.hasPrefix("{rel}") {
        out += ShellQuote.quote(item.logicalName)
        rest = tail.dropFirst(5)
        expanded = true
      } else {
        out += "{"
        rest = tail.dropFirst()
      }
    }
    out += rest
    return expanded ? out : out + " " + ShellQuote.quote(item.path)
  }

  /// Checks fetched bytes, writes or merges them, verifies the file and removes the stubs.
  mutating func deliver(_ item: FetchItem, _ bytes: [UInt8], _ origin: String) {
    let incoming: AutomergeFile
    do {
      incoming = try AutomergeFile.decode(bytes)
    } catch {
      return settle(failed: item, .invalidContent(origin: origin, detail: "\(error)"))
    }
    let action: FetchedFile.Action
    var expected = Set(incoming.changes.map(\.hash))
    var replaced: ReplaceOutcome.Summary?
    do {
      var basis = ReplaceBasis.absent
      var content = bytes
      if let present = try fileSystem.info(item.path) {
        // A dataless file in place (macOS, mn.md §15) is never the basis of a replace: its
        // bytes are in iCloud only, and may hold changes that the source lacks. Taking it
        // unread as the basis would swap it out, recognise it by its inode as "what was
        // read" and remove it, and the exchange would first give it an excluded `.nosync`
        // name, which a provider takes for a removal. Reading it here would download it on
        // mn's thread, under the lock, unasked. So the item is left as it is (exit 69): a
        // plain `mn fetch` downloads it, and a second `fetch --from` then merges.
        if DatalessFiles.isDataless(present) {
          return settle(missing: item, .notDownloadedInPlace)
        }
        basis = ReplaceBasis(info: present, bytes: nil)
      }
      if basis.info != nil {
        switch DocumentReplace.read(item.path, fileSystem: fileSystem) {
        case .success(let existing):
          expected.formUnion(existing.file.changes.map(\.hash))
          do {
            content = try DocumentTools.merge(existing: existing.bytes, incoming: bytes)
          } catch {
            return settle(failed: item, .invalidContent(origin: origin, detail: "\(error)"))
          }
          basis = existing.basis
        case .failure(.absent): basis = .absent
        case .failure(.notRegularFile(let kind)):
          return settle(failed: item, .inTheWay(kind.article))
        case .failure(.notAutomerge(let error)):
          return settle(failed: item, .invalidFile(detail: "\(error)"))
        case .failure(.cannotRead(let error)), .failure(.notDownloaded(let error)):
          throw error
        }
      }
      if let existing = basis.bytes, content == existing {
        action = .unchanged
      } else {
        let outcome = try DocumentReplace.replace(
          item.path, with: content, basis: basis, fileSystem: fileSystem, random: context.random)
        replaced = outcome.summary
        action = basis.bytes == nil ? .fetched : .merged
      }
    } catch ReplaceError.notRegularFile(_, let kind) {
      return settle(failed: item, .inTheWay(kind.article))
    } catch let error as ReplaceError {
      return settle(failed: item, .changedDuringRun("\(error)"))
    } catch let error as FileSystemError {
      return settle(failed: item, .ioFailed(error))
    } catch {
      return settle(failed: item, .ioFailed(FileSystemError("write", item.path, .ioError)))
    }
    finish(
      item, action: action, fetchedSize: Int64(bytes.count), expected: expected,
      replaced: replaced)
  }

  /// Polls until every item's file is present and decodes, or the deadline passes.
  mutating func wait(for items: [FetchItem], failures: [String: FetchMissing.Reason]) {
    var pending = items
    var problems: [String: String] = [:]
    while true {
      var still: [FetchItem] = []
      for item in pending {
        switch look(at: item) {
        case .absent:
          still.append(item)
        case .unreadable(let detail):
          if item.fileExists {
            // Present before fetch began: it will not change by waiting.
            settle(failed: item, .invalidFile(detail: detail))
          } else {
            problems[item.logicalName] = detail
            still.append(item)
          }
        case .ready(let size):
          problems[item.logicalName] = nil
          let present = item.fileExists && !item.isStale
          finish(
            item, action: present ? .verified : .downloaded,
            fetchedSize: present ? nil : size, expected: [])
        }
      }
      pending = still
      let left = deadline - context.now()
      if pending.isEmpty || left <= 0 { break }
      context.sleep(min(options.pollInterval, left))
    }
    for item in pending {
      if let detail = problems[item.logicalName] {
        settle(failed: item, .invalidFile(detail: detail))
      } else if let failure = failures[item.logicalName] {
        settle(missing: item, failure)
      } else {
        let stubs = item.placeholders.filter { $0.kind != .dataless }
        let gone =
          !stubs.isEmpty && stubs.allSatisfy { (try? fileSystem.info($0.path)) == .some(nil) }
        settle(missing: item, gone ? .vanished : .notDownloaded)
      }
    }
  }

  enum Look {
    case absent
    case unreadable(String)
    case ready(Int64)
  }

  /// Whether an item's real file is on disk, downloaded, and valid Automerge.
  func look(at item: FetchItem) -> Look {
    do {
      guard let info = try fileSystem.info(item.path), info.kind == .regular,
        SyncDownload.isCurrent(item.path, info: info, provider: context.syncProvider)
      else { return .absent }
      let bytes = try fileSystem.readFile(item.path, limit: FetchOperation.maxDocumentSize)
      do {
        _ = try AutomergeFile.decode(bytes)
      } catch {
        return .unreadable("\(error)")
      }
      return .ready(Int64(bytes.count))
    } catch let error as FileSystemError where error.meansNotDownloaded {
      return .absent
    } catch {
      return .unreadable("\(error)")
    }
  }

  /// Reads the file back, checks that it decodes and holds `expected`, then removes stubs.
  mutating func finish(
    _ item: FetchItem, action: FetchedFile.Action, fetchedSize: Int64?, expected: Set<ChangeHash>,
    replaced: ReplaceOutcome.Summary? = nil
  ) {
    let bytes: [UInt8]
    do {
      bytes = try fileSystem.readFile(item.path, limit: FetchOperation.maxDocumentSize)
      let file = try AutomergeFile.decode(bytes)
      guard expected.allSatisfy({ file.contains($0) }) else {
        return settle(failed: item, .verificationFailed)
      }
    } catch let error as FileSystemError {
      return settle(failed: item, .ioFailed(error))
    } catch {
      return settle(failed: item, .invalidFile(detail: "\(error)"))
    }
    var removed: [String] = []
    var kept: [String: String] = [:]
    for stub in item.placeholders where stub.kind != .dataless {
      do {
        try fileSystem.removeFile(stub.path)
        removed.append(stub.path)
      } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {
        // The sync client removed it already.
      } catch {
        kept[stub.path] = "\((error as? FileSystemError)?.errno ?? .ioError)"
      }
    }
    report.fetched.append(
      FetchedFile(
        logicalName: item.logicalName, path: item.path, action: action,
        size: Int64(bytes.count), declaredSize: item.declaredSize, fetchedSize: fetchedSize,
        removedPlaceholders: removed, keptPlaceholders: kept, replace: replaced))
    advance(item)
  }

  mutating func settle(failed item: FetchItem, _ reason: FetchFailure.Reason) {
    report.failed.append(
      FetchFailure(logicalName: item.logicalName, path: item.path, reason: reason))
    advance(item)
  }

  mutating func settle(missing item: FetchItem, _ reason: FetchMissing.Reason) {
    report.missing.append(
      FetchMissing(logicalName: item.logicalName, path: item.path, reason: reason))
    advance(item)
  }

  mutating func advance(_ item: FetchItem) {
    done += 1
    context.progress(done, plan.items.count, item.logicalName)
  }
}
