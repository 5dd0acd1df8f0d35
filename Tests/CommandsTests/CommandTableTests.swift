import Foundation
import Operations
import Platform
import Testing

@testable import Commands

/// The command table lints itself, and every verb answers `--help` (style.md (b), 2 and 3).
@Suite struct CommandTableTests {
  /// Every verb path of a table, sub-verbs and hidden verbs included.
  static func paths(_ commands: [CommandSpec], prefix: [String] = []) -> [([String], CommandSpec)] {
    commands.flatMap { spec in
      [(prefix + [spec.name], spec)] + paths(spec.subcommands, prefix: prefix + [spec.name])
    }
  }

  static let realPaths = paths(CommandTable.commands)
  static let allPaths = realPaths + paths(TestSupport.commands).map { ($0.0, $0.1) }

  static func isKebab(_ name: String) -> Bool {
    let parts = name.split(separator: "-", omittingEmptySubsequences: false)
    return !name.isEmpty
      && parts.allSatisfy { part in
        !part.isEmpty && part.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
      } && ("a"..."z").contains(name.first ?? "-")
  }

  static func isSentence(_ text: String) -> Bool {
    guard let first = text.first, first.isUppercase, text.hasSuffix(".") else { return false }
    return !text.contains("\n")
  }

  @Test func namesAreLowercaseKebabCase() {
    for (path, spec) in Self.realPaths {
      let name =
        spec.isHidden && spec.name.hasPrefix("__") ? String(spec.name.dropFirst(2)) : spec.name
      #expect(Self.isKebab(name), "verb '\(path.joined(separator: " "))'")
      for alias in spec.aliases { #expect(Self.isKebab(alias), "alias '\(alias)'") }
      for option in spec.options { #expect(Self.isKebab(option.name), "option '--\(option.name)'") }
    }
    for option in CommandTable.globalOptions {
      #expect(Self.isKebab(option.name), "global option '--\(option.name)'")
    }
  }

  @Test func helpLinesAreOneSentenceLines() {
    for (path, spec) in Self.realPaths {
      let verb = path.joined(separator: " ")
      #expect(Self.isSentence(spec.abstract), "abstract of '\(verb)': \(spec.abstract)")
      for option in spec.options {
        #expect(Self.isSentence(option.help), "help of '\(verb) --\(option.name)'")
      }
      for argument in spec.arguments {
        #expect(Self.isSentence(argument.help), "help of '\(verb) \(argument.name)'")
      }
      for example in spec.examples {
        #expect(example.command.hasPrefix("mn "), "example of '\(verb)': \(example.command)")
        #expect(Self.isSentence(example.explanation), "example of '\(verb)'")
      }
    }
    for option in CommandTable.globalOptions { #expect(Self.isSentence(option.help)) }
    for variable in CommandTable.environment {
      #expect(variable.help.hasSuffix(".") && !variable.help.contains("\n"), "\(variable.name)")
    }
    #expect(Self.isSentence(CommandTable.abstract))
  }

  @Test func noClashes() {
    var names: Set<String> = []
    for spec in CommandTable.commands {
      for name in spec.allNames {
        #expect(names.insert(name).inserted, "verb name or alias '\(name)' is used twice")
      }
    }
    for (path, spec) in Self.realPaths {
      let verb = path.joined(separator: " ")
      var subNames: Set<String> = []
      for sub in spec.subcommands {
        for name in sub.allNames {
          #expect(subNames.insert(name).inserted, "sub-verb '\(name)' of '\(verb)' is used twice")
        }
      }
      var longs: Set<String> = []
      var shorts: Set<Character> = []
      for option in spec.options + CommandTable.globalOptions {
        #expect(longs.insert(option.name).inserted, "'--\(option.name)' clashes in '\(verb)'")
        if let short = option.short {
          #expect(shorts.insert(short).inserted, "'-\(short)' clashes in '\(verb)'")
        }
      }
    }
  }

  /// A verb is handed the data folder exactly when the table says it needs one, and each
  /// group names at least two distinct options of the verb or global options.
  @Test func foldersAndGroupsAgreeWithTheTable() {
    let globals = Set(CommandTable.globalOptions.map(\.name))
    for (path, spec) in Self.realPaths {
      let verb = path.joined(separator: " ")
      let needsFolder = !spec.flags.isDisjoint(with: [.needsStore, .writesStore])
      if case .inFolder? = spec.run {
        #expect(needsFolder, "'\(verb)' takes a root but the table does not discover one")
      } else if spec.run != nil {
        #expect(!needsFolder, "'\(verb)' needs a data folder but is not handed one")
      }
      let own = Set(spec.options.map(\.name))
      for group in spec.groups {
        #expect(group.names.count >= 2, "'\(verb)': a group of one")
        #expect(Set(group.names).count == group.names.count, "'\(verb)': a member twice")
        for name in group.names {
          #expect(own.contains(name) || globals.contains(name), "'\(verb)': no option '\(name)'")
        }
      }
    }
  }

  @Test func specsAreWellFormed() {
    for (path, spec) in Self.realPaths {
      let verb = path.joined(separator: " ")
      #expect(spec.exits.first == .ok, "'\(verb)' lists ok first")
      #expect(spec.exits.contains(.usage), "'\(verb)' can fail with usage")
      if spec.subcommands.isEmpty {
        #expect(spec.run != nil, "'\(verb)' has no run")
      } else {
        #expect(spec.run == nil, "'\(verb)' has sub-verbs and a run")
        #expect(spec.arguments.isEmpty, "'\(verb)' has sub-verbs and arguments")
        if let name = spec.defaultSubcommand {
          #expect(
            spec.visibleSubcommands.contains { $0.name == name },
            "'\(verb)' defaults to '\(name)', which is not one of its sub-verbs")
        }
      }
      for (index, argument) in spec.arguments.enumerated() {
        #expect(argument.name == argument.name.uppercased(), "'\(verb) \(argument.name)'")
        if argument.variadic {
          #expect(index == spec.arguments.count - 1, "'\(verb)' variadic last")
        }
        if index > 0, spec.arguments[index - 1].optional {
          #expect(argument.optional, "'\(verb)': required '\(argument.name)' after an optional one")
        }
      }
      for option in spec.options where option.takesValue {
        #expect(!option.valueName.isEmpty && option.valueName == option.valueName.uppercased())
      }
    }
  }

  /// `mn VERB --help`, `mn VERB -h` and `mn help VERB` all render the verb's help.
  @Test(arguments: allPaths.map(\.0))
  func everyVerbAnswersHelp(_ path: [String]) throws {
    let table =
      CommandTable.commands.command(at: path) != nil ? CommandTable.commands : TestSupport.commands
    for arguments in [path + ["--help"], path + ["-h"], ["help"] + path] {
      let outcome = try Parser.parse(
        arguments, commands: table, globals: CommandTable.globalOptions)
      guard case .help(let helpPath) = outcome else {
        Issue.record("\(arguments) gives \(outcome)")
        continue
      }
      #expect(helpPath == path)
      let text = HelpRenderer.help(
        for: helpPath, commands: table, globals: CommandTable.globalOptions)
      #expect(text?.contains("\nUSAGE: mn \(path.joined(separator: " "))") == true, "\(arguments)")
    }
  }

  /// Through the dispatcher: exit 0, the help on standard output, nothing on standard error.
  @Test(arguments: realPaths.map(\.0))
  func everyVerbAnswersHelpThroughCLI(_ path: [String]) {
    for arguments in [path + ["--help"], ["help"] + path] {
      let out = BufferSink()
      let err = BufferSink()
      let env = Environment(
        system: SystemContext(fileSystem: LiveFileSystem(), now: { 0 }), currentDirectory: "/",
        stdout: out, stderr: err)
      #expect(CLI.run(arguments, env) == 0, "\(arguments)")
      #expect(out.text.contains("\nUSAGE: mn \(path.joined(separator: " "))"), "\(arguments)")
      #expect(err.text.isEmpty, "\(arguments): \(err.text)")
    }
  }

  @Test func topLevelHelp() throws {
    for arguments in [[], ["help"], ["--help"], ["-h"]] {
      let outcome = try Parser.parse(
        arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions)
      guard case .help(let path) = outcome else {
        Issue.record("\(arguments) gives \(outcome)")
        continue
      }
      #expect(path.isEmpty)
    }
    let text = HelpRenderer.topLevel(
      commands: CommandTable.commands, globals: CommandTable.globalOptions)
    #expect(text.contains("USAGE: mn "))
    for spec in CommandTable.commands {
      #expect(text.contains("\n  \(spec.name) ") == !spec.isHidden, "\(spec.name)")
    }
  }
}
