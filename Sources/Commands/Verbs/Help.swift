enum Help {
  static let spec = CommandSpec(
    name: "help",
    abstract: "Show the help of mn or of a verb.",
    discussion: "Without a verb, lists the verbs, the global options and the exit statuses. "
      + "'mn help VERB' is the same as 'mn VERB --help'.",
    arguments: [
      ArgumentSpec("VERB", .text, help: "The verb to explain.", optional: true),
      ArgumentSpec("SUB", .text, help: "Its sub-verb, for verbs that have them.", optional: true),
    ],
    exits: [.ok, .usage],
    examples: [Example("mn help completion", "Explain the completion verb.")],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard
      let text = HelpRenderer.help(
        for: call.arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions)
    else {
      throw UsageError(
        message: "unknown verb '\(call.arguments.joined(separator: " "))'", path: ["help"])
    }
    try env.stdout.write(text)
    return .ok
  }
}
