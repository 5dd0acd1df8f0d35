/// Every generated file of the repository, by path relative to its root.
///
/// `mn __generate-docs` writes them and the drift test compares them with the checked-in
/// copies: `completions/mn.bash`, `completions/_mn`, `completions/mn.fish`, `man/mn.1` and
/// `man/mn-VERB.1` for every visible verb.
public enum DocsGenerator {
  /// The folders that hold only generated files.
  public static let folders = ["completions", "man"]

  /// The generated files by relative path.
  public static func files(
    commands: [CommandSpec] = CommandTable.commands,
    globals: [OptionSpec] = CommandTable.globalOptions
  ) -> [String: String] {
    var files: [String: String] = [:]
    for (name, text) in CompletionRenderer.scripts(commands: commands, globals: globals) {
      files["completions/" + name] = text
    }
    for (name, text) in ManPageRenderer.pages(commands: commands, globals: globals) {
      files["man/" + name] = text
    }
    return files
  }

  /// Whether `name`, a file in one of `folders`, is one the generator writes (and may
  /// therefore remove when it is stale).
  public static func isGenerated(folder: String, name: String) -> Bool {
    switch folder {
    case "completions": return Shell.allCases.contains { $0.fileName == name }
    case "man": return name.hasPrefix("mn") && name.hasSuffix(".1")
    default: return false
    }
  }
}
