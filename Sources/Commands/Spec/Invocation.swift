/// The global options of mn.md §11, parsed.
public struct GlobalOptions: Sendable {
  public var root: String?
  public var json = false
  public var quiet = false
  public var verbose = false
  public var noColor = false
  public var noProgress = false
  public init() {}
}

/// A parsed command line: the verb path, its option values and arguments.
///
/// A verb reads its options through the values it declares: `call[Ls.Options.form]`,
/// `call[Watch.Options.quietFor]`; there is no lookup by name.
public struct Invocation: Sendable {
  /// The verb path, e.g. `["doc", "info"]`.
  public var path: [String]
  /// The spec of the verb that runs.
  public var spec: CommandSpec
  /// Option values by long name, in command-line order.
  public var values: [String: [String]]
  /// Flags that were given, by long name.
  public var flags: Set<String>
  /// Positional arguments.
  public var arguments: [String]
  public var global: GlobalOptions

  public init(
    path: [String], spec: CommandSpec, values: [String: [String]] = [:], flags: Set<String> = [],
    arguments: [String] = [], global: GlobalOptions = GlobalOptions()
  ) {
    self.path = path
    self.spec = spec
    self.values = values
    self.flags = flags
    self.arguments = arguments
    self.global = global
  }

  /// Whether the flag was given.
  public subscript(_ flag: Flag) -> Bool { flags.contains(flag.spec.name) }

  /// The last value given for the option, typed; nil when it was not given.
  public subscript<Value>(_ option: Option<Value>) -> Value? {
    values[option.spec.name]?.last.flatMap(option.convert)
  }

  /// The last value given for the option, typed, or its declared default.
  public subscript<Value>(_ option: DefaultedOption<Value>) -> Value {
    self[option.option] ?? option.defaultValue
  }

  /// The last value given for the option as typed, or its default as help prints it.
  public func word<Value>(for option: DefaultedOption<Value>) -> String {
    word(for: option.spec) ?? option.defaultWord
  }

  /// Every value given for a repeatable option, in command-line order.
  public subscript<Value>(all option: Option<Value>) -> [Value] {
    (values[option.spec.name] ?? []).compactMap(option.convert)
  }

  /// The case of the flag that was given (the first in declaration order: the parser has
  /// refused two); nil when none was.
  public subscript<Choice>(_ choice: FlagChoice<Choice>) -> Choice? {
    choice.cases.first { self[$0.flag] }?.choice
  }

  /// Whether an option of the spec was given at all (flag or value), for code that walks
  /// the spec's options (`mn watch --service` repeats them).
  public func isGiven(_ option: OptionSpec) -> Bool {
    option.takesValue ? values[option.name] != nil : flags.contains(option.name)
  }

  /// The last value given for an option of the spec, as typed on the command line.
  public func word(for option: OptionSpec) -> String? { values[option.name]?.last }
}
