/// Word wrapping and two-column lists for help text.
enum TextLayout {
  /// The width help text is wrapped to; fixed, so that help and its snapshots never depend
  /// on the terminal.
  static let width = 80

  /// Wraps `text` (one paragraph; runs of white space collapse) to lines of at most `width`
  /// columns, the first prefixed by `first` and the others by `rest`.
  static func wrap(_ text: String, width: Int = width, first: String, rest: String) -> [String] {
    var lines: [String] = []
    var line = first
    var lineHasWord = false
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      if lineHasWord, line.count + 1 + word.count > width {
        lines.append(line)
        line = rest + word
      } else {
        line += (lineHasWord ? " " : "") + word
      }
      lineHasWord = true
    }
    lines.append(line)
    return lines
  }

  /// Splits text into paragraphs at blank lines. A paragraph whose lines all start with two
  /// spaces is verbatim (an example or a listing) and comes back with `verbatim` set.
  static func paragraphs(_ text: String) -> [(text: String, verbatim: Bool)] {
    var result: [(String, Bool)] = []
    var current: [Substring] = []
    func flush() {
      guard !current.isEmpty else { return }
      let verbatim = current.allSatisfy { $0.hasPrefix("  ") }
      result.append((current.joined(separator: "\n"), verbatim))
      current = []
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.allSatisfy({ $0 == " " }) { flush() } else { current.append(line) }
    }
    flush()
    return result
  }

  /// A two-column list: labels indented by two, texts aligned and wrapped; a label too wide
  /// for the column puts its text on the next line.
  static func columns(_ rows: [(label: String, text: String)], maxColumn: Int = 26) -> [String] {
    let widest = rows.map(\.label.count).max() ?? 0
    let column = min(widest + 4, maxColumn)
    let indent = String(repeating: " ", count: column)
    var lines: [String] = []
    for row in rows {
      let label = "  " + row.label
      if label.count + 2 <= column {
        let first = label + String(repeating: " ", count: column - label.count)
        lines += wrap(row.text, first: first, rest: indent)
      } else {
        lines.append(label)
        lines += wrap(row.text, first: indent, rest: indent)
      }
    }
    return lines
  }
}
