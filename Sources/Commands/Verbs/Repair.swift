import Archive
import Operations
import Platform
import Storage

/// `mn repair`: give a damaged document back every change that survives anywhere (mn.md §14).
enum Repair {
  enum Options {
    static let from = Option<String>(
      "from", .path, valueName: "DIR|ARCHIVE",
      help: "Also take changes from another data folder or an archive.", repeatable: true)
    static let dryRun = Flag(
      "dry-run", short: "n", help: "Report what would be recovered; write nothing.")
  }

  static let spec = CommandSpec(
    name: "repair",
    abstract: "Rebuild damaged documents from every change that survives anywhere.",
    discussion: """
      For every document that does not load (default: each one 'mn doctor' reports \
      unreadable), mn salvages every chunk of the damaged file that verifies (change chunks \
      by their hash, compressed change chunks and document chunks by their checksum), \
      skipping damaged ranges up to the next chunk's magic bytes; a chunk that fails its \
      check is never used. It adds every change of the same document found in its conflict \
      copies (damaged ones salvaged the same way), in each --from folder or archive, and in \
      every backup archive in $MN_BACKUP_DIR that was taken of this data folder (the folder \
      its manifest records, compared by real path) or of a folder this one was migrated \
      from (mn migrate records that in minuta-lineage.jsonl there). A backup of another \
      folder is never taken, and neither is a copy or backup entry that shares no change \
      with what was salvaged (nor a change it depends on): what another document adds \
      cannot be taken out again. --from takes what it names regardless. It then backs up \
      the damaged file (a verified archive, path printed on standard error) and writes the \
      repaired document atomically: every recovered change, dependencies first, so that \
      every Automerge opens it.

      The report says, per document, how many changes came from where, which sources were \
      not taken and why, which byte ranges were skipped, and what is known to be lost: hashes that recovered changes depend on \
      and that no source holds (the changes that depend on them are left out, and kept in \
      the backup). A document that loads is never rewritten. --dry-run reports and writes \
      nothing. Exits 0 when nothing is known lost, 1 when something is, 65 when nothing \
      could be recovered for a document; also 69 for a document not downloaded, 74 for one \
      that cannot be read, 75 for one that changed during the run (run it again), and the \
      statuses of EXIT STATUS for what stops the whole run.
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents or folders to repair (default: all damaged).",
        optional: true, variadic: true)
    ],
    options: [Options.from, Options.dryRun, CommonOptions.wait],
    flags: [.writesStore],
    exits: [
      .ok, .negative, .usage, .dataErr, .noInput, .unavailable, .software, .cantCreate, .ioErr,
      .tempFail,
    ],
    examples: [
      Example("mn repair --dry-run", "Show what every damaged document would get back."),
      Example("mn repair records/2026/09.automerge", "Repair one month."),
      Example(
        "mn repair --from /mnt/laptop/Minuta", "Also take changes from another device's folder."),
    ],
    run: .inFolder(run))

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    let fs = env.fileSystem
    let listing = try env.scanFolder(root)
    let documents =
      call.arguments.isEmpty ? nil : try DocumentSelection.select(call.arguments, in: listing, env)
    var origins: [RepairOrigin] = []
    for value in call[all: Options.from] {
      let path = AbsolutePath(normalizing: value, relativeTo: env.currentDirectory)
      switch try FetchOperation.source(from: path, root: root, fileSystem: fs) {
      case .archive(let archive): origins.append(.archive(archive))
      default: origins.append(.directory(path))
      }
    }
    let backups = try? env.backupDirectory()
    var reading: Progress?
    let plan = RepairOperation.plan(
      listing: listing, documents: documents, origins: origins, backupDirectory: backups,
      fileSystem: fs,
      progress: { done, total, name in
        let bar = reading ?? Progress(env, call, label: "salvaging", total: total)
        reading = bar
        bar.advance(by: done == 0 ? 0 : 1, item: name)
      })
    reading?.finish()
    let out = Output(call: call, env: env)
    guard !call[Options.dryRun] else {
      try out.finish(plan, dryRun: true)
      return ErrorReport.status(of: plan)
    }
    let writing = Progress(env, call, label: "repairing", total: plan.repairable.count)
    let report = try RepairOperation.execute(
      plan, fileSystem: fs,
      backup: { files in
        let path = try BackupTarget(
          directory: { try env.backupDirectory() }, folder: root,
          version: CommandTable.version,
          now: { env.nowSeconds }, fileSystem: fs
        ).make(files, reason: "repair")
        out.note("backup written to '\(path)'")
        return path
      },
      progress: { done, _, name in writing.advance(by: done == 0 ? 0 : 1, item: name) })
    writing.finish()
    try out.finish(report, dryRun: false)
    return ErrorReport.status(of: report)
  }
}
