import Operations
import Platform
import Storage

/// `mn merge-conflicts`: merge conflict copies into their documents (mn.md §5).
enum MergeConflicts {
  enum Options {
    static let dryRun = Flag(
      "dry-run", short: "n", help: "Print what would be merged and removed; change nothing.")
    static let keepCopies = Flag(
      "keep-copies", help: "Merge, but keep the copies (and make no backup).")
    static let noBackup = Flag(
      "no-backup", help: "Remove copies without a backup archive first (risky).")
  }

  static let spec = CommandSpec(
    name: "merge-conflicts",
    abstract: "Merge conflict copies into their documents and remove the copies.",
    discussion: """
      For every document with conflict copies (see 'mn ls --conflicts'): read the document \
      and every copy, merge them (the union of their Automerge changes; nothing is ever \
      picked or dropped), write the result atomically under the write lock, read it back and \
      check that it holds every change of every input, and only then remove the copies. The \
      document's existing bytes are kept as they are and only the missing changes are \
      appended; a document that already holds every change is not rewritten. A document \
      with only copies (copies-only) gets a new file from them. --dry-run (and -v during a \
      merge) prints under each copy that adds changes how many it adds and the content \
      paths they touch, as 'mn diff' sums them up.

      Before the first copy is removed, the documents and copies involved are saved in one \
      verified backup archive in $MN_BACKUP_DIR (default ~/.local/state/minuta/backups; \
      macOS: ~/Library/Application Support/Minuta/Backups); its path is printed on standard \
      error. Only 'mn backups prune' ever deletes backups.

      On macOS, iCloud's conflict versions of a document (NSFileVersion) are merged like \
      copies: their bytes go into the backup first, and they are marked resolved only after \
      the merged document is written, synced and read back; a version that cannot be read \
      stays unresolved and is reported. With --json, the object's "versions" lists each \
      document with versions, and each version with its "device" and "date" (null when the \
      system does not give them), whether it was "merged" and "resolved", and the \
      "problem" that kept it (null for none); "versionsHidden" names the documents whose \
      versions the system does not show mn. A document whose file or copy is dataless or stale \
      (a newer version not downloaded yet) is left alone with status 69, naming the file: \
      run 'mn fetch' first.

      A copy that is not a valid Automerge file, is not downloaded, or cannot be read is \
      kept and reported, the rest goes on, and the exit status says so (65, 69, 74). A \
      document whose inputs hold two different changes with the same actor and sequence \
      number is left alone (65). Running it again after a success does nothing. SIGINT \
      stops it between documents (130), a kill at any moment loses nothing, and a rerun \
      finishes the job.

      A sync client may write the folder at the same moment (it never takes the lock). So \
      the merged document is put in place by an atomic exchange with the file it was \
      computed from, and the file it displaced is examined: a version that arrived \
      meanwhile is merged in before anything is removed. A copy is removed only when the \
      document, read again right then, holds every change of it (else it is kept, 75, and a \
      rerun merges it). A document path that is a symbolic link, a directory or anything but \
      a regular file is refused (65) and nothing of it or its copies is touched. With -v, \
      each replace says how it went.

      --no-backup skips the backup archive: a copy is still removed only after the merged \
      document was read back and found to hold all of its changes, but if that document is \
      later damaged, the copies are gone too. Use it only when the folder is backed up \
      some other way.
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents, copies or folders to merge (default: all).",
        optional: true, variadic: true)
    ],
    options: [Options.dryRun, Options.keepCopies, Options.noBackup, CommonOptions.wait],
    flags: [.writesStore],
    exits: [
      .ok, .usage, .dataErr, .noInput, .unavailable, .software, .cantCreate, .ioErr, .tempFail,
      .interrupted,
    ],
    examples: [
      Example("mn merge-conflicts --dry-run", "Show each copy, its service and what it adds."),
      Example("mn merge-conflicts", "Merge every copy, back up, remove the copies."),
      Example("mn merge-conflicts records/2026", "Only the documents of 2026."),
      Example("mn merge-conflicts --keep-copies --json", "Merge, keep the copies, report as JSON."),
    ],
    run: .inFolder(run))

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    let listing = try env.scanFolder(root)
    let selected = try DocumentSelection.select(call.arguments, in: listing, env)
    var plan = try MergeConflictsOperation.plan(
      selected, listing: listing, provider: env.syncProvider, fileSystem: env.fileSystem)
    plan.copies.documents.sort { $0.logicalName.precedesByBytes($1.logicalName) }
    let out = ConflictMergeOutput(call: call, env: env, keepCopies: call[Options.keepCopies])
    if call[Options.dryRun] {
      let report = ConflictMergeReport(root: root, documents: plan.copies.documents)
      let versionReport = VersionMergeReport(plan: plan.versions)
      try out.finish(report, dryRun: true, effects: out.quiet ? [:] : out.effects(plan.copies))
      try out.finish(versionReport, dryRun: true)
      try out.finishJSON(report, versions: versionReport, dryRun: true)
      return ErrorReport.worse(
        ErrorReport.status(of: report), ErrorReport.status(of: versionReport))
    }
    // What each copy adds is computed before anything is written (the copies go after).
    let effects = call.global.verbose && !out.quiet ? out.effects(plan.copies) : [:]
    Signals.installInterrupt()
    let progress = Progress(env, call, label: "merging", total: plan.copies.documents.count)
    let target = BackupTarget(
      directory: { try env.backupDirectory() }, folder: root,
      version: CommandTable.version,
      now: { env.nowSeconds }, fileSystem: env.fileSystem)
    let report = try MergeConflictsOperation.execute(
      plan, keepCopies: call[Options.keepCopies],
      backup: call[Options.noBackup] ? .skip : .make(target, reason: "merge-conflicts"),
      provider: env.syncProvider, fileSystem: env.fileSystem,
      progress: { step in
        switch step {
        case .backedUp(let path):
          progress.finish()
          out.note("backup written to '\(path)'")
        case .started(_, _, let name): progress.advance(by: 0, item: name)
        case .finished(let document):
          progress.advance()
          ReplaceNote.write(document.logicalName, document.replace, call, env)
        }
      },
      copiesMerged: { report in
        progress.finish()
        try out.finish(report, dryRun: false, effects: effects)
      },
      isCancelled: { Signals.interruptRequested })
    if !report.copies.interrupted { try out.finish(report.versions, dryRun: false) }
    try out.finishJSON(report.copies, versions: report.versions, dryRun: false)
    guard !report.copies.interrupted else { return ErrorReport.status(of: report.copies) }
    return ErrorReport.worse(
      ErrorReport.status(of: report.copies), ErrorReport.status(of: report.versions))
  }
}
