/// The options of `mn migrate` (mn.md §7), as values the verb reads back.
extension Migrate {
  enum Options {
    static let from = Option<String>(
      "from", .directory, valueName: "DIR",
      help: "The folder to migrate from (default: the local folder).")
    static let to = Option<String>(
      "to", .directory, valueName: "DIR",
      help: "The folder to migrate into (default: the iCloud Drive container).")
    static let dryRun = Flag("dry-run", help: "Print the plan and check it; change nothing.")
    static let yes = Flag("yes", short: "y", help: "Do not ask for confirmation.")
    static let keepSource = Flag(
      "keep-source", help: "Copy instead of move: remove nothing from the source.")
    static let fetch = Flag(
      "fetch",
      help:
        "First fetch every placeholder and stale file of both folders, as 'mn fetch' does (not with --dry-run)."
    )
    /// `mn fetch`'s options under a `fetch-` prefix, only with `--fetch`.
    static let fetchNames = FetchOptionNames(verb: "migrate", prefix: "fetch-", requires: fetch)
    /// In the order help lists them.
    static let all: [any OptionDeclaration] =
      [from, to, dryRun, yes, keepSource, fetch] + fetchNames.options
      + [CommonOptions.wait]
  }
}
