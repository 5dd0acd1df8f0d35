enum Completion {
  static let spec = CommandSpec(
    name: "completion",
    abstract: "Print the completion script for a shell.",
    discussion: """
      Prints a script that completes verbs, options, option values and document names \
      for bash, zsh or fish. Load it from the shell's start-up file, or install the files \
      of the completions folder where the shell looks for them.

        bash:  eval "$(mn completion bash)"
        zsh:   mn completion zsh > "${fpath[1]}/_mn"
        fish:  mn completion fish > ~/.config/fish/completions/mn.fish
      """,
    arguments: [
      ArgumentSpec("SHELL", .choice(Shell.allCases.map(\.rawValue)), help: "The shell.")
    ],
    exits: [.ok, .usage],
    examples: [
      Example(
        "mn completion bash > ~/.local/share/bash-completion/completions/mn",
        "Install the completion for bash.")
    ],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard let name = call.arguments.first, let shell = Shell(rawValue: name) else {
      throw UsageError(message: "missing argument 'SHELL'", path: ["completion"])
    }
    try env.stdout.write(
      CompletionRenderer.script(
        for: shell, commands: CommandTable.commands, globals: CommandTable.globalOptions))
    return .ok
  }
}
