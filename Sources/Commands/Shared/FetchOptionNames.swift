import Operations
import Platform
import Storage

/// The options that say how placeholders are fetched: `mn fetch` takes them as they are,
/// `mn migrate --fetch` and `mn watch --fetch` under a `fetch-` prefix (each of those verbs
/// declares its set beside its `--fetch`). One definition, so that the verbs cannot drift
/// apart.
struct FetchOptionNames: Sendable {
  let verb: String
  /// `--from SOURCE`: another copy of the data folder, or an export archive.
  let from: Option<String>
  /// `--exec COMMAND`: a shell command per placeholder.
  let exec: Option<String>
  /// `--timeout SECONDS`, `FetchOptions.defaultTimeout` when not given (mn.md §4).
  let timeoutOption: DefaultedOption<Double>
  /// The flag the three need (`--fetch`); nil for `mn fetch` itself.
  let requires: Flag?

  static let fetch = FetchOptionNames(verb: "fetch", prefix: "")

  /// The options under `prefix`, needing `requires` when it is given (the parser enforces
  /// it; help leads each line with `With --fetch:`).
  init(verb: String, prefix: String, requires: Flag? = nil) {
    self.verb = verb
    self.requires = requires
    from = Option(
      prefix + "from", .path, valueName: "SOURCE",
      help: "Take the files from another copy of the data folder, or an mn export archive.")
    exec = Option(
      prefix + "exec", .command, valueName: "COMMAND",
      help: "Run this shell command per placeholder ({} the path, {rel} the logical name).")
    timeoutOption = Option.seconds(
      prefix + "timeout", default: FetchOptions.defaultTimeout,
      help: "Wait this long for the files and commands.")
  }

  /// The declarations for the verb's spec: the three options, the source given at most one
  /// way, and the three only with `requires`.
  var options: [any OptionDeclaration] {
    var declarations: [any OptionDeclaration] = [
      from, exec, timeoutOption, OptionGroup.atMostOne(from, exec),
    ]
    if let requires {
      declarations.append(OptionGroup.requiring(requires, from, exec, timeoutOption))
    }
    return declarations
  }

  /// Refuses an empty command.
  func check(_ call: Invocation) throws {
    if let command = call[exec], command.allSatisfy(\.isWhitespace) {
      throw UsageError(message: "empty command for '--\(exec.spec.name)'", path: [verb])
    }
  }

  /// The timeout in seconds, its default when not given.
  func timeout(_ call: Invocation) -> Double { call[timeoutOption] }

  /// What FetchOperation needs from the environment, reporting each item to `progress`.
  func context(_ source: FetchSource, _ progress: Progress, _ env: Environment) -> FetchContext {
    var request: ((AbsolutePath) throws -> Void)?
    let provider = env.syncProvider
    if source == .sync {
      // In a plain folder there is nobody to ask: fetch waits for the sync client.
      request = { path in
        if provider.folderKind(of: path) != .plain {
          try SyncDownload.request(path, provider: provider)
        }
      }
    }
    return FetchContext(
      system: env.system, requestDownload: request,
      progress: { _, _, item in progress.advance(item: item) })
  }
}
