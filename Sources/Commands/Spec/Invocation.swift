/// The global options of mn.md §11, parsed.
public struct GlobalOptions: Sendable {
  public var root: String?
  public var json = false
  public var quiet = false
  public var verbose = false
  public var noColor = false
  public var noProgress = false
  public init() {}
}

/// A parsed command line: the verb path, its option values and arguments.
public struct Invocation: Sendable {
  /// The verb path, e.g. `["doc", "info"]`.
  public var path: [String]
  /// The spec of the verb that runs.
  public var spec: CommandSpec
  /// Option values by long name, in command-line order.
  public var values: [String: [String]]
  /// Flags that were given, by long name.
  public var flags: Set<String>
  /// Positional arguments.
  public var arguments: [String]
  public var global: GlobalOptions
  /// The resolved data folder, set by the dispatcher for `.needsStore` verbs.
  public var root: String?

  public init(
    path: [String], spec: CommandSpec, values: [String: [String]] = [:], flags: Set<String> = [],
    arguments: [String] = [], global: GlobalOptions = GlobalOptions(), root: String? = nil
  ) {
    self.path = path
    self.spec = spec
    self.values = values
    self.flags = flags
    self.arguments = arguments
    self.global = global
    self.root = root
  }

  /// Whether the flag `name` was given.
  public func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The last value given for option `name`.
  public func value(_ name: String) -> String? { values[name]?.last }

  /// Every value given for option `name`.
  public func allValues(_ name: String) -> [String] { values[name] ?? [] }
}
