/// Something a verb declares in its spec's `options`: a `Flag`, an `Option`, a `FlagChoice`
/// or an `OptionGroup` (style.md (b)).
///
/// The spec keeps the option specs and the groups; help, man pages, completions and the
/// parser read them from there, and the verb reads its values back through the same
/// declarations (`call[Ls.Options.long]`), so that a name it does not declare does not
/// compile.
public protocol OptionDeclaration: Sendable {
  /// The options it adds to the verb's spec (none for a global flag or a bare group).
  var optionSpecs: [OptionSpec] { get }
  /// The group of mutually exclusive options it declares, if any.
  var optionGroup: OptionGroup? { get }
}

extension OptionSpec: OptionDeclaration {
  public var optionSpecs: [OptionSpec] { [self] }
  public var optionGroup: OptionGroup? { nil }
}

/// A flag, owned by the verb (or, for the global ones, by the command table) that declares
/// it; `call[flag]` says whether it was given.
public struct Flag: OptionDeclaration {
  /// The flag as the table describes it.
  public let spec: OptionSpec
  /// Whether it is one of the global options (`--json`): then a verb names it only in a group.
  public let isGlobal: Bool

  /// Declares a flag of a verb.
  public init(_ name: String, short: Character? = nil, help: String) {
    spec = .flag(name, short: short, help: help)
    isGlobal = false
  }

  /// Declares a global flag (`CommandTable.Global`).
  public static func global(_ name: String, short: Character? = nil, help: String) -> Flag {
    Flag(spec: .flag(name, short: short, help: help), isGlobal: true)
  }

  private init(spec: OptionSpec, isGlobal: Bool) {
    self.spec = spec
    self.isGlobal = isGlobal
  }

  public var optionSpecs: [OptionSpec] { isGlobal ? [] : [spec] }
  public var optionGroup: OptionGroup? { nil }
}

/// An option that takes a value, owned by the verb that declares it; `call[option]` is its
/// last value as a `Value`, `call[all: option]` every value of a repeatable one.
///
/// The parser has checked the word against the option's `ValueKind` before the verb runs,
/// so the conversion to `Value` is the kind's own (`.seconds` to `Double`, `.count` to
/// `Int`, `.choice` to the choice's enum).
public struct Option<Value: Sendable>: OptionDeclaration {
  /// The option as the table describes it.
  public let spec: OptionSpec
  /// The typed value of a word the parser accepted for the option's kind.
  let convert: @Sendable (String) -> Value?

  public var optionSpecs: [OptionSpec] { [spec] }
  public var optionGroup: OptionGroup? { nil }
}

extension Option where Value == String {
  /// Declares an option whose value is a word: text, a path, a directory, a document or a
  /// command line.
  public init(
    _ name: String, short: Character? = nil, _ kind: ValueKind, valueName: String, help: String,
    repeatable: Bool = false
  ) {
    spec = .option(
      name, short: short, kind, valueName: valueName, help: help, repeatable: repeatable)
    convert = { $0 }
  }
}

extension Option where Value == Double {
  /// Declares an option that takes a number of seconds (`1.5`).
  public static func seconds(_ name: String, valueName: String = "SECONDS", help: String)
    -> Option<Double>
  {
    Option(spec: .option(name, .seconds, valueName: valueName, help: help), convert: Double.init)
  }
}

extension Option where Value == Double {
  /// Declares an option that takes a number of seconds and has a default: the one place the
  /// default is written. Help, man pages and completions say `(default 10)`, and
  /// `call[option]` is the default when the option is not given.
  public static func seconds(
    _ name: String, valueName: String = "SECONDS", default value: Double, help: String
  ) -> DefaultedOption<Double> {
    let word = DefaultedOption<Double>.word(for: value)
    return DefaultedOption(
      option: Option(
        spec: .option(name, .seconds, valueName: valueName, help: help, defaultValue: word),
        convert: Double.init),
      defaultValue: value)
  }
}

extension Option where Value == Int {
  /// Declares an option that takes a non-negative whole number.
  public static func count(_ name: String, valueName: String = "N", help: String) -> Option<Int> {
    Option(spec: .option(name, .count, valueName: valueName, help: help)) { Int($0) }
  }
}

extension Option where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
  /// Declares an option whose value is one of the raw values of `Value`, in case order.
  public static func choice(
    _ name: String, of type: Value.Type = Value.self, valueName: String, help: String
  ) -> Option<Value> {
    Option(
      spec: .option(
        name, .choice(type.allCases.map { $0.rawValue }), valueName: valueName, help: help),
      convert: Value.init(rawValue:))
  }
}

/// An option with a default value, declared once (`Option.seconds(_:default:help:)`);
/// `call[option]` is its last value, or the default when it was not given.
public struct DefaultedOption<Value: Sendable>: OptionDeclaration {
  /// The option; its spec's `defaultValue` is `defaultValue` as typed.
  public let option: Option<Value>
  /// The value used when the option is not given.
  public let defaultValue: Value

