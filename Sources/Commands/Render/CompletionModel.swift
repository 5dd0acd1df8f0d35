/// The table flattened for the scripts: every visible verb path with its spec.
struct CompletionModel {
  struct Node {
    var path: [String]
    var spec: CommandSpec
    var key: String { path.joined(separator: " ") }
  }

  var nodes: [Node] = []
  var topLevel: [CommandSpec]
  var globals: [OptionSpec]

  init(commands: [CommandSpec], globals: [OptionSpec]) {
    topLevel = commands.visible
    self.globals = globals
    func walk(_ specs: [CommandSpec], _ prefix: [String]) {
      for spec in specs.visible {
        nodes.append(Node(path: prefix + [spec.name], spec: spec))
        walk(spec.subcommands, prefix + [spec.name])
      }
    }
    walk(commands, [])
  }

  /// Verb lists by parent key: `""` for the top level, `"doc"` for `mn doc`.
  var verbLists: [(key: String, verbs: [CommandSpec])] {
    [("", topLevel)]
      + nodes.filter { !$0.spec.visibleSubcommands.isEmpty }.map {
        ($0.key, $0.spec.visibleSubcommands)
      }
  }

  /// A value kind as the scripts spell it: `path`, `choice:a b`, ...
  static func code(_ kind: ValueKind) -> String {
    switch kind {
    case .text: return "text"
    case .seconds: return "seconds"
    case .count: return "count"
    case .path: return "path"
    case .directory: return "directory"
    case .document: return "document"
    case .command: return "command"
    case .choice(let words): return "choice:" + words.joined(separator: " ")
    }
  }

  /// A word in POSIX single quotes.
  static func quote(_ text: String) -> String {
    "'" + text.replacing("'", with: #"'\''"#) + "'"
  }

  /// A word in fish single quotes.
  static func fishQuote(_ text: String) -> String {
    "'" + text.replacing("\\", with: #"\\"#).replacing("'", with: #"\'"#) + "'"
  }
}
