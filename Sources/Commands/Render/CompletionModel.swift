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

  /// For each option word of a group at `node` (`-l`, `--long`), the words of its partners,
  /// which the scripts stop offering once it is on the command line.
  func exclusions(at node: Node) -> [(word: String, excludes: [String])] {
    let known = node.spec.options + globals
    func words(_ name: String) -> [String] {
      known.first { $0.name == name }.map(CompletionRenderer.optionWords) ?? ["--" + name]
    }
    var result: [(word: String, excludes: [String])] = []
    for group in node.spec.groups {
      for name in group.names {
        let partners = group.names.filter { $0 != name }.flatMap(words)
        for word in words(name) {
          if let index = result.firstIndex(where: { $0.word == word }) {
            result[index].excludes += partners.filter { !result[index].excludes.contains($0) }
          } else {
            result.append((word, partners))
          }
        }
      }
    }
    return result
  }

  /// Whether an option of `node` (or a global one) belongs to one of its groups.
  static func isGrouped(_ option: OptionSpec, at node: Node) -> Bool {
    node.spec.groups.contains { $0.names.contains(option.name) }
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
