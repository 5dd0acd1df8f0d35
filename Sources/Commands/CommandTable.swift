/// Every verb of `mn`, its global options and its exit codes (style.md (b)).
///
/// Dispatch, help, man pages and completion scripts are all computed from this table.
public enum CommandTable {
  /// The verbs, in the order help lists them.
  public static let commands: [CommandSpec] = [
    Resolve.spec, Ls.spec, Log.spec, Diff.spec, Fetch.spec, MergeConflicts.spec, Compact.spec,
    Migrate.spec, Export.spec, Restore.spec, Repair.spec, Watch.spec, Lock.spec, Backups.spec,
    Doctor.spec, Doc.spec,
    Help.spec, Completion.spec, Complete.spec, GenerateDocs.spec,
  ]

  /// Options every verb accepts, before or after the verb (mn.md §11).
  public static let globalOptions: [OptionSpec] = [
    Global.root.spec, Global.json.spec, Global.quiet.spec, Global.verbose.spec,
    Global.noColor.spec, Global.noProgress.spec, Global.help.spec, Global.version.spec,
  ]

  /// The global options as values; the parser fills `GlobalOptions` from them, and a verb
  /// names one in a group (`ls`: `--long`, `--json` or `-0`).
  public enum Global {
    public static let root = Option<String>(
      "root", .directory, valueName: "PATH",
      help: "Use this data folder instead of discovering one.")
    public static let json = Flag.global(
      "json", help: "Print machine-readable JSON on standard output.")
    public static let quiet = Flag.global("quiet", short: "q", help: "Print only errors.")
    public static let verbose = Flag.global(
      "verbose", short: "v", help: "Print more about what is done.")
    public static let noColor = Flag.global(
      "no-color", help: "Do not color the output (also: the NO_COLOR variable).")
    public static let noProgress = Flag.global("no-progress", help: "Do not show progress bars.")
    public static let help = Flag.global(
      "help", short: "h", help: "Show help for mn or for the verb.")
    public static let version = Flag.global("version", help: "Print the version of mn.")
  }

  /// The version printed by `mn --version` and written into manifests.
  public static let version = "0.1.0"

  /// The date printed in man pages; a constant, never the clock.
  public static let manualDate = "November 30, 2026"
}
