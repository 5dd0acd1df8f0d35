import AutomergeCodec
import Operations
import Platform

extension Watch {
  /// Renders the watcher's reports: one line each on standard error, or JSON Lines on
  /// standard output (`--json`); remembers the worst problem for `--once`'s exit status.
  final class Output: @unchecked Sendable {
    let call: Invocation
    let env: Environment
    /// Every document merged or refused, for the exit status.
    private var merged: [ConflictMergeDocument] = []
    /// Every document whose conflict versions were merged or refused.
    private var mergedVersions: [VersionMergeDocument] = []
    private var failure: ExitStatus?

    init(call: Invocation, env: Environment) {
      self.call = call
      self.env = env
    }

    /// 0, or with `--once` the status `merge-conflicts` would give for the same documents.
    var status: ExitStatus {
      guard call[Watch.Options.once] else { return .ok }
      var versions = VersionMergeReport(plan: VersionMergePlan(root: ""))
      versions.documents = mergedVersions
      let worst = ErrorReport.worse(
        ErrorReport.status(of: ConflictMergeReport(root: "", documents: merged)),
        ErrorReport.status(of: versions))
      return worst != .ok ? worst : failure ?? .ok
    }

    func report(_ report: WatchReport) {
      if case .merged(let document) = report { merged.append(document) }
      if case .mergedVersions(let document) = report { mergedVersions.append(document) }
      if case .failed(_, let error) = report, failure == nil {
        failure = ErrorReport.describe(error).0
      }
      // A copy still arriving is no news at the normal level (mn.md §12).
      if case .arriving = report, !call.global.verbose { return }
      if call.global.json {
        let line = JSONWriter.string(.object([("time", .string(time()))] + json(report)))
        try? env.stdout.write(line + "\n")
        try? env.stdout.flush()
        return
      }
      if case .notWatched = report {
        // A watcher that cannot see everything says so, even with --quiet.
        for (_, text) in lines(report) { try? env.stderr.write("mn: warning: \(text)\n") }
        return
      }
      for (isError, text) in lines(report) where isError || !call.global.quiet {
        try? env.stderr.write(isError ? "mn: error: \(text)\n" : "mn: \(text)\n")
      }
    }

    private func time() -> String { UTCDateTime(secondsSinceEpoch: env.nowSeconds).iso8601 }

    /// Merged documents are told as `merge-conflicts` tells them (watch never keeps copies).
    private var merge: ConflictMergeOutput {
      ConflictMergeOutput(call: call, env: env, keepCopies: false)
    }

    /// The lines of a report, each marked when it is an error.
    func lines(_ report: WatchReport) -> [(Bool, String)] {
      switch report {
      case .watching(let root, let once):
        if once { return [(false, "one pass over '\(root)'")] }
        let quiet = call.word(for: Watch.Options.quietFor)
        return [(false, "watching '\(root)' (merging copies quiet for \(quiet)s)")]
      case .rescanning(let reason): return [(false, "rescanning (\(reason.rawValue))")]
      case .waitingForLock(let path): return [(false, "waiting for the write lock ('\(path)')")]
      case .lockTaken(let waited):
        return [(false, "took the write lock after \(seconds(waited))s")]
      case .backedUp(let path, let scheduled):
        return [(false, "\(scheduled ? "scheduled backup" : "backup") written to '\(path)'")]
      case .merged(let document):
        let errors = merge.errors(ConflictMergeReport(root: "", documents: [document]))
        guard document.refusal == nil else { return errors.map { (true, $0) } }
        let removed = document.copies.count(where: \.removed)
        let line =
          "\(document.logicalName): \(merge.summary(document, dryRun: false)), "
          + "\(merge.plural(removed, "copy")) removed"
        return [(false, line)] + errors.map { (true, $0) }
      case .mergedVersions(let document):
        return merge.lines(document, dryRun: false)
      case .fetched(let fetched):
        var lines = fetched.fetched.map { (false, "\($0.action.rawValue) '\($0.logicalName)'") }
        lines += fetched.failed.map { (true, "cannot fetch '\($0.logicalName)': \($0.reason)") }
        lines += fetched.missing.map { (false, "still not downloaded: '\($0.logicalName)'") }
        return lines
      case .pruned(let removed):
        return [(false, "pruned \(removed.count == 1 ? "1 backup" : "\(removed.count) backups")")]
          + removed.map { (false, "removed backup '\($0)'") }
      case .failed(let action, let error):
        return [(true, "cannot \(action): \(ErrorReport.describe(error).1) (will try again)")]
      case .notQuietYet(let paths):
        let quiet = call.word(for: Watch.Options.quietFor)
        return [
          (false, "left \(merge.plural(paths.count, "copy")) changed less than \(quiet)s ago")
        ]
      case .notWatched(let count, let setting, let every):
        return [
          (
            false,
            "the system refused to watch \(count == 1 ? "1 directory" : "\(count) directories") "
              + "of the folder (raise \(setting)); rescanning them every \(seconds(every))s"
          )
        ]
      case .arriving(let paths):
        return paths.map { (false, "waiting for '\($0)': it does not decode yet (still arriving)") }
      case .folderGone(let root):
        return [(false, "data folder '\(root)' is gone; waiting for it to come back")]
      case .folderBack(let root): return [(false, "data folder '\(root)' is back")]
      case .stopping: return [(false, "stopping")]
      }
    }

