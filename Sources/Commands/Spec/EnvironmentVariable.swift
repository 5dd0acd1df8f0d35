/// An environment variable that `mn` reads, for the man pages' ENVIRONMENT section.
public struct EnvironmentVariable: Sendable {
  /// The variable's name (`MINUTA_STORAGE`).
  public var name: String
  /// What it does: one or more sentences.
  public var help: String

  /// Creates an entry.
  public init(_ name: String, _ help: String) {
    self.name = name
    self.help = help
  }
}
