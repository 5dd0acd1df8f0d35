import Platform

/// The lines that say how a document was replaced (mn.md §6): with `-v`, the way each
/// replace went; always, an arrival that could not be merged and was kept beside it.
enum ReplaceNote {
  /// Writes the notes for one document to stderr.
  static func write(
    _ logicalName: String, _ summary: ReplaceOutcome.Summary?, _ call: Invocation,
    _ env: Environment
  ) {
    guard let summary else { return }
    for aside in summary.keptAside where !call.global.quiet {
      try? env.stderr.write(
        "mn: warning: '\(logicalName)' was replaced meanwhile by a file that is not a readable "
          + "document; it is kept as '\(aside)'\n")
    }
    guard call.global.verbose else { return }
    try? env.stderr.write("mn: replaced '\(logicalName)' \(describe(summary))\n")
  }

  /// "by exchange", "by exchange, merging 1 version that arrived meanwhile", …
  static func describe(_ summary: ReplaceOutcome.Summary) -> String {
    let way =
      switch summary.route {
      case .exchange: "by exchange"
      case .exclusive: "as a new file (rename without overwrite)"
      case .compared: "by compare and rename (the file system cannot exchange)"
      case .replacedItem: "by the sync provider's replace (replaceItemAt), keeping a backup item"
      }
    let arrivals = summary.arrivals
    guard arrivals.total > 0 else { return way }
    let versions = arrivals.total == 1 ? "1 version" : "\(arrivals.total) versions"
    let found = [
      (arrivals.beforePlacing, "found in place before"),
      (arrivals.displaced, "displaced by the exchange"), (arrivals.afterPlacing, "found after"),
    ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
    return way + ", merging \(versions) that arrived meanwhile (\(found.joined(separator: ", ")))"
  }
}
