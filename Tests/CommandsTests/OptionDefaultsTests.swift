import Operations
import Testing

@testable import Commands

/// Defaults declared once on their `Option`, and `requires:` on option groups.
@Suite struct OptionDefaultsTests {
  /// A verb whose options need others: `--from` and `--timeout` need the flag `--fetch`,
  /// the `--keep-*` options need the value option `--every`, `--tidy` the global `--json`.
  enum Sync {
    static let fetch = Flag("fetch", help: "Fetch.")
    static let from = Option<String>("from", .path, valueName: "DIR", help: "Take the files.")
    static let exec = Option<String>("exec", .command, valueName: "CMD", help: "Run it.")
    static let timeout = Option.seconds("timeout", default: 300, help: "Wait this long.")
    static let every = Option<String>("every", .text, valueName: "WHEN", help: "Back up.")
    static let keepLast = Option.count("keep-last", help: "Keep the N newest.")
    static let keepDaily = Option.count("keep-daily", help: "Keep one a day.")
    static let tidy = Flag("tidy", help: "Tidy.")
    static let pause = Option.seconds("pause", default: 1.5, help: "Pause")
    static let spec = CommandSpec(
      name: "sync", abstract: "Sync.",
      options: [
        fetch, from, exec, timeout, OptionGroup.atMostOne(from, exec),
        OptionGroup.requiring(fetch, from, exec, timeout), every, keepLast, keepDaily,
        OptionGroup.requiring(every, keepLast, keepDaily), tidy,
        OptionGroup.requiring(CommandTable.Global.json, tidy), pause,
      ])

    static func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
      try Parser.parse(["sync"] + arguments, commands: [spec], globals: CommandTable.globalOptions)
    }

