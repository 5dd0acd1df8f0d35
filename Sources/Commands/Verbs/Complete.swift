/// `mn __complete KIND WORD...`: candidates for the completion scripts, one a line.
enum Complete {
  static let spec = CommandSpec(
    name: "__complete",
    abstract: "Print completion candidates for the shell scripts.",
    discussion: """
      'document PREFIX' prints the documents of the data folder whose logical name starts \
      with PREFIX. 'verb [PATH...] PREFIX' prints the verbs (or sub-verbs of PATH), and \
      'option PATH... PREFIX' the options of a verb path, that start with PREFIX.
      """,
    arguments: [
      ArgumentSpec("KIND", .choice(["document", "verb", "option"]), help: "What to complete."),
      ArgumentSpec(
        "WORD", .text, help: "The verb path, then the prefix to complete.", optional: true,
        variadic: true),
    ],
    flags: [.hidden],
    exits: [.ok, .usage],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    let words = Array(call.arguments.dropFirst())
    let prefix = words.last ?? ""
    let path = Array(words.dropLast())
    let candidates: [String]
    switch call.arguments.first {
    case "document": candidates = try documents(prefix: prefix, call, env)
    case "verb": candidates = verbs(after: path)
    case "option": candidates = options(of: path)
    default: candidates = []
    }
    let matching = candidates.filter { $0.hasPrefix(prefix) }
    if !matching.isEmpty { try env.stdout.write(matching.joined(separator: "\n") + "\n") }
    return .ok
  }

  /// The verbs (names and aliases) after a verb path, hidden ones left out.
  static func verbs(after path: [String]) -> [String] {
    let level =
      path.isEmpty ? CommandTable.commands : CommandTable.commands.command(at: path)?.subcommands
    return (level ?? []).visible.flatMap(\.allNames)
  }

  /// The options (`-q`, `--quiet`) of a verb path, then the global options.
  static func options(of path: [String]) -> [String] {
    let own = path.isEmpty ? [] : CommandTable.commands.command(at: path)?.options ?? []
    return (own + CommandTable.globalOptions).flatMap(CompletionRenderer.optionWords)
  }

  /// The logical names of the data folder's documents. Discovery is not a table flag here:
  /// a missing or unreadable folder completes to nothing instead of failing.
  static func documents(prefix: String, _ call: Invocation, _ env: Environment) throws
    -> [String]
  {
    let found = env.discover(root: call.global.root)
    guard let root = found.root else { return [] }
    let scan = try? env.scanFolder(root)
    guard let listing = scan else {
      return []
    }
    return listing.documents.map(\.logicalName)
  }
}
