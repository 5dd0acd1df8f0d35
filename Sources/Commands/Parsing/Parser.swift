/// Turns `argv` into a `ParseOutcome`, using only the command table (style.md (b)).
///
/// Pure: it never prints and never exits. Accepted forms: long options `--x v` and `--x=v`;
/// short flags and bundles (`-qv`); short options with a value (`-o FILE`, `-oFILE`); `--`
/// ends options; `-` is an argument (standard input); global options before or after the
/// verb; sub-verbs; repeatable options. `mn`, `mn help [VERB [SUB]]`, `-h` and `--help` ask
/// for help; `--version` for the version.
public enum Parser {
  /// Parses a command line (without the program name).
  ///
  /// - Parameters:
  ///   - arguments: The words after `mn`.
  ///   - commands: The verbs (`CommandTable.commands`).
  ///   - globals: The options every verb accepts (`CommandTable.globalOptions`); those named
  ///     `help` and `version` ask for help and the version.
  /// - Returns: What to do.
  /// - Throws: `UsageError` for anything the table does not accept.
  public static func parse(
    _ arguments: [String], commands: [CommandSpec], globals: [OptionSpec]
  ) throws(UsageError) -> ParseOutcome {
    var state = ParseState(commands: commands, globals: globals)
    var words = arguments[...]
    var optionsEnded = false
    while let word = words.popFirst() {
      if optionsEnded || word == "-" || !word.hasPrefix("-") {
        try state.positional(word)
      } else if word == "--" {
        optionsEnded = true
      } else if word.hasPrefix("--") {
        try state.long(word, rest: &words)
      } else {
        try state.shortBundle(word, rest: &words)
      }
    }
    return try state.finish(emptyCommandLine: arguments.isEmpty)
  }
}

/// The parser's progress through one command line.
private struct ParseState {
  let commands: [CommandSpec]
  let globals: [OptionSpec]
  var path: [String] = []
  var spec: CommandSpec?
  var isHelpVerb = false
  var helpWords: [String] = []
  var values: [String: [String]] = [:]
  var flags: Set<String> = []
  var arguments: [String] = []
  var global = GlobalOptions()
  var helpRequested = false
  var versionRequested = false

  init(commands: [CommandSpec], globals: [OptionSpec]) {
    self.commands = commands
    self.globals = globals
  }

  /// The options accepted at this point: the current verb's, then the globals.
  var accepted: [OptionSpec] { (spec?.options ?? []) + globals }

  mutating func positional(_ word: String) throws(UsageError) {
    if isHelpVerb {
      helpWords.append(word)
      return
    }
    guard let current = spec else {
      if word == "help" {
        isHelpVerb = true
        path = ["help"]
        spec = commands.command(named: "help")
        return
      }
      guard let found = commands.command(named: word) else {
        throw UsageError(
          message: "unknown verb '\(word)'"
            + Suggestion.suffix(for: word, in: commands.visible.flatMap(\.allNames)),
          path: [])
      }
      spec = found
      path = [found.name]
      return
    }
    if !current.subcommands.isEmpty {
      guard let found = current.subcommands.command(named: word) else {
        throw UsageError(
          message: "unknown sub-verb '\(word)' of '\(path.joined(separator: " "))'"
            + Suggestion.suffix(for: word, in: current.visibleSubcommands.flatMap(\.allNames)),
          path: path)
      }
      spec = found
      path.append(found.name)
      return
    }
    arguments.append(word)
  }

