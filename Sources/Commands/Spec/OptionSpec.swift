/// One option of a command or a global option, as data.
public struct OptionSpec: Sendable {
  /// The long name, kebab-case, without dashes (`dry-run`).
  public var name: String
  /// The one-letter short form, if any.
  public var short: Character?
  /// The kind of value it takes; nil for a flag.
  public var value: ValueKind?
  /// The value's name in help and man pages (`SECONDS`).
  public var valueName: String
  /// One line of help, starting with a capital letter and ending with a period.
  public var help: String
  /// Whether the option may be given more than once (values accumulate).
  public var repeatable: Bool
  /// The value used when the option is not given, as it would be typed (`10`); help, man
  /// pages and completions add `(default 10)` to `help`, and the verb reads the same value
  /// (`DefaultedOption`). Nil when there is none.
  public var defaultValue: String?
  /// The long name of the option this one needs (`fetch` for `--fetch-from`), from a group's
  /// `requires:`; help, man pages and completions lead `help` with `With --fetch:`. The
  /// parser refuses the option without it.
  public var requires: String?

  /// A flag: takes no value.
  public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
    OptionSpec(name: name, short: short, value: nil, valueName: "", help: help, repeatable: false)
  }

  /// An option that takes a value.
  public static func option(
    _ name: String, short: Character? = nil, _ kind: ValueKind, valueName: String, help: String,
    repeatable: Bool = false, defaultValue: String? = nil
  ) -> OptionSpec {
    OptionSpec(
      name: name, short: short, value: kind, valueName: valueName, help: help,
      repeatable: repeatable, defaultValue: defaultValue)
  }
}

/// A positional argument of a command.
public struct ArgumentSpec: Sendable {
  /// Its name in usage lines, upper case (`PATH`).
  public var name: String
  /// One line of help.
  public var help: String
  /// What it is, for completion.
  public var kind: ValueKind
  /// Whether it may be left out.
  public var optional: Bool
  /// Whether it takes any number of values (`PATH...`).
  public var variadic: Bool

  /// Creates an argument spec.
  public init(
    _ name: String, _ kind: ValueKind, help: String, optional: Bool = false,
    variadic: Bool = false
  ) {
    self.name = name
    self.kind = kind
    self.help = help
    self.optional = optional
    self.variadic = variadic
  }
}
