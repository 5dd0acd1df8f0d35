import Archive
import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn export`: the data folder as a verified archive (mn.md §8).
enum Export {
  enum Options {
    static let output = Option<String>(
      "output", short: "o", .path, valueName: "FILE",
      help: "Write the archive here (- for standard output).")
    static let format = Option.choice(
      "format", of: ArchiveFormat.self, valueName: "FORMAT",
      help: "The archive format (default: from the output's extension, else tar.gz).")
    static let allowPlaceholders = Flag(
      "allow-placeholders", help: "List files not downloaded as missing instead of failing.")
    static let reproducible = Flag(
      "reproducible", help: "Fix times and owners: the same folder gives the same bytes.")
    static let noVerify = Flag("no-verify", help: "Do not read the archive back to check it.")
  }

  static let spec = CommandSpec(
    name: "export",
    abstract: "Write the data folder to a verified archive.",
    discussion: """
      Writes every document, conflict copy and other file of the data folder under a top \
      folder Minuta/, sorted, followed by a manifest Minuta/.mn-manifest.json that lists \
      each file's size, sha256 and kind, and each document's change count and heads (from \
      the heads the document stores and the hashes of its change chunks; a document whose \
      shape leaves them in doubt is decoded in full). Local files (.nosync: the lock, mn's \
      temporaries) are never exported. The archive is written to a temporary file beside \
      the output, read back and checked against the manifest (by a second thread that \
      follows the writer, never past what is written), then renamed into place: a failed \
      export leaves no partial archive. An output inside the data folder is refused (it \
      would be synced and exported again).

      The format comes from --format or the output's extension (.tar, .tar.gz or .tgz, \
      .tar.xz, .tar.zst, .zip); the default output is minuta-YYYYMMDD-HHMMSS.tar.gz (UTC) in \
      the current directory, and -o - streams to standard output (tar.gz unless --format \
      says otherwise; never to a terminal). The path and a summary (files, bytes, sha256) \
      are printed on standard error, or as JSON on standard output with --json.

      A placeholder (a file not downloaded) means the folder is incomplete: the export \
      stops with 69 and lists them, unless --allow-placeholders lists them as missing in the \
      manifest. --reproducible fixes times and owners so the same folder gives the same \
      bytes, in any time zone (zip times, local by the format, are then written in UTC). An \
      export takes no lock: documents are only ever replaced by rename, so each file is read \
      whole and consistent, and another writer (the app) is never kept waiting while a \
      large archive is written or a slow pipe drains.
      """,
    options: [
      Options.output, Options.format, Options.allowPlaceholders, Options.reproducible,
      Options.noVerify,
    ],
    flags: [.needsStore],
    exits: [.ok, .usage, .dataErr, .noInput, .unavailable, .cantCreate, .ioErr],
    examples: [
      Example("mn export", "Write minuta-YYYYMMDD-HHMMSS.tar.gz in the current directory."),
      Example("mn export -o ~/minuta.zip", "Write a zip archive."),
      Example(
        "mn export -o - | ssh host 'cat > minuta.tar.gz'", "Stream the archive elsewhere."),
      Example(
        "mn export --reproducible -o a.tar.zst", "The same folder always gives the same bytes."),
    ],
    run: .inFolder(run))

  static func run(_ call: Invocation, _ root: AbsolutePath, _ env: Environment) throws -> ExitStatus
  {
    let target = try ExportTarget.resolve(
      call, output: call[Options.output], format: call[Options.format], env)
    if case .file(let path) = target.output {
      try ExportTarget.refuseInside(root: root, output: path, env.fileSystem)
    }
    let listing = try env.scanFolder(root)
    if !call.global.quiet {
      for problem in listing.problems { try env.stderr.write("mn: warning: \(problem)\n") }
    }
    // A placeholder left beside a downloaded document (stale) stands for nothing missing.
    let stale = Set(
      listing.documents.filter(\.isDownloaded).flatMap { $0.placeholders.map(\.path) })
    let files = FolderFiles.exportFiles(listing, includeCopies: true)
      .filter { $0.kind != .placeholder || !stale.contains($0.absolutePath) }
    let options = ExportOptions(
      format: target.format, version: CommandTable.version,
      reproducible: call[Options.reproducible], verify: !call[Options.noVerify],
      allowPlaceholders: call[Options.allowPlaceholders])
    let progress = Progress(env, call, label: "export", total: files.count)
    let summary = try export(root, files, target, options, env) { progress.advance(item: $0) }
    progress.finish()
    if call.global.json {
      try env.stdout.writeJSON(json(summary))
    } else if !call.global.quiet {
      try env.stderr.write(
        "mn: wrote '\(target.display)': \(summary.entries) files, \(summary.bytes) bytes, "
          + "\(summary.verified ? "verified" : "not verified"), sha256 \(summary.sha256)\n")
    }
    if !summary.missing.isEmpty && !call.global.quiet {
      try env.stderr.write(
        "mn: warning: \(summary.missing.count) file(s) not downloaded are listed as missing: "
          + summary.missing.map { "'\($0)'" }.joined(separator: ", ") + "\n")
    }
    return .ok
  }

  /// Runs the exporter, turning its placeholder refusal into a list the user can act on.
  static func export(
    _ root: AbsolutePath, _ files: [ExportFile], _ target: ExportTarget, _ options: ExportOptions,
    _ env: Environment, progress: ((String) -> Void)?
  ) throws -> ExportSummary {
    do {
      return try Exporter.export(
        root: root.string, files: files, output: target.output, options: options,
        now: env.nowSeconds,
        fileSystem: env.fileSystem, inspect: DocumentTools.inspect, progress: progress)
    } catch {
      guard case .placeholdersPresent(let paths) = error else { throw error }
      throw CommandError.incompleteFolder(paths)
    }
  }

  static func json(_ summary: ExportSummary) -> JSONValue {
    .object([
      ("path", summary.path.map(JSONValue.path) ?? .null),
      ("format", .string(summary.format.rawValue)),
      ("files", .int(Int64(summary.entries))),
      ("documents", .int(Int64(summary.manifest.files.filter { $0.kind == .document }.count))),
      ("bytes", .int(summary.bytes)),
      ("sha256", .string(summary.sha256)),
      ("verified", .bool(summary.verified)),
      ("created", .string(summary.manifest.created)),
      ("missing", .array(summary.missing.map(JSONValue.string))),
    ])
  }
}