  mutating func long(_ word: String, rest: inout ArraySlice<String>) throws(UsageError) {
    let body = word.dropFirst(2)
    let name: String
    var inline: String?
    if let equals = body.firstIndex(of: "=") {
      name = String(body[..<equals])
      inline = String(body[body.index(after: equals)...])
    } else {
      name = String(body)
    }
    guard let option = accepted.first(where: { $0.name == name }) else {
      if helpRequested { return }
      throw UsageError(
        message: "unknown option '--\(name)'"
          + Suggestion.suffix(for: "--\(name)", in: accepted.map { "--\($0.name)" }),
        path: path)
    }
    guard option.takesValue else {
      if inline != nil, !helpRequested {
        throw UsageError(message: "option '--\(name)' takes no value", path: path)
      }
      setFlag(option)
      return
    }
    guard let value = inline ?? rest.popFirst() else {
      if helpRequested { return }
      throw UsageError(message: "option '--\(name)' needs a value", path: path)
    }
    try setValue(value, for: option, label: "--\(name)")
  }

  mutating func shortBundle(_ word: String, rest: inout ArraySlice<String>) throws(UsageError) {
    var letters = word.dropFirst()
    while let letter = letters.popFirst() {
      guard let option = accepted.first(where: { $0.short == letter }) else {
        if helpRequested { continue }
        throw UsageError(message: "unknown option '-\(letter)'", path: path)
      }
      guard option.takesValue else {
        setFlag(option)
        continue
      }
      guard let value = letters.isEmpty ? rest.popFirst() : String(letters) else {
        if helpRequested { return }
        throw UsageError(message: "option '-\(letter)' needs a value", path: path)
      }
      try setValue(value, for: option, label: "-\(letter)")
      return
    }
  }

  mutating func setFlag(_ option: OptionSpec) {
    let isGlobal = !(spec?.options.contains { $0.name == option.name } ?? false)
    if isGlobal {
      switch option.name {
      case "help":
        helpRequested = true
        return
      case "version":
        versionRequested = true
        return
      case "json": global.json = true
      case "quiet": global.quiet = true
      case "verbose": global.verbose = true
      case "no-color": global.noColor = true
      case "no-progress": global.noProgress = true
      default: break
      }
    }
    flags.insert(option.name)
  }

  mutating func setValue(_ value: String, for option: OptionSpec, label: String)
    throws(UsageError)
  {
    if let kind = option.value, !helpRequested {
      try Self.validate(value, kind: kind, subject: "'\(label)'", path: path)
    }
    if option.repeatable {
      values[option.name, default: []].append(value)
    } else {
      values[option.name] = [value]
    }
    let isGlobal = !(spec?.options.contains { $0.name == option.name } ?? false)
    if isGlobal, option.name == "root" { global.root = value }
  }

  mutating func finish(emptyCommandLine: Bool) throws(UsageError) -> ParseOutcome {
    if isHelpVerb {
      // `mn help --help` explains the help verb itself.
      if helpRequested, helpWords.isEmpty { return .help(path: ["help"]) }
      return .help(path: try helpPath())
    }
    if helpRequested { return .help(path: path) }
    if versionRequested { return .version }
    guard var spec else {
      if emptyCommandLine { return .help(path: []) }
      throw UsageError(message: "missing verb", path: [])
    }
    if let name = spec.defaultSubcommand, let found = spec.subcommands.command(named: name) {
      spec = found
      path.append(found.name)
    }
    if !spec.subcommands.isEmpty {
      let names = spec.visibleSubcommands.map(\.name).joined(separator: ", ")
      throw UsageError(
        message: "missing sub-verb after '\(path.joined(separator: " "))' (one of: \(names))",
        path: path)
    }
    try checkArguments(of: spec)
    try checkGroups(of: spec)
    try checkRequirements(of: spec)
    return .run(
      Invocation(
        path: path, spec: spec, values: values, flags: flags, arguments: arguments,
        global: global))
  }

  /// The verb path named by `mn help WORD...`, each word checked against the table.
  func helpPath() throws(UsageError) -> [String] {
    var level = commands
    var resolved: [String] = []
    for word in helpWords {
      guard !level.isEmpty else {
        throw UsageError(message: "unexpected argument '\(word)'", path: ["help"])
      }
      guard let found = level.command(named: word) else {
        let kind = resolved.isEmpty ? "verb" : "sub-verb"
        throw UsageError(
          message: "unknown \(kind) '\(word)'"
            + Suggestion.suffix(for: word, in: level.visible.flatMap(\.allNames)),
          path: resolved.isEmpty ? [] : resolved)
      }
      resolved.append(found.name)
      level = found.subcommands
    }
    return resolved
  }

