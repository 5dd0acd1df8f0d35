/// What an option value or argument is, for parsing, help and completion.
public enum ValueKind: Equatable, Sendable {
  /// Free text.
  case text
  /// A whole number of seconds (may be fractional).
  case seconds
  /// A non-negative whole number.
  case count
  /// Any path on disk (completed as files).
  case path
  /// A directory (completed as directories).
  case directory
  /// A document of the data folder (completed through `mn __complete`).
  case document
  /// One of a fixed set of words.
  case choice([String])
  /// A shell command line.
  case command
}
