import AutomergeCodec
import Storage

/// `mn resolve`: print the data folder that mn would use (mn.md §2).
enum Resolve {
  /// The well-known place `--icloud` or `--local` asks for.
  enum Place { case icloud, local }

  enum Options {
    static let explain = Flag(
      "explain", help: "Show every discovery step and why it was or was not chosen.")
    static let place = FlagChoice<Place>([
      (
        .icloud,
        Flag("icloud", help: "Print the iCloud Drive container path, whether or not it exists.")
      ),
      (
        .local,
        Flag("local", help: "Print the local default folder path, whether or not it exists.")
      ),
    ])
  }

  static let spec = CommandSpec(
    name: "resolve",
    abstract: "Print the data folder that mn would use.",
    discussion: """
      Looks for the Minuta data folder in this order, and the first hit wins: the --root \
      option, the MINUTA_STORAGE variable, the pointer file storage-path.txt, the iCloud \
      Drive container, and the local default ~/Documents/Minuta. A pointer whose target does \
      not exist is reported and discovery goes on. --root and MINUTA_STORAGE are explicit \
      choices: when they name a folder that does not exist, discovery stops with exit 66.
      """,
    options: [Options.explain, Options.place],
    exits: [.ok, .usage, .noInput],
    examples: [
      Example("mn resolve", "Print the data folder."),
      Example("mn resolve --explain", "Show how it was found."),
      Example(#"mn migrate --to "$(mn resolve --icloud)""#, "Use the iCloud path in a script."),
    ],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    if let place = call[Options.place] {
      guard let home = WellKnownPaths.home(variables: env.variables) else {
        throw CommandError.homeNotSet
      }
      let path =
        place == .icloud ? WellKnownPaths.icloud(home: home) : WellKnownPaths.local(home: home)
      try env.stdout.write(path.string + "\n")
      return .ok
    }
    let found = env.discover(root: call.global.root)
    if !call.global.quiet {
      for warning in found.warnings { try env.stderr.write("mn: warning: \(warning)\n") }
    }
    if call.global.json {
      try env.stdout.writeJSON(json(found))
    } else if call[Options.explain] {
      try env.stdout.write(explain(found))
    } else if let root = found.root {
      try env.stdout.write(root.string + "\n")
    }
    guard found.root != nil else { throw DiscoveryText.notFound(found) }
    return .ok
  }

  static func explain(_ found: Discovery) -> String {
    var out = ""
    for (i, c) in found.candidates.enumerated() {
      let label = DiscoveryText.label(c.source).padding(16)
      out += "\(i + 1). \(label)\(c.path?.string ?? "-")\n     \(c.note)\n"
    }
    if let root = found.root, let source = found.source {
      out += "root: \(root) (\(source.rawValue))\n"
    } else {
      out += "root: none\n"
    }
    return out
  }

  static func json(_ found: Discovery) -> JSONValue {
    .object([
      ("root", found.root.map { .string($0.string) } ?? .null),
      ("source", found.source.map { .string($0.rawValue) } ?? .null),
      (
        "candidates",
        .array(
          found.candidates.map { c in
            .object([
              ("source", .string(c.source.rawValue)),
              ("path", c.path.map { .string($0.string) } ?? .null),
              ("exists", .bool(c.exists)),
              ("note", .string(c.note)),
            ])
          })
      ),
    ])
  }
}

extension String {
  /// The string padded with spaces to at least `width` characters.
  func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