  func checkArguments(of spec: CommandSpec) throws(UsageError) {
    var remaining = arguments[...]
    for argument in spec.arguments {
      if argument.variadic {
        if remaining.isEmpty, !argument.optional {
          throw UsageError(message: "missing argument '\(argument.name)'", path: path)
        }
        for value in remaining {
          try Self.validate(value, kind: argument.kind, subject: "'\(argument.name)'", path: path)
        }
        remaining = []
        continue
      }
      guard let value = remaining.popFirst() else {
        if argument.optional { continue }
        throw UsageError(message: "missing argument '\(argument.name)'", path: path)
      }
      try Self.validate(value, kind: argument.kind, subject: "'\(argument.name)'", path: path)
    }
    if let extra = remaining.first {
      throw UsageError(message: "unexpected argument '\(extra)'", path: path)
    }
  }

  /// Refuses two options of a group, and none of an exactly-one group, with one message
  /// form: `--a and --b cannot be used together`, the two named in the group's order.
  func checkGroups(of spec: CommandSpec) throws(UsageError) {
    for group in spec.groups {
      let given = group.names.filter { flags.contains($0) || values[$0] != nil }
      if given.count > 1 {
        throw UsageError(
          message: "--\(given[0]) and --\(given[1]) cannot be used together", path: path)
      }
      if given.isEmpty, group.exclusivity == .exactlyOne {
        let words = group.names.map { "--" + $0 }
        throw UsageError(
          message:
            "one of \(words.dropLast().joined(separator: ", ")) and \(words.last ?? "") is needed",
          path: path)
      }
    }
  }

  /// Refuses a member of a `requires:` group given without the option it needs, with one
  /// message form: `--fetch-from needs --fetch`, the first given member in the group's order.
  func checkRequirements(of spec: CommandSpec) throws(UsageError) {
    for group in spec.requirements {
      guard let needed = group.requires, !isGiven(needed) else { continue }
      if let first = group.names.first(where: isGiven) {
        throw UsageError(message: "--\(first) needs --\(needed)", path: path)
      }
    }
  }

  /// Whether the option named `name` (flag or value, the verb's or a global one) was given.
  func isGiven(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

  /// Checks a value against its kind: numbers for `.seconds` and `.count`, one of the words
  /// for `.choice`, non-empty for paths and documents.
  static func validate(_ value: String, kind: ValueKind, subject: String, path: [String])
    throws(UsageError)
  {
    switch kind {
    case .seconds:
      guard isDecimal(value) else {
        throw UsageError(
          message: "invalid value '\(value)' for \(subject): expected a number of seconds",
          path: path)
      }
    case .count:
      guard !value.isEmpty, value.allSatisfy(\.isASCIIDigit), Int(value) != nil else {
        throw UsageError(
          message: "invalid value '\(value)' for \(subject): expected a whole number", path: path
        )
      }
    case .choice(let words):
      guard words.contains(value) else {
        throw UsageError(
          message: "invalid value '\(value)' for \(subject): expected one of "
            + words.joined(separator: ", ") + Suggestion.suffix(for: value, in: words),
          path: path)
      }
    case .path, .directory, .document:
      guard !value.isEmpty else {
        throw UsageError(message: "empty value for \(subject)", path: path)
      }
    case .text, .command:
      break
    }
  }

  /// Whether `value` is `12`, `1.5` or `.5`: digits with at most one decimal point.
  static func isDecimal(_ value: String) -> Bool {
    let parts = value.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, parts.contains(where: { !$0.isEmpty }) else { return false }
    return parts.allSatisfy { $0.allSatisfy(\.isASCIIDigit) }
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
