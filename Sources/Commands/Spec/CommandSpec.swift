import Platform

/// What the dispatcher does for a command before and after running it.
public struct CommandFlags: OptionSet, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Resolve the data folder first (mn.md §2); its absence is exit 66.
  public static let needsStore = CommandFlags(rawValue: 1 << 0)
  /// Hold the store's write lock around `run` (mn.md §6).
  public static let writesStore = CommandFlags(rawValue: 1 << 1)
  /// Left out of help, man pages and completion listings.
  public static let hidden = CommandFlags(rawValue: 1 << 2)
}

/// An example for help and man pages: a command line and what it does.
public struct Example: Sendable {
  public var command: String
  public var explanation: String
  public init(_ command: String, _ explanation: String) {
    self.command = command
    self.explanation = explanation
  }
}

/// What a verb runs, and what the dispatcher hands it.
public enum Runner: Sendable {
  /// A verb that needs no data folder.
  case plain(@Sendable (Invocation, Environment) throws -> ExitStatus)
  /// A `.needsStore` or `.writesStore` verb: the dispatcher discovers the data folder first
  /// (exit 66 with a message when there is none) and hands it over as `root`.
  case inFolder(@Sendable (Invocation, _ root: AbsolutePath, Environment) throws -> ExitStatus)
}

/// One verb of `mn`, described once as data (style.md (b)).
public struct CommandSpec: Sendable {

  /// The verb, kebab-case (`merge-conflicts`).
  public var name: String
  /// One line, capitalised, ending with a period.
  public var abstract: String
  /// Paragraphs for the man page's DESCRIPTION and long help.
  public var discussion: String
  /// Other names the verb answers to; parsed like `name`, listed in help and completions.
  public var aliases: [String]
  public var arguments: [ArgumentSpec]
  /// The verb's own options (the global ones are `CommandTable.globalOptions`).
  public var options: [OptionSpec]
  /// The groups of mutually exclusive options; members may be global options.
  public var groups: [OptionGroup]
  /// The groups whose members need another option (`requires:`), exclusive or not.
  public var requirements: [OptionGroup]
  public var flags: CommandFlags
  /// The exit statuses the command can return, `ok` first.
  public var exits: [ExitStatus]
  public var examples: [Example]
  /// Sub-verbs (`mn doc info`); a command with sub-verbs has no `run` of its own.
  public var subcommands: [CommandSpec]
  /// The sub-verb that runs when none is given (`mn backups` is `mn backups list`); nil
  /// makes a missing sub-verb a usage error.
  public var defaultSubcommand: String?
  public var run: Runner?

  /// Creates a command spec.
  ///
  /// `options` takes the verb's declarations (`Flag`, `Option`, `FlagChoice`,
  /// `OptionGroup`), in the order help lists them; they give `options` and `groups`.
  public init(
    name: String, abstract: String, discussion: String = "", aliases: [String] = [],
    arguments: [ArgumentSpec] = [],
    options: [any OptionDeclaration] = [], flags: CommandFlags = [],
    exits: [ExitStatus] = [.ok, .usage],
    examples: [Example] = [], subcommands: [CommandSpec] = [], defaultSubcommand: String? = nil,
    run: Runner? = nil
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.aliases = aliases
    self.arguments = arguments
    // Closures, not key paths: a key path is built at run time from its type's mangled name,
    // and these run at every start for the whole table (0.4 M instructions for `ls`'s and
    // `resolve`'s choices alone).
    let declared = options.compactMap { $0.optionGroup }
    let requirements = declared.filter { $0.requires != nil }
    self.options = options.flatMap { $0.optionSpecs }.map { option in
      var option = option
      option.requires = requirements.first { $0.names.contains(option.name) }?.requires
      return option
    }
    self.groups = declared.filter { $0.isExclusive }
    self.requirements = requirements
    self.flags = flags
    self.exits = exits
    self.examples = examples
    self.subcommands = subcommands
    self.defaultSubcommand = defaultSubcommand
    self.run = run
  }
}