    /// The members of a report's JSON line, after `time`.
    func json(_ report: WatchReport) -> [(String, JSONValue)] {
      switch report {
      case .watching(let root, let once):
        return [
          ("event", .string("watching")), ("root", .path(root)), ("once", .bool(once)),
        ]
      case .rescanning(let reason):
        return [("event", .string("rescanning")), ("reason", .string(reason.rawValue))]
      case .waitingForLock(let path):
        return [("event", .string("waiting-for-lock")), ("path", .path(path))]
      case .lockTaken(let waited):
        return [("event", .string("lock-taken")), ("waited", .double(waited))]
      case .backedUp(let path, let scheduled):
        return [
          ("event", .string("backup")), ("path", .path(path)), ("scheduled", .bool(scheduled)),
        ]
      case .merged(let document):
        guard case .object(let members) = merge.json(document) else { return [] }
        return [("event", .string("merged"))] + members
      case .mergedVersions(let document):
        guard case .object(let members) = merge.json(document, dryRun: false) else { return [] }
        return [("event", .string("merged-versions"))] + members
      case .fetched(let fetched):
        return [
          ("event", .string("fetched")),
          ("fetched", .array(fetched.fetched.map { .string($0.logicalName) })),
          ("failed", .array(fetched.failed.map { .string($0.logicalName) })),
          ("missing", .array(fetched.missing.map { .string($0.logicalName) })),
        ]
      case .pruned(let removed):
        return [("event", .string("pruned")), ("removed", .array(removed.map(JSONValue.path)))]
      case .failed(let action, let error):
        return [
          ("event", .string("failed")), ("action", .string(action)),
          ("error", .string(ErrorReport.describe(error).1)),
        ]
      case .notQuietYet(let paths):
        return [
          ("event", .string("not-quiet-yet")), ("copies", .array(paths.map(JSONValue.path))),
        ]
      case .notWatched(let count, let setting, let every):
        return [
          ("event", .string("not-watched")), ("directories", .int(Int64(count))),
          ("setting", .string(setting)), ("rescan-every", .double(every)),
        ]
      case .arriving(let paths):
        return [("event", .string("arriving")), ("copies", .array(paths.map(JSONValue.path)))]
      case .folderGone(let root):
        return [("event", .string("folder-gone")), ("root", .path(root))]
      case .folderBack(let root):
        return [("event", .string("folder-back")), ("root", .path(root))]
      case .stopping: return [("event", .string("stopping"))]
      }
    }

    private func seconds(_ value: Double) -> String {
      let tenths = (value * 10).rounded() / 10
      return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
  }
}