    static func call(_ arguments: [String]) throws -> Invocation {
      guard case .run(let call) = try parse(arguments) else {
        throw UsageError(message: "not a run", path: [])
      }
      return call
    }
  }

  static let refused: [(arguments: [String], message: String)] = [
    (["--from", "x"], "--from needs --fetch"),
    (["--timeout", "5"], "--timeout needs --fetch"),
    // The first member in the group's order is named, whatever the command-line order.
    (["--timeout=5", "--exec", "true"], "--exec needs --fetch"),
    (["--keep-daily", "3"], "--keep-daily needs --every"),
    (["--keep-daily", "3", "--keep-last", "1"], "--keep-last needs --every"),
    // Each group on its own: --fetch does not stand in for --every.
    (["--fetch", "--keep-last", "1"], "--keep-last needs --every"),
    (["--tidy"], "--tidy needs --json"),
    // Two of an exclusive group are refused first, as before.
    (["--from", "x", "--exec", "y"], "--from and --exec cannot be used together"),
  ]

  @Test(arguments: refused)
  func requirementsAreEnforced(_ arguments: [String], _ message: String) {
    #expect(throws: UsageError(message: message, path: ["sync"]), "\(arguments)") {
      try Sync.parse(arguments)
    }
  }

  static let accepted: [[String]] = [
    [],
    ["--fetch"],
    ["--fetch", "--from", "x", "--timeout", "5"],
    ["--timeout", "5", "--fetch"],
    ["--every", "1d", "--keep-last", "1", "--keep-daily", "7"],
    ["--tidy", "--json"],
  ]

  @Test(arguments: accepted)
  func aMemberWithWhatItNeedsIsAccepted(_ arguments: [String]) throws {
    guard case .run = try Sync.parse(arguments) else {
      Issue.record("expected run for \(arguments)")
      return
    }
  }

  @Test func theGlobalAnchorCountsBeforeTheVerb() throws {
    let outcome = try Parser.parse(
      ["--json", "sync", "--tidy"], commands: [Sync.spec], globals: CommandTable.globalOptions)
    guard case .run(let call) = outcome else {
      Issue.record("expected run")
      return
    }
    #expect(call[Sync.tidy])
  }

  @Test func helpWinsOverARequirement() throws {
    guard case .help(let path) = try Sync.parse(["--from", "x", "--help"]) else {
      Issue.record("expected help")
      return
    }
    #expect(path == ["sync"])
  }

  @Test func requirementsAreNotExclusiveGroups() {
    // Help, man pages and completions state and follow the exclusive groups only.
    #expect(Sync.spec.groups.map(\.names) == [["from", "exec"]])
    #expect(
      Sync.spec.requirements.map(\.names) == [
        ["from", "exec", "timeout"], ["keep-last", "keep-daily"], ["tidy"],
      ])
    #expect(Sync.spec.requirements.map(\.requires) == ["fetch", "every", "json"])
  }

  /// Every `requires:` of the real table, refused with the one message form, exit 64.
  static let realRequirements: [(arguments: [String], message: String)] = [
    (["watch", "--fetch-from", "x"], "--fetch-from needs --fetch"),
    (["watch", "--fetch-exec", "true"], "--fetch-exec needs --fetch"),
    (["watch", "--fetch-timeout", "1"], "--fetch-timeout needs --fetch"),
    (["watch", "--keep-last", "3"], "--keep-last needs --backup-every"),
    (["watch", "--keep-daily", "3"], "--keep-daily needs --backup-every"),
    (["watch", "--keep-weekly", "3"], "--keep-weekly needs --backup-every"),
    (["watch", "--keep-monthly", "3"], "--keep-monthly needs --backup-every"),
    (["migrate", "--fetch-from", "x"], "--fetch-from needs --fetch"),
    (["migrate", "--fetch-exec", "true"], "--fetch-exec needs --fetch"),
    (["migrate", "--fetch-timeout", "1"], "--fetch-timeout needs --fetch"),
  ]

  @Test(arguments: realRequirements)
  func theTablesRequirementsAreEnforced(_ arguments: [String], _ message: String) throws {
    #expect(throws: UsageError(message: message, path: [arguments[0]]), "\(arguments)") {
      try Parser.parse(
        arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions)
    }
    let anchor =
      arguments[0] == "watch" && message.hasSuffix("--backup-every")
      ? ["--backup-every", "1d"] : ["--fetch"]
    let outcome = try Parser.parse(
      arguments + anchor, commands: CommandTable.commands, globals: CommandTable.globalOptions)
    guard case .run = outcome else {
      Issue.record("expected run for \(arguments + anchor)")
      return
    }
  }

  @Test func theDefaultIsReadWhenTheOptionIsNotGiven() throws {
    let none = try Sync.call([])
    #expect(none[Sync.timeout] == 300)
    #expect(none.word(for: Sync.timeout) == "300")
    #expect(none[Sync.pause] == 1.5)
    #expect(none.word(for: Sync.pause) == "1.5")
    let given = try Sync.call(["--fetch", "--timeout", "5.0"])
    #expect(given[Sync.timeout] == 5)
    // As typed: the output quotes the user's own word.
    #expect(given.word(for: Sync.timeout) == "5.0")
  }

  @Test func theDefaultAndTheRequirementAreRenderedFromTheDeclaration() throws {
    func help(_ name: String) -> String? {
      Sync.spec.options.first { $0.name == name }.map(HelpRenderer.optionHelp)
    }
    #expect(Sync.timeout.spec.defaultValue == "300")
    #expect(help("timeout") == "With --fetch: wait this long (default 300).")
    #expect(help("from") == "With --fetch: take the files.")
    #expect(help("keep-last") == "With --every: keep the N newest.")
    #expect(help("pause") == "Pause (default 1.5).")
    #expect(help("every") == "Back up.")
    let text =
      HelpRenderer.help(for: ["sync"], commands: [Sync.spec], globals: CommandTable.globalOptions)
      ?? ""
    #expect(text.contains("With --fetch: wait this long (default 300)."), "\(text)")
  }

  @Test func theRealDefaultsAreTheDeclaredOnes() {
    #expect(CommonOptions.wait.defaultValue == 10)
    #expect(Backups.Options.wait.defaultValue == CommonOptions.wait.defaultValue)
    #expect(Watch.Options.quietFor.defaultValue == 10)
    #expect(FetchOptionNames.fetch.timeoutOption.defaultValue == 300)
    #expect(Migrate.Options.fetchNames.timeoutOption.defaultValue == 300)
    #expect(Watch.Options.fetchNames.timeoutOption.defaultValue == 300)
    // What the workflows take when given nothing is what help says (declared in Operations).
    #expect(WatchPolicy().quietFor == Watch.Options.quietFor.defaultValue)
    #expect(FetchOptions().timeout == FetchOptionNames.fetch.timeoutOption.defaultValue)
  }

  /// Every spec of the table, sub-verbs included.
  static func allSpecs(_ specs: [CommandSpec] = CommandTable.commands) -> [CommandSpec] {
    specs.flatMap { [$0] + allSpecs($0.subcommands) }
  }

  /// Whether `text` states a number as a default: `default 10`, `default: 10`, `defaults
  /// to 10`.
  static func statesANumericDefault(_ text: String) -> Bool {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    for (index, word) in words.enumerated()
    where word.drop(while: { $0 == "(" }).lowercased().hasPrefix("default") {
      var next = index + 1
      if next < words.count, words[next] == "to" { next += 1 }
      if next < words.count, words[next].first?.isNumber == true { return true }
    }
    return false
  }

  @Test func noOptionRestatesItsDefaultInItsHelp() {
    #expect(Self.statesANumericDefault("Wait this long (default 10)."))
    #expect(Self.statesANumericDefault("Wait (defaults to 3)."))
    #expect(!Self.statesANumericDefault("The folder (default: the local folder)."))
    for spec in Self.allSpecs() {
      for option in spec.options + CommandTable.globalOptions {
        // The declared help carries no number as a default: the renderer adds the declared one.
        #expect(!Self.statesANumericDefault(option.help), "\(spec.name) --\(option.name)")
      }
    }
  }

  /// A number a verb's prose gives as a default is one of its options' declared defaults
  /// (the prose interpolates it: `(default \(…defaultWord))`).
  @Test func theProseNamesOnlyDeclaredDefaults() {
    for spec in Self.allSpecs() {
      let declared = Set(spec.options.compactMap(\.defaultValue))
      let prose = [spec.discussion] + spec.examples.map(\.explanation)
      for text in prose {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        for (index, word) in words.enumerated() where word.hasPrefix("(default") {
          guard index + 1 < words.count, words[index + 1].first?.isNumber == true else {
            continue
          }
          let number = String(words[index + 1].prefix { $0.isNumber || $0 == "." })
          let value = number.hasSuffix(".") ? String(number.dropLast()) : number
          #expect(declared.contains(value), "\(spec.name): (default \(value))")
        }
      }
    }
  }
}
