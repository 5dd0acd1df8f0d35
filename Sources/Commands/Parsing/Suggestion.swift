/// "Did you mean" for unknown verbs, options and choice words.
enum Suggestion {
  /// The candidate closest to `word`: the only one it is a prefix of, else the nearest by
  /// edit distance when that distance is small for the word's length (the first on a tie);
  /// nil when none fits.
  static func closest(to word: String, in candidates: [String]) -> String? {
    guard !word.isEmpty else { return nil }
    let prefixed = candidates.filter { $0.hasPrefix(word) }
    if prefixed.count == 1 { return prefixed[0] }
    let limit = max(2, word.count / 3)
    var best: (name: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(word, candidate)
      if distance <= limit, distance < (best?.distance ?? Int.max) {
        best = (candidate, distance)
      }
    }
    return best?.name
  }

  /// The optimal string alignment distance: insertions, deletions, substitutions and
  /// transpositions of neighbours each cost one.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a)
    let y = Array(b)
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var rows = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { rows[i][0] = i }
    for j in 0...y.count { rows[0][j] = j }
    for i in 1...x.count {
      for j in 1...y.count {
        let cost = x[i - 1] == y[j - 1] ? 0 : 1
        var value = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
        if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
          value = min(value, rows[i - 2][j - 2] + 1)
        }
        rows[i][j] = value
      }
    }
    return rows[x.count][y.count]
  }

  /// `"; did you mean 'x'?"`, or the empty string.
  static func suffix(for word: String, in candidates: [String]) -> String {
    guard let match = closest(to: word, in: candidates) else { return "" }
    return "; did you mean '\(match)'?"
  }
}
