import Testing

@testable import Commands

@Suite struct ParserTests {
  /// A stable one-line description of an outcome, for table comparisons.
  static func describe(_ outcome: ParseOutcome) -> String {
    switch outcome {
    case .version: return "version"
    case .help(let path): return "help [\(path.joined(separator: " "))]"
    case .run(let call):
      var parts = ["run " + call.path.joined(separator: " ")]
      if !call.flags.isEmpty { parts.append("flags=" + call.flags.sorted().joined(separator: ",")) }
      for key in call.values.keys.sorted() {
        parts.append("\(key)=" + (call.values[key] ?? []).joined(separator: ","))
      }
      if !call.arguments.isEmpty { parts.append("args=" + call.arguments.joined(separator: ",")) }
      var global: [String] = []
      if let root = call.global.root { global.append("root:\(root)") }
      if call.global.json { global.append("json") }
      if call.global.quiet { global.append("quiet") }
      if call.global.verbose { global.append("verbose") }
      if call.global.noColor { global.append("no-color") }
      if call.global.noProgress { global.append("no-progress") }
      if !global.isEmpty { parts.append("global=" + global.joined(separator: ",")) }
      return parts.joined(separator: " ")
    }
  }

  static func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
    try Parser.parse(arguments, commands: TestSupport.commands, globals: TestSupport.globals)
  }

  static let accepted: [(arguments: [String], expected: String)] = [
    ([], "help []"),
    (["help"], "help []"),
    (["help", "export"], "help [export]"),
    (["help", "doc", "info"], "help [doc info]"),
    (["help", "where"], "help [resolve]"),
    (["help", "__secret"], "help [__secret]"),
    (["--help"], "help []"),
    (["help", "--help"], "help [help]"),
    (["help", "-h"], "help [help]"),
    (["help", "help"], "help [help]"),
    (["help", "export", "--help"], "help [export]"),
    (["-h"], "help []"),
    (["export", "--help"], "help [export]"),
    (["export", "-h"], "help [export]"),
    (["--help", "export"], "help [export]"),
    (["doc", "info", "--help"], "help [doc info]"),
    (["doc", "--help"], "help [doc]"),
    (["export", "--help", "--bogus", "--format=nope"], "help [export]"),
    (["--version"], "version"),
    (["export", "--version"], "version"),
    (["resolve"], "run resolve"),
    (["where", "--explain"], "run resolve flags=explain"),
    (["merge-conflicts", "--check"], "run merge-conflicts flags=check"),
    (["merge-conflicts", "--wait", "2"], "run merge-conflicts wait=2"),
    (["merge-conflicts", "--wait=1.5"], "run merge-conflicts wait=1.5"),
    (["merge-conflicts", "--wait", ".5"], "run merge-conflicts wait=.5"),
    (["merge-conflicts", "-n", "a", "b"], "run merge-conflicts flags=dry-run args=a,b"),
    (["merge-conflicts", "-"], "run merge-conflicts args=-"),
    (["merge-conflicts", "--", "--check", "-n"], "run merge-conflicts args=--check,-n"),
    (["merge-conflicts", "-qv"], "run merge-conflicts flags=quiet,verbose global=quiet,verbose"),
    (["merge-conflicts", "-nq"], "run merge-conflicts flags=dry-run,quiet global=quiet"),
    (["--json", "resolve"], "run resolve flags=json global=json"),
    (["resolve", "--json"], "run resolve flags=json global=json"),
    (["--root", "/data", "resolve"], "run resolve root=/data global=root:/data"),
    (["resolve", "--root=/data"], "run resolve root=/data global=root:/data"),
    (
      ["-q", "resolve", "--no-color", "--no-progress"],
      "run resolve flags=no-color,no-progress,quiet global=quiet,no-color,no-progress"
    ),
    (["export", "-o", "out.tar"], "run export output=out.tar"),
    (["export", "-oout.tar"], "run export output=out.tar"),
    (["export", "-ro", "out.tar"], "run export flags=reproducible output=out.tar"),
    (["export", "-rout.tar"], "run export flags=reproducible output=ut.tar"),
    (["export", "-o", "-"], "run export output=-"),
    (["export", "--output", "--weird"], "run export output=--weird"),
    (["export", "--format", "tar.gz"], "run export format=tar.gz"),
    (["export", "--format", "zip", "--format", "tar"], "run export format=tar"),
    (["export", "-x", "a", "--exclude=b", "-xc"], "run export exclude=a,b,c"),
    (["export", "--level", "9"], "run export level=9"),
    (["doc", "info", "x.automerge"], "run doc info args=x.automerge"),
    (["doc", "merge", "-o", "out", "a", "b"], "run doc merge output=out args=a,b"),
    (["--json", "doc", "merge", "a", "--json"], "run doc merge flags=json args=a global=json"),
    (["__secret", "--deep"], "run __secret flags=deep"),
  ]

  @Test(arguments: accepted)
  func accepts(_ arguments: [String], _ expected: String) throws {
    let outcome = try Self.parse(arguments)
    #expect(Self.describe(outcome) == expected, "\(arguments)")
  }

  static let rejected: [(arguments: [String], message: String, path: [String])] = [
    (["merge-conflict"], "unknown verb 'merge-conflict'; did you mean 'merge-conflicts'?", []),
    (["merge"], "unknown verb 'merge'; did you mean 'merge-conflicts'?", []),
    (["exprot"], "unknown verb 'exprot'; did you mean 'export'?", []),
    (["zzzzzz"], "unknown verb 'zzzzzz'", []),
    (["__secre"], "unknown verb '__secre'", []),
    (["help", "exprt"], "unknown verb 'exprt'; did you mean 'export'?", []),
    (["help", "doc", "inf"], "unknown sub-verb 'inf'; did you mean 'info'?", ["doc"]),
    (["help", "export", "x"], "unexpected argument 'x'", ["help"]),
    (["--json"], "missing verb", []),
    (["--explain", "resolve"], "unknown option '--explain'", []),
    (
      ["resolve", "--exlpain"], "unknown option '--exlpain'; did you mean '--explain'?", ["resolve"]
    ),
    (["resolve", "--ex"], "unknown option '--ex'; did you mean '--explain'?", ["resolve"]),
    (["resolve", "-z"], "unknown option '-z'", ["resolve"]),
    (["resolve", "--explain=yes"], "option '--explain' takes no value", ["resolve"]),
    (["resolve", "extra"], "unexpected argument 'extra'", ["resolve"]),
    (["merge-conflicts", "--wait"], "option '--wait' needs a value", ["merge-conflicts"]),
    (
      ["merge-conflicts", "--wait", "soon"],
      "invalid value 'soon' for '--wait': expected a number of seconds", ["merge-conflicts"]
    ),
    (
      ["merge-conflicts", "--wait=1.2.3"],
      "invalid value '1.2.3' for '--wait': expected a number of seconds", ["merge-conflicts"]
    ),
    (
      ["merge-conflicts", "--wait", "-1"],
      "invalid value '-1' for '--wait': expected a number of seconds", ["merge-conflicts"]
    ),
    (
      ["merge-conflicts", "--wait", "."],
      "invalid value '.' for '--wait': expected a number of seconds", ["merge-conflicts"]
    ),
    (
      ["export", "--level", "x"], "invalid value 'x' for '--level': expected a whole number",
      ["export"]
    ),
    (
      ["export", "--level", "1.5"],
      "invalid value '1.5' for '--level': expected a whole number", ["export"]
    ),
    (
      ["export", "--format", "tgz"],
      "invalid value 'tgz' for '--format': expected one of tar, tar.gz, zip; did you mean 'tar'?",
      ["export"]
    ),
    (
      ["export", "--format", "rar"],
      "invalid value 'rar' for '--format': expected one of tar, tar.gz, zip; did you mean 'tar'?",
      ["export"]
    ),
    (
      ["export", "--format", "7z"],
      "invalid value '7z' for '--format': expected one of tar, tar.gz, zip", ["export"]
    ),
    (["export", "-o"], "option '-o' needs a value", ["export"]),
    (["export", "-o", ""], "empty value for '-o'", ["export"]),
    (["export", "--output="], "empty value for '--output'", ["export"]),
    (["doc"], "missing sub-verb after 'doc' (one of: info, merge)", ["doc"]),
    (["doc", "inof"], "unknown sub-verb 'inof' of 'doc'; did you mean 'info'?", ["doc"]),
    (["doc", "info"], "missing argument 'FILE'", ["doc", "info"]),
    (["doc", "info", "a", "b"], "unexpected argument 'b'", ["doc", "info"]),
    (["doc", "merge"], "missing argument 'FILE'", ["doc", "merge"]),
    (["doc", "info", "--typed", "a"], "unknown option '--typed'", ["doc", "info"]),
    (["__secret", "--deeper"], "unknown option '--deeper'; did you mean '--deep'?", ["__secret"]),
  ]

  /// The test table's groups: one message form (it starts with the option, so it is not in
  /// `rejected`, whose messages start lowercase), the two named in the group's order,
  /// whatever the order given.
  static let refusedTogether: [(arguments: [String], message: String, path: [String])] = [
    (
      ["merge-conflicts", "--check", "-n"], "--check and --dry-run cannot be used together",
      ["merge-conflicts"]
    ),
    (
      ["merge-conflicts", "-n", "--check"], "--check and --dry-run cannot be used together",
      ["merge-conflicts"]
    ),
    (
      ["--json", "export", "-r"], "--reproducible and --json cannot be used together", ["export"]
    ),
    (
      ["export", "--reproducible", "--json"], "--reproducible and --json cannot be used together",
      ["export"]
    ),
  ]

  @Test(arguments: refusedTogether)
  func refusesTogether(_ arguments: [String], _ message: String, _ path: [String]) {
    #expect(message.hasSuffix(" cannot be used together"))
    #expect(throws: UsageError(message: message, path: path), "\(arguments)") {
      try Self.parse(arguments)
    }
  }

  @Test(arguments: rejected)
  func rejects(_ arguments: [String], _ message: String, _ path: [String]) {
    #expect(message.first?.isLowercase == true && !message.hasSuffix("."))
    #expect(throws: UsageError(message: message, path: path), "\(arguments)") {
      try Self.parse(arguments)
    }
  }

  @Test func seeAlsoLine() {
    #expect(UsageError(message: "x", path: []).seeAlso == "see 'mn --help'")
    #expect(UsageError(message: "x", path: ["doc", "info"]).seeAlso == "see 'mn doc info --help'")
  }

  @Test func aVerbWithADefaultSubVerbRunsIt() throws {
    func parse(_ arguments: [String]) throws(UsageError) -> String {
      Self.describe(
        try Parser.parse(
          arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions))
    }
    #expect(try parse(["backups"]) == "run backups list")
    #expect(try parse(["backups", "--json"]) == "run backups list flags=json global=json")
    #expect(
      try parse(["backups", "prune", "--keep-last", "3", "-n"])
        == "run backups prune flags=dry-run keep-last=3")
    #expect(throws: UsageError.self) { try parse(["backups", "lsit"]) }
    // Without a default, a missing sub-verb is still an error.
    #expect(throws: UsageError.self) { try parse(["doc"]) }
  }

  @Test func invocationCarriesTheSpec() throws {
    guard case .run(let call) = try Self.parse(["doc", "info", "f"]) else {
      Issue.record("expected run")
      return
    }
    #expect(call.spec.name == "info")
  }

  /// A table whose verb has an at-most-one choice (with a global member), an exactly-one
  /// group and a group of value options.
  enum Paint {
    enum Color: Equatable { case red, green }
    enum Form: Equatable { case long, json }
    static let color = FlagChoice<Color>(
      [(.red, Flag("red", short: "r", help: "Red.")), (.green, Flag("green", help: "Green."))],
      exclusivity: .exactlyOne)
    static let form = FlagChoice<Form>([
      (.long, Flag("long", short: "l", help: "Long.")), (.json, CommandTable.Global.json),
    ])
    static let from = Option<String>("from", .path, valueName: "DIR", help: "From.")
    static let exec = Option<String>("exec", .command, valueName: "CMD", help: "Exec.")
    static let times = Option.count("times", help: "Times.")
    static let wait = Option.seconds("wait", help: "Wait.")
    static let spec = CommandSpec(
      name: "paint", abstract: "Paint.",
      options: [color, form, from, exec, OptionGroup.atMostOne(from, exec), times, wait])

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
      let outcome = try Parser.parse(
        ["paint"] + arguments, commands: [spec], globals: CommandTable.globalOptions)
      guard case .run(let call) = outcome else {
        throw UsageError(message: "not a run", path: [])
      }
      return call
    }
  }

  @Test func aChoiceReadsAsItsCase() throws {
    #expect(try Paint.parse(["--red"])[Paint.color] == .red)
    #expect(try Paint.parse(["--green"])[Paint.color] == .green)
    #expect(try Paint.parse(["--red"])[Paint.form] == nil)
    #expect(try Paint.parse(["--red", "-l"])[Paint.form] == .long)
    // The global --json is a case too, given before or after the verb.
    #expect(try Paint.parse(["--red", "--json"])[Paint.form] == .json)
    let call = try Parser.parse(
      ["--json", "paint", "--green"], commands: [Paint.spec], globals: CommandTable.globalOptions)
    guard case .run(let before) = call else {
      Issue.record("expected run")
      return
    }
    #expect(before[Paint.form] == .json)
    #expect(before.global.json)
  }

  @Test func valuesReadTyped() throws {
    let call = try Paint.parse(["--red", "--times", "3", "--wait=1.5", "--from", "a"])
    #expect(call[Paint.times] == 3)
    #expect(call[Paint.wait] == 1.5)
    #expect(call[Paint.from] == "a")
    #expect(call[Paint.exec] == nil)
    #expect(call[all: Paint.from] == ["a"])
  }

  static let groupErrors: [(arguments: [String], message: String)] = [
    (["--red", "--green"], "--red and --green cannot be used together"),
    (["--green", "-r"], "--red and --green cannot be used together"),
    (["-r", "-l", "--json"], "--long and --json cannot be used together"),
    (["--json", "--red", "-l"], "--long and --json cannot be used together"),
    (["--red", "--exec", "x", "--from", "y"], "--from and --exec cannot be used together"),
    (["--red", "--from=y", "--exec=x"], "--from and --exec cannot be used together"),
    ([], "one of --red and --green is needed"),
    (["-l"], "one of --red and --green is needed"),
  ]

  @Test(arguments: groupErrors)
  func groupsAreEnforced(_ arguments: [String], _ message: String) {
    #expect(throws: UsageError(message: message, path: ["paint"]), "\(arguments)") {
      try Paint.parse(arguments)
    }
  }

  @Test func helpWinsOverAGroup() throws {
    let outcome = try Parser.parse(
      ["paint", "--red", "--green", "--help"], commands: [Paint.spec],
      globals: CommandTable.globalOptions)
    #expect(Self.describe(outcome) == "help [paint]")
  }

  /// Every group of the real table, refused with the one message form.
  static let realGroups: [(arguments: [String], message: String)] = [
    (["ls", "--all", "--conflicts"], "--conflicts and --all cannot be used together"),
    (["ls", "--placeholders", "--all"], "--placeholders and --all cannot be used together"),
    (
      ["ls", "--placeholders", "--conflicts"],
      "--placeholders and --conflicts cannot be used together"
    ),
    (["ls", "--json", "-l"], "--long and --json cannot be used together"),
    (["ls", "-0", "--json"], "--json and --null cannot be used together"),
    (["ls", "-l0"], "--long and --null cannot be used together"),
    (["resolve", "--local", "--icloud"], "--icloud and --local cannot be used together"),
    (["fetch", "--exec", "true", "--from", "x"], "--from and --exec cannot be used together"),
    (
      ["migrate", "--fetch", "--fetch-from", "x", "--fetch-exec", "true"],
      "--fetch-from and --fetch-exec cannot be used together"
    ),
    (
      ["watch", "--fetch", "--fetch-exec", "true", "--fetch-from", "x"],
      "--fetch-from and --fetch-exec cannot be used together"
    ),
  ]

  @Test(arguments: realGroups)
  func theTablesGroupsAreEnforced(_ arguments: [String], _ message: String) {
    #expect(throws: UsageError(message: message, path: [arguments[0]]), "\(arguments)") {
      try Parser.parse(
        arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions)
    }
  }

  static let suggestions: [(word: String, candidates: [String], expected: String?)] = [
    ("merge-c", ["merge-conflicts", "migrate", "export"], "merge-conflicts"),
    ("mig", ["merge-conflicts", "migrate"], "migrate"),
    ("m", ["merge-conflicts", "migrate"], nil),
    ("resolv", ["resolve", "restore"], "resolve"),
    ("restroe", ["resolve", "restore"], "restore"),
    ("ls", ["ls", "fetch"], "ls"),
    ("xyz", ["ls", "fetch"], nil),
    ("", ["ls"], nil),
  ]

  @Test(arguments: suggestions)
  func didYouMean(_ word: String, _ candidates: [String], _ expected: String?) {
    #expect(Suggestion.closest(to: word, in: candidates) == expected)
  }

  @Test func editDistance() {
    #expect(Suggestion.editDistance("kitten", "sitting") == 3)
    #expect(Suggestion.editDistance("ab", "ba") == 1)
    #expect(Suggestion.editDistance("", "abc") == 3)
    #expect(Suggestion.editDistance("same", "same") == 0)
  }

  @Test func realTableParses() throws {
    let outcome = try Parser.parse(
      ["completion", "fish"], commands: CommandTable.commands, globals: CommandTable.globalOptions)
    #expect(Self.describe(outcome) == "run completion args=fish")
    #expect(throws: UsageError.self) {
      try Parser.parse(
        ["completion", "tcsh"], commands: CommandTable.commands,
        globals: CommandTable.globalOptions)
    }
  }
}
