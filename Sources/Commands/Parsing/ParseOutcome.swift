/// What a command line asks for, once parsed.
public enum ParseOutcome: Sendable {
  /// Run a verb.
  case run(Invocation)
  /// Print help for the verb path (empty: the top-level help), on standard output, exit 0.
  case help(path: [String])
  /// Print the version, exit 0.
  case version
}
