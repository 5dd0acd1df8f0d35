import AutomergeCodec
import Operations
import Platform
import Storage

/// `mn doctor`: one health report of the data folder (mn.md §11).
enum Doctor {
  static let spec = CommandSpec(
    name: "doctor",
    abstract: "Check the data folder and say what needs attention.",
    discussion: """
      Reports the data folder and how it was found, then everything that needs attention: \
      placeholders (not downloaded), conflict copies, documents and copies that are not \
      valid Automerge files, changes whose dependencies are missing, temporary files left \
      by an interrupted write, documents whose appended chunks make them more than twice \
      their size as one document chunk (mn compact rewrites them), and what the folder scan could not use (symbolic links, \
      documents that are directories). On macOS it also reports dataless documents and \
      folders, stale documents (a newer version not downloaded yet) and documents with \
      unresolved iCloud conflict versions, and says once when the system shows mn no \
      versions at all. There it asks the system first where each file stands and reads \
      only current files, each inside a coordinated read (NSFileCoordinator); a stale or \
      dataless file is reported, never read, since a coordinated read of it would wait for \
      its download. Each finding names what fixes it. The write lock is \
      reported as free or held; a held lock is normal while the app writes. It also \
      reports what a sync engine left that needs a person: rclone bisync's listings of this \
      folder in its work directory after an aborted run (it then needs --force or \
      --resync), and versions in Syncthing's .stversions folder that hold changes the \
      document lacks (the fix copies one beside the document for merge-conflicts). Every document \
      and copy is read and decoded, nothing is written, and no download is triggered. Exits \
      0 when the folder is healthy and 1 when something needs attention.
      """,
    exits: [.ok, .negative, .usage, .noInput],
    examples: [
      Example("mn doctor", "Check the data folder."),
      Example("mn doctor --json | jq -r '.findings[].fix'", "Only the fixes."),
    ],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let found = env.discover(root: call.global.root)
    guard let root = found.root, let source = found.source else {
      throw DiscoveryText.notFound(found)
    }
    // Coordinated reads of current files only (mn.md §15): DoctorOperation asks the provider
    // first and never reads a stale or dataless file, whose coordinated read would wait for
    // its download; materialization is off, so nothing else downloads either.
    let report = try env.syncProvider.withoutMaterializing {
      try DoctorOperation.examine(
        root: root, source: source, warnings: found.warnings, fileSystem: env.fileSystem,
        syncProvider: env.syncProvider, bisyncDirectory: bisyncDirectory(env.variables),
        threads: env.processors())
    }
    if call.global.json {
      try env.stdout.writeJSON(json(report))
    } else if !call.global.quiet {
      try env.stdout.write(text(report))
    }
    return report.isHealthy ? .ok : .negative
  }

  /// rclone bisync's default work directory: `bisync` in rclone's cache directory
  /// (`RCLONE_CACHE_DIR`, else the user's cache directory, as rclone finds it).
  static func bisyncDirectory(_ variables: [String: String]) -> AbsolutePath? {
    if let cache = variables["RCLONE_CACHE_DIR"], !cache.isEmpty {
      return AbsolutePath(cache).appending("bisync")
    }
    guard let home = variables["HOME"], !home.isEmpty else { return nil }
    if Environment.isDarwin { return AbsolutePath(home).appending("Library/Caches/rclone/bisync") }
    let cache = variables["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.cache"
    return AbsolutePath(cache).appending("rclone/bisync")
  }

  static func summary(_ report: DoctorReport) -> String {
    let parts = DocumentState.allCases.compactMap { state in
      report.documents[state].map { "\($0) \(state.rawValue)" }
    }
    return "\(report.documentCount)"
      + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")")
  }

  static func text(_ report: DoctorReport) -> String {
    let source = DiscoveryText.label(report.source)
    var out = "data folder: \(report.root) (from \(source))\n"
    out += "documents:   \(summary(report))\n"
    out += "lock:        \(report.lock)\n"
    for finding in report.findings {
      let named = finding.subject.isEmpty || finding.message.contains("'\(finding.subject)'")
      let subject = named ? "" : "\(finding.subject): "
      out += "\n\(finding.kind.rawValue): \(subject)\(finding.message)\n  fix: \(finding.fix)\n"
    }
    for note in report.notes { out += "\nnote: \(note)\n" }
    let count = report.findings.count
    out +=
      count == 0
      ? "\nhealthy: nothing needs attention\n"
      : "\n\(count) \(count == 1 ? "finding needs" : "findings need") attention\n"
    return out
  }

  static func json(_ report: DoctorReport) -> JSONValue {
    var lock: [(String, JSONValue)] = []
    switch report.lock {
    case .free: lock = [("state", .string("free"))]
    case .held: lock = [("state", .string("held"))]
    case .unknown(let why): lock = [("state", .string("unknown")), ("detail", .string(why))]
    }
    let counts = DocumentState.allCases.map {
      ($0.rawValue, JSONValue.int(Int64(report.documents[$0] ?? 0)))
    }
    return .object([
      ("root", .path(report.root)), ("source", .string(report.source.rawValue)),
      ("healthy", .bool(report.isHealthy)),
      ("documents", .object([("total", .int(Int64(report.documentCount)))] + counts)),
      ("filesDecoded", .int(Int64(report.filesDecoded))),
      ("lock", .object(lock)),
      ("notes", .array(report.notes.map { .string($0) })),
      (
        "findings",
        .array(
          report.findings.map { f in
            .object([
              ("kind", .string(f.kind.rawValue)), ("subject", .string(f.subject)),
              ("message", .string(f.message)), ("fix", .string(f.fix)),
            ])
          })
      ),
    ])
  }
}
