/// The text of `mn --help`, `mn help VERB` and `mn VERB --help`, from the command table.
///
/// Pure spec → String; the width is fixed at 80 columns. Every result ends with a newline.
public enum HelpRenderer {
  /// The help for a verb path: the top-level help for `[]`; nil when the path names no verb.
  public static func help(
    for path: [String], commands: [CommandSpec], globals: [OptionSpec]
  ) -> String? {
    if path.isEmpty { return topLevel(commands: commands, globals: globals) }
    guard let spec = commands.command(at: path) else { return nil }
    return command(spec, path: path, globals: globals)
  }

  /// The top-level help: usage, verbs with their abstracts (hidden ones left out), global
  /// options, exit statuses and a pointer to the verbs' help.
  public static func topLevel(commands: [CommandSpec], globals: [OptionSpec]) -> String {
    var lines: [String] = []
    lines += TextLayout.wrap(CommandTable.abstract, first: "OVERVIEW: ", rest: "  ")
    lines += ["", "USAGE: mn [global options] <verb> [options] [arguments]", ""]
    lines.append("VERBS:")
    lines += TextLayout.columns(
      commands.visible.map { (verbLabel($0), $0.abstract) })
    lines += ["", "GLOBAL OPTIONS:"]
    lines += TextLayout.columns(globals.map { ($0.helpLabel, optionHelp($0)) })
    lines += ["", "EXIT STATUS:"]
    lines += exitLines(ExitStatus.allCases)
    lines += ["", "See 'mn help <verb>' for the help of a verb."]
    return finish(lines)
  }

  /// The help of one verb: overview, usage, discussion, arguments, sub-verbs, options, a
  /// pointer to the global options, exit statuses and examples.
  ///
  /// - Parameters:
  ///   - spec: The verb.
  ///   - path: Its verb path (`["doc", "info"]`), for the usage line.
  ///   - globals: The global options, named in the pointer line.
  /// - Returns: The help text, ending with a newline.
  public static func command(_ spec: CommandSpec, path: [String], globals: [OptionSpec])
    -> String
  {
    let invocation = (["mn"] + path).joined(separator: " ")
    var lines: [String] = []
    lines += TextLayout.wrap(spec.abstract, first: "OVERVIEW: ", rest: "  ")
    lines.append("")
    let usage = [invocation, spec.usageTail].filter { !$0.isEmpty }.joined(separator: " ")
    lines += TextLayout.wrap(usage, first: "USAGE: ", rest: "         ")
    for paragraph in TextLayout.paragraphs(spec.discussion) {
      lines.append("")
      if paragraph.verbatim {
        lines += paragraph.text.split(separator: "\n").map(String.init)
      } else {
        lines += TextLayout.wrap(paragraph.text, first: "", rest: "")
      }
    }
    if !spec.aliases.isEmpty {
      lines += ["", "ALIASES: " + spec.aliases.joined(separator: ", ")]
    }
    if !spec.arguments.isEmpty {
      lines += ["", "ARGUMENTS:"]
      lines += TextLayout.columns(spec.arguments.map { ($0.usage, argumentHelp($0)) })
    }
    if !spec.visibleSubcommands.isEmpty {
      lines += ["", "SUB-VERBS:"]
      lines += TextLayout.columns(spec.visibleSubcommands.map { (verbLabel($0), $0.abstract) })
    }
    if !spec.options.isEmpty {
      lines += ["", "OPTIONS:"]
      lines += TextLayout.columns(spec.options.map { ($0.helpLabel, optionHelp($0)) })
      if !spec.groups.isEmpty { lines.append("") }
      for group in spec.groups { lines += TextLayout.wrap(group.sentence, first: "  ", rest: "  ") }
    }
    if !globals.isEmpty {
      lines += ["", "GLOBAL OPTIONS:"]
      let names = globals.map { option in
        option.short.map { "-\($0)/--\(option.name)" } ?? "--\(option.name)"
      }
      lines += TextLayout.wrap(
        names.joined(separator: ", ") + "; see 'mn --help'.", first: "  ", rest: "  ")
    }
    if !spec.exits.isEmpty {
      lines += ["", "EXIT STATUS:"]
      lines += exitLines(spec.exits)
    }
    if !spec.examples.isEmpty {
      lines += ["", "EXAMPLES:"]
      for (index, example) in spec.examples.enumerated() {
        if index > 0 { lines.append("") }
        lines.append("  " + example.command)
        lines += TextLayout.wrap(example.explanation, first: "      ", rest: "      ")
      }
    }
    if !spec.visibleSubcommands.isEmpty {
      lines += ["", "See '\(invocation) <sub-verb> --help' for the help of a sub-verb."]
    }
    return finish(lines)
  }

  /// The help line of an option: led by `With --fetch:` when it needs another option, with
  /// its default before the final period, then its choice words when it has some.
  static func optionHelp(_ option: OptionSpec) -> String {
    var text = option.help
    if let value = option.defaultValue {
      let body = text.hasSuffix(".") ? String(text.dropLast()) : text
      text = body + " (default \(value))."
    }
    if let needed = option.requires, let first = text.first {
      text = "With --\(needed): " + first.lowercased() + text.dropFirst()
    }
    if case .choice(let words) = option.value {
      text += " One of: " + words.joined(separator: ", ") + "."
    }
    if option.repeatable { text += " May be repeated." }
    return text
  }

  /// The help line of an argument, with its choice words when it has some.
  static func argumentHelp(_ argument: ArgumentSpec) -> String {
    guard case .choice(let words) = argument.kind else { return argument.help }
    return argument.help + " One of: " + words.joined(separator: ", ") + "."
  }

  static func verbLabel(_ spec: CommandSpec) -> String {
    spec.aliases.isEmpty ? spec.name : spec.name + " (" + spec.aliases.joined(separator: ", ") + ")"
  }

  static func exitLines(_ statuses: [ExitStatus]) -> [String] {
    TextLayout.columns(statuses.map { (pad($0.rawValue), $0.meaning) })
  }

  static func pad(_ code: Int32) -> String {
    let digits = String(code)
    return String(repeating: " ", count: max(0, 3 - digits.count)) + digits
  }

  /// Joins lines, dropping trailing blanks, with a final newline.
  static func finish(_ lines: [String]) -> String {
    lines.map { line in
      var line = Substring(line)
      while line.last == " " { line = line.dropLast() }
      return String(line)
    }.joined(separator: "\n") + "\n"
  }
}
