import Platform
import Storage

/// A one-line progress bar on standard error, drawn only on a terminal (mn.md §11).
///
/// Disabled by `--no-progress`, `--quiet`, `--json` or a standard error that is not a
/// terminal; then every call does nothing. Redraws at most every 0.1 s.
final class Progress {
  private let env: Environment
  private let label: String
  private let total: Int
  private let enabled: Bool
  private var done = 0
  private var lastDraw: Double = -1

  init(_ env: Environment, _ call: Invocation, label: String, total: Int) {
    self.env = env
    self.label = label
    self.total = max(total, 1)
    enabled =
      env.stderrIsTerminal && !call.global.noProgress && !call.global.quiet
      && !call.global.json
  }

  /// Counts `count` more units done; `item` names what is being worked on.
  func advance(by count: Int = 1, item: String = "") {
    done += count
    guard enabled else { return }
    let now = env.now()
    guard now - lastDraw >= 0.1 || done >= total else { return }
    lastDraw = now
    let width = 24
    let filled = min(width, done * width / total)
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    var line = "\(label) [\(bar)] \(done)/\(total) \(item)"
    if line.count > 79 { line = String(line.prefix(79)) }
    try? env.stderr.write("\r\u{1b}[K" + line)
  }

  /// Clears the bar's line.
  func finish() {
    guard enabled, lastDraw >= 0 else { return }
    try? env.stderr.write("\r\u{1b}[K")
  }
}

extension Environment {
  /// The backup directory of mn.md §8 (`MN_BACKUP_DIR`, else the state directory).
  func backupDirectory() throws -> AbsolutePath {
    guard
      let dir = WellKnownPaths.backupDirectory(
        variables: system.variables, isDarwin: Environment.isDarwin)
    else { throw CommandError.noBackupDirectory }
    return AbsolutePath(normalizing: dir, relativeTo: currentDirectory)
  }
}