  /// The option as the table describes it.
  public var spec: OptionSpec { option.spec }
  /// The default as it would be typed (`10`, `1.5`), as help prints it.
  public var defaultWord: String { option.spec.defaultValue ?? "" }

  public var optionSpecs: [OptionSpec] { [option.spec] }
  public var optionGroup: OptionGroup? { nil }

  /// A number of seconds as it is typed: `10`, not `10.0`.
  static func word(for seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
  }
}

/// How many options of a group may be given.
public enum Exclusivity: Sendable, Equatable {
  /// None or one of them.
  case atMostOne
  /// Exactly one of them.
  case exactlyOne
  /// Any of them: a group that only says what its members need (`requires:`).
  case anyNumber
}

/// Options that exclude one another, declared once in the spec (swift-argument-parser's
/// `FlagExclusivity`, for options of any kind).
///
/// The parser refuses two of them with one message form, `--a and --b cannot be used
/// together`; help and man pages name the group, and the completion scripts stop offering
/// an option once one of its partners is on the command line.
public struct OptionGroup: OptionDeclaration, Equatable {
  /// The long names of the members, in the order help lists them; a member may be a global
  /// option (`json`).
  public var names: [String]
  public var exclusivity: Exclusivity
  /// The long name of the option that each member needs (`fetch`): the parser refuses a
  /// member without it, `--fetch-from needs --fetch`, and help leads each member's line
  /// with `With --fetch:`. Nil when the members need nothing.
  public var requires: String?

  /// A group of the options `members`, which need `requires` when it is given.
  public init(
    _ exclusivity: Exclusivity, _ members: [any OptionDeclaration],
    requires: (any OptionDeclaration)? = nil
  ) {
    self.exclusivity = exclusivity
    names = members.flatMap(Self.names)
    self.requires = requires.flatMap { Self.names(of: $0).first }
  }

  /// The long names a declaration stands for; a global flag's too.
  private static func names(of member: any OptionDeclaration) -> [String] {
    if let flag = member as? Flag { return [flag.spec.name] }
    return member.optionSpecs.map { $0.name }
  }

  /// Options that may be given only with `option`, any number of them.
  public static func requiring(
    _ option: any OptionDeclaration, _ members: any OptionDeclaration...
  ) -> OptionGroup {
    OptionGroup(.anyNumber, members, requires: option)
  }

  /// Whether the group limits how many of its members may be given (help and man pages
  /// state it, the completion scripts follow it).
  public var isExclusive: Bool { exclusivity != .anyNumber }

  /// Options of which at most one may be given.
  public static func atMostOne(_ members: any OptionDeclaration...) -> OptionGroup {
    OptionGroup(.atMostOne, members)
  }

  /// Options of which exactly one must be given.
  public static func exactlyOne(_ members: any OptionDeclaration...) -> OptionGroup {
    OptionGroup(.exactlyOne, members)
  }

  public var optionSpecs: [OptionSpec] { [] }
  public var optionGroup: OptionGroup? { self }

  /// How help and man pages state the group: `At most one of --a, --b and --c.`
  public var sentence: String {
    let words = names.map { "--" + $0 }
    let list =
      words.count > 1
      ? words.dropLast().joined(separator: ", ") + " and " + words[words.count - 1]
      : words.joined()
    return (exclusivity == .atMostOne ? "At most one of " : "Exactly one of ") + list + "."
  }
}

/// A choice between flags, each standing for one case of `Choice`, of which at most (or
/// exactly) one may be given: `--long | --json | -0` reads as `Ls.Form?`
/// (swift-argument-parser's `EnumerableFlag`).
public struct FlagChoice<Choice: Sendable & Equatable>: OptionDeclaration {
  /// The flags, each with the case it stands for, in the order help lists them.
  public let cases: [(choice: Choice, flag: Flag)]
  public let exclusivity: Exclusivity
  // Worked out once here: the table reads them through `any OptionDeclaration` at every
  // start, where walking `cases` (an array of generic tuples) makes the runtime build its
  // type metadata from mangled names (0.28 M instructions for ls's and resolve's choices).
  public let optionSpecs: [OptionSpec]
  public let optionGroup: OptionGroup?

  /// Declares a choice; `cases` names each flag's case.
  public init(_ cases: [(Choice, Flag)], exclusivity: Exclusivity = .atMostOne) {
    var flags: [Flag] = []
    var specs: [OptionSpec] = []
    for (_, flag) in cases {
      flags.append(flag)
      specs += flag.optionSpecs
    }
    self.cases = cases.map { (choice: $0.0, flag: $0.1) }
    self.exclusivity = exclusivity
    optionSpecs = specs
    optionGroup = OptionGroup(exclusivity, flags)
  }
}
