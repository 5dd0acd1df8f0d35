import Archive
import AutomergeCodec
import Platform
import Storage

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
        let origin = directory.appending(item.logicalName)
        do {
          deliver(
            item, try fileSystem.readFile(origin, limit: FetchOperation.maxDocumentSize),
            origin.string)
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
          deliver(item, entry.bytes, "\(path):\(archive.topFolder)/\(entry.path)")
        } else {
          settle(missing: item, .notInSource)
        }
      }
    case .command(let template):
      var waiting: [FetchItem] = []
      var failures: [String: FetchMissing.Reason] = [:]
      let environment = context.processVariables()
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
        let child = try runner.start(shellCommand: command, environment: environment)
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
        out += ShellQuote.quote(item.path.string)
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
    return expanded ? out : out + " " + ShellQuote.quote(item.path.string)
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
          !stubs.isEmpty
          && stubs.allSatisfy { (try? fileSystem.info($0.path)) == .some(nil) }
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
      bytes = try fileSystem.readFile(
        item.path, limit: FetchOperation.maxDocumentSize)
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
        removed.append(stub.path.string)
      } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {
        // The sync client removed it already.
      } catch {
        kept[stub.path.string] = "\((error as? FileSystemError)?.errno ?? .ioError)"
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
