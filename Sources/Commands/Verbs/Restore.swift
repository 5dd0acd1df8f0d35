import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn restore`: an archive's files into a data folder, documents merged (mn.md §8).
///
/// Not `.writesStore`: the destination may be `--to DIR` rather than the discovered folder,
/// and may not exist yet, so the verb creates it and takes its lock itself.
enum Restore {
  enum Options {
    static let to = Option<String>(
      "to", .directory, valueName: "DIR",
      help: "Restore into DIR (created when missing) instead of the data folder.")
    static let dryRun = Flag("dry-run", help: "Print what would be done and change nothing.")
  }

  static let spec = CommandSpec(
    name: "restore",
    abstract: "Restore an archive into a data folder, merging documents.",
    discussion: """
      Reads an archive written by mn export (or any tar or zip whose entries sit under one \
      top folder), checks every file against the archive's manifest when it has one, and \
      brings each file into the destination: --to DIR, or else the data folder (found as \
      for every verb; an explicit --root or MINUTA_STORAGE that does not exist yet is \
      created). A document absent from the destination is written; a present one is \
      merged, never overwritten, so a restore keeps every change made since the archive was \
      taken. Other files are written when absent and otherwise left alone, the difference \
      reported. Local files (.nosync) are never restored. Every file is written atomically \
      under the destination's write lock, and a version of a document that a sync client \
      brings meanwhile is merged in, never overwritten (-v says how each replace went).

      An archive with an absolute path, a .. component, a link or a device file is refused \
      with 65 before anything is written. A document that is only a placeholder (not \
      downloaded) at the destination stops the restore with 69: download it first. Before \
      the first merge, the destination is saved to a verified backup archive in the backup \
      directory ($MN_BACKUP_DIR, else ~/.local/state/minuta/backups), whose path is printed. \
      Restoring the same archive again changes nothing.

      --dry-run prints the plan, one line per file (write, merge, unchanged, keep-different \
      or skip, then the path), and changes nothing. ARCHIVE - reads standard input.
      """,
    arguments: [
      ArgumentSpec("ARCHIVE", .path, help: "The archive to restore (- for standard input).")
    ],
    options: [Options.to, Options.dryRun, CommonOptions.wait],
    exits: [
      .ok, .usage, .dataErr, .noInput, .unavailable, .software, .cantCreate, .ioErr, .tempFail,
    ],
    examples: [
      Example("mn restore minuta-20260906-154512.tar.gz", "Merge an export into the data folder."),
      Example("mn restore --dry-run backup.zip", "Show what a restore would write and merge."),
      Example(
        "mn restore --to ~/Minuta-old archive.tar.xz", "Unpack an archive into a new folder."),
      Example("mn restore - < minuta.tar.gz", "Read the archive from standard input."),
    ],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let source = call.arguments[0]
    let archive = try read(source, env)
    let destination = try destination(call, env)
    let quiet = call.global.quiet
    if archive.manifest == nil && !quiet {
      try env.stderr.write(
        "mn: warning: '\(source)' has no manifest: its files cannot be checked\n")
    }
    if call[Options.dryRun] {
      let plan = try RestoreWorkflow.plan(
        archive: archive, destination: destination, fileSystem: env.fileSystem)
      let backup = !plan.items(.merge).isEmpty
      if call.global.json {
        try env.stdout.writeJSON(json(plan, source, backup))
        return .ok
      }
      for item in plan.items {
        try env.stdout.write(line(item))
      }
      if !plan.destinationExists && !quiet {
        try env.stderr.write("mn: '\(destination)' does not exist; it would be created\n")
      }
      if backup && !quiet {
        try env.stderr.write("mn: '\(destination)' would be backed up before merging\n")
      }
      return .ok
    }
    try RestoreWorkflow.prepareDestination(destination, fileSystem: env.fileSystem)
    let lock = try WriteLocks.acquire(
      [destination], timeout: call[CommonOptions.wait],
      fileSystem: env.fileSystem, sleep: env.sleep)
    defer { lock.release() }
    let outcome = try RestoreWorkflow.run(
      archive: archive, destination: destination, backupDirectory: try env.backupDirectory(),
      version: CommandTable.version, now: env.nowSeconds, fileSystem: env.fileSystem)
    let report = outcome.report
    for (path, summary) in report.replaces.sorted(by: { $0.key.precedesByBytes($1.key) }) {
      ReplaceNote.write(path, summary, call, env)
    }
    if call.global.json {
      try env.stdout.writeJSON(json(outcome, source))
    }
    guard !quiet else { return .ok }
    if call.global.verbose {
      for name in outcome.removedTemporaries {
        try env.stderr.write("mn: removed leftover temporary '\(name)'\n")
      }
      for item in outcome.plan.items {
        try env.stderr.write(line(item))
      }
    }
    if let backup = outcome.backupPath {
      try env.stderr.write("mn: backup written to '\(backup)'\n")
    }
    for path in report.keptDifferent {
      try env.stderr.write("mn: warning: '\(path)' differs from the archive's copy; left alone\n")
    }
    try env.stderr.write(
      "mn: restored '\(source)' into '\(destination)': \(report.written.count) written, "
        + "\(report.merged.count) merged, \(report.unchanged.count) unchanged, "
        + "\(report.keptDifferent.count) left alone\n")
    return .ok
  }

  /// Reads and checks the archive; `-` is standard input.
  static func read(_ source: String, _ env: Environment) throws -> ReadArchive {
    if source == "-" { return try ArchiveReader.read(bytes: try env.readStandardInput()) }
    do {
      return try ArchiveReader.read(
        path: AbsolutePath(normalizing: source, relativeTo: env.currentDirectory),
        fileSystem: env.fileSystem)
    } catch ArchiveError.io(let error) {
      // The archive file itself cannot be read: mapped like any failed read (66 or 74).
      throw error
    }
  }

  /// `--to DIR`, else the discovered data folder, else an explicit one still to be created.
  static func destination(_ call: Invocation, _ env: Environment) throws -> AbsolutePath {
    if let to = call[Options.to] {
      return AbsolutePath(normalizing: to, relativeTo: env.currentDirectory)
    }
    let found = env.discover(root: call.global.root)
    if !call.global.quiet {
      for warning in found.warnings { try env.stderr.write("mn: warning: \(warning)\n") }
    }
    guard let root = found.root ?? found.explicitMissing else {
      throw CommandError.noRestoreDestination
    }
    return root
  }
}
