import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn compact`: rewrite documents as one document chunk each (issue 29).
enum Compact {
  enum Options {
    static let dryRun = Flag(
      "dry-run", short: "n", help: "Print each document's size now and compacted; change nothing.")
  }

  static let spec = CommandSpec(
    name: "compact",
    abstract: "Rewrite documents as one document chunk each, as Automerge's save() does.",
    discussion: """
      Merges append change chunks to a document and keep its bytes, so a month that went \
      through many merges grows and loads slower. compact rewrites each selected document \
      (default: all) with exactly the same changes as one document chunk, the form the app \
      itself saves. A document is compacted only when every change in it verifies (its \
      hash) and the rewrite is smaller; the rewrite is read back before it is written, \
      under the write lock, through the same replace as every other write (a version a \
      sync client writes meanwhile is merged in, never lost), and the written file is read \
      again and must hold every change it held. The documents are backed up first to a \
      verified archive in $MN_BACKUP_DIR; its path is printed on standard error. \
      mn doctor names the documents that compact would shrink to less than half.
      """,
    arguments: [
      ArgumentSpec(
        "PATH", .document, help: "Documents or folders to compact (default: all).",
        optional: true, variadic: true)
    ],
    options: [Options.dryRun, CommonOptions.wait],
    flags: [.writesStore],
    exits: [.ok, .usage, .dataErr, .noInput, .software, .cantCreate, .ioErr, .tempFail],
    examples: [
      Example("mn compact --dry-run", "Show each document's size now and compacted."),
      Example("mn compact records/2026", "Compact the documents of 2026."),
    ],
    run: .inFolder(run))

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    let listing = try env.scanFolder(root)
    let selected = try DocumentSelection.select(call.arguments, in: listing, env)
    var plan = CompactOperation.plan(selected, fileSystem: env.fileSystem)
    plan.sort { $0.logicalName.precedesByBytes($1.logicalName) }
    if call[Options.dryRun] {
      try report(plan, dryRun: true, backup: nil, call, env)
      return status(plan)
    }
    let (documents, backup) = try CompactOperation.execute(
      plan, fileSystem: env.fileSystem,
      backup: { files in
        let path = try BackupTarget(
          directory: { try env.backupDirectory() }, folder: root,
          version: CommandTable.version,
          now: { env.nowSeconds }, fileSystem: env.fileSystem
        ).make(files, reason: "compact")
        if !call.global.quiet { try? env.stderr.write("mn: backup written to '\(path)'\n") }
        return path
      },
      progress: { ReplaceNote.write($0.logicalName, $0.replace, call, env) })
    try report(documents, dryRun: false, backup: backup, call, env)
    return status(documents)
  }

  static func status(_ documents: [CompactDocument]) -> ExitStatus {
    if documents.contains(where: { if case .refused = $0.outcome { true } else { false } }) {
      return .dataErr
    }
    return documents.contains { $0.outcome == .changedDuringRun } ? .tempFail : .ok
  }

  static func report(
    _ documents: [CompactDocument], dryRun: Bool, backup: AbsolutePath?, _ call: Invocation,
    _ env: Environment
  ) throws {
    func state(_ d: CompactDocument) -> (String, String?) {
      switch d.outcome {
      case .planned: return (dryRun ? "would-compact" : "planned", nil)
      case .compacted: return ("compacted", nil)
      case .alreadyCompact: return ("compact", nil)
      case .refused(let why): return ("refused", why)
      case .changedDuringRun: return ("changed-during-run", nil)
      }
    }
    if call.global.json {
      let items: [JSONValue] = documents.map { d in
        let (s, why) = state(d)
        var fields: [(String, JSONValue)] = [
          ("document", .string(d.logicalName)), ("state", .string(s)),
          ("sizeBefore", .int(Int64(d.sizeBefore))),
          ("sizeAfter", d.sizeAfter.map { .int(Int64($0)) } ?? .null),
          ("changes", .int(Int64(d.changes))),
        ]
        if let why { fields.append(("reason", .string(why))) }
        return .object(fields)
      }
      let value = JSONValue.object([
        ("dryRun", .bool(dryRun)), ("backup", backup.map(JSONValue.path) ?? .null),
        ("documents", .array(items)),
      ])
      try env.stdout.writeJSON(value)
      return
    }
    var out = ""
    for d in documents {
      let sizes = d.sizeAfter.map { "\(d.sizeBefore) -> \($0) bytes" } ?? "\(d.sizeBefore) bytes"
      switch d.outcome {
      case .planned: out += "\(d.logicalName): would compact, \(sizes), \(d.changes) changes\n"
      case .compacted: out += "\(d.logicalName): compacted, \(sizes), \(d.changes) changes\n"
      case .alreadyCompact:
        if call.global.verbose || dryRun { out += "\(d.logicalName): already compact, \(sizes)\n" }
      case .refused(let why):
        try env.stderr.write("mn: error: '\(d.logicalName)': not compacted: \(why)\n")
      case .changedDuringRun:
        try env.stderr.write(
          "mn: warning: '\(d.logicalName)' changed during the run; run mn compact again\n")
      }
    }
    if !call.global.quiet { try env.stdout.write(out) }
  }
}
