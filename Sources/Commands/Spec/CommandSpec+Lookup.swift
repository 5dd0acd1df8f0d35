extension CommandSpec {
  /// Whether the verb is left out of help, man pages and completion listings.
  public var isHidden: Bool { flags.contains(.hidden) }

  /// The name and the aliases.
  public var allNames: [String] { [name] + aliases }

  /// Whether `word` names this verb, by name or alias.
  public func answers(to word: String) -> Bool { name == word || aliases.contains(word) }

  /// The sub-verbs that help, man pages and completions list.
  public var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.isHidden } }

  /// The usage synopsis after the verb path: `[options] PATH [NAME...]`, or `<sub-verb>`.
  public var usageTail: String {
    var parts: [String] = []
    if !subcommands.isEmpty {
      parts.append(defaultSubcommand == nil ? "<sub-verb>" : "[<sub-verb>]")
      return parts.joined(separator: " ")
    }
    if !options.isEmpty { parts.append("[options]") }
    for argument in arguments {
      // A command to run (`mn lock`): its own options follow `--`, or they are read as mn's.
      if argument.kind == .command { parts.append("--") }
      parts.append(argument.usage)
    }
    return parts.joined(separator: " ")
  }
}

extension Array where Element == CommandSpec {
  /// The verb named `word` (by name or alias), hidden ones included.
  public func command(named word: String) -> CommandSpec? { first { $0.answers(to: word) } }

  /// The spec at a verb path (`["doc", "info"]`); nil when the path names no verb.
  public func command(at path: [String]) -> CommandSpec? {
    var level = self
    var found: CommandSpec?
    for word in path {
      guard let next = level.command(named: word) else { return nil }
      found = next
      level = next.subcommands
    }
    return found
  }

  /// The verbs help, man pages and completions list.
  public var visible: [CommandSpec] { filter { !$0.isHidden } }
}

extension ArgumentSpec {
  /// How the argument appears in a usage line: `PATH`, `[PATH]`, `PATH...`, `[PATH...]`.
  public var usage: String {
    let core = variadic ? "\(name)..." : name
    return optional ? "[\(core)]" : core
  }
}

extension OptionSpec {
  /// How the option appears in help: `-o, --output FILE` or `    --json`.
  public var helpLabel: String {
    var label = short.map { "-\($0), " } ?? "    "
    label += "--\(name)"
    if value != nil { label += " \(valueName)" }
    return label
  }

  /// Whether the option takes a value.
  public var takesValue: Bool { value != nil }
}
