/// A command line that `mn` cannot accept: exit 64 (style.md (c)).
///
/// The dispatcher prints `mn: error: <message>` and then `see 'mn <verb> --help'` (or
/// `see 'mn --help'` when `path` is empty) on standard error.
public struct UsageError: Error, Equatable, Sendable {
  /// What is wrong, lowercase, no trailing period, the subject in single quotes.
  public var message: String
  /// The verb path the error belongs to (`["doc", "info"]`); empty for the top level.
  public var path: [String]

  /// Creates a usage error.
  public init(message: String, path: [String]) {
    self.message = message
    self.path = path
  }

  /// The pointer line printed after the message: `see 'mn resolve --help'`.
  public var seeAlso: String {
    path.isEmpty ? "see 'mn --help'" : "see 'mn \(path.joined(separator: " ")) --help'"
  }
}
