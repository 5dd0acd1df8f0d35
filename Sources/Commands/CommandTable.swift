/// Every verb of `mn`, its global options and its exit codes (style.md (b)).
public enum CommandTable {
  /// The verbs, in the order help lists them.
  public static let commands: [CommandSpec] = []
}
