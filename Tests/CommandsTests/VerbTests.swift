import AutomergeCodec
import Foundation
import Operations
import Platform
import Testing

@testable import Commands

/// The verbs of this branch, run in-process with a test Environment.
@Suite struct VerbTests {
  struct Run {
    var status: Commands.ExitStatus
    var stdout: String
    var stderr: String
  }

  static func run(_ arguments: [String], directory: String = "/") throws -> Run {
    let outcome = try Parser.parse(
      arguments, commands: CommandTable.commands, globals: CommandTable.globalOptions)
    guard case .run(let call) = outcome, case .plain(let run)? = call.spec.run else {
      throw UsageError(message: "not a run: \(outcome)", path: [])
    }
    let out = BufferSink()
    let err = BufferSink()
    let env = Environment(
      system: SystemContext(fileSystem: LiveFileSystem(), now: { 0 }),
      currentDirectory: AbsolutePath(directory), stdout: out, stderr: err)
    let status = try run(call, env)
    return Run(status: status, stdout: out.text, stderr: err.text)
  }

  @Test func helpVerbPrintsTheHelp() throws {
    let globals = CommandTable.globalOptions
    // `mn help VERB` is a help outcome of the parser; Help.run serves the same text.
    let call = Invocation(path: ["help"], spec: Help.spec, arguments: ["completion"])
    let out = BufferSink()
    let env = Environment(
      system: SystemContext(fileSystem: LiveFileSystem(), now: { 0 }), currentDirectory: "/",
      stdout: out, stderr: BufferSink())
    #expect(try Help.run(call, env) == Commands.ExitStatus.ok)
    #expect(
      out.text
        == HelpRenderer.help(for: ["completion"], commands: CommandTable.commands, globals: globals)
    )
  }

  @Test(arguments: Shell.allCases)
  func completionPrintsTheScript(_ shell: Shell) throws {
    let result = try Self.run(["completion", shell.rawValue])
    #expect(result.status == Commands.ExitStatus.ok)
    #expect(
      result.stdout
        == CompletionRenderer.script(
          for: shell, commands: CommandTable.commands, globals: CommandTable.globalOptions))
    #expect(result.stderr.isEmpty)
  }

  /// The verbs handed a data folder: the dispatcher, not the verb, says there is none.
  static let folderVerbs = CommandTable.commands.filter {
    if case .inFolder? = $0.run { return true }
    return false
  }.map(\.name)

  @Test func everyFolderVerbIsListed() {
    #expect(
      Set(Self.folderVerbs) == [
        "ls", "log", "fetch", "merge-conflicts", "compact", "export", "repair", "lock",
      ])
  }

  @Test(arguments: folderVerbs)
  func aMissingDataFolderIsReportedByTheDispatcher(_ verb: String) throws {
    let directory = try TestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let missing = directory.appendingPathComponent("nowhere").path
    let out = BufferSink()
    let err = BufferSink()
    let env = Environment(
      system: SystemContext(
        variables: ["HOME": directory.path], fileSystem: LiveFileSystem(), now: { 0 }),
      currentDirectory: AbsolutePath(directory.path), stdout: out, stderr: err)
    let command = verb == "lock" ? ["--", "true"] : []  // `lock` needs a command first
    #expect(
      CLI.run(["--root", missing, verb] + command, env) == Commands.ExitStatus.noInput.rawValue)
    #expect(err.text == "mn: error: data folder '\(missing)' does not exist\n", "\(verb)")
    #expect(out.text.isEmpty)
  }

  @Test func completeAnswersVerbsAndOptions() throws {
    #expect(try Self.run(["__complete", "verb", "compl"]).stdout == "completion\n")
    #expect(try Self.run(["__complete", "verb", "__"]).stdout == "")
    #expect(
      try Self.run(["__complete", "option", "completion", "--", "--no-c"]).stdout == "--no-color\n")
    #expect(try Self.run(["__complete", "document", "--", "x"]).status == Commands.ExitStatus.ok)
  }

  @Test func generateDocsWritesEveryFile() throws {
    let directory = try TestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let man = directory.appendingPathComponent("man")
    try FileManager.default.createDirectory(at: man, withIntermediateDirectories: true)
    try "stale".write(
      to: man.appendingPathComponent("mn-gone.1"), atomically: true, encoding: .utf8)
    try "keep".write(to: man.appendingPathComponent("README"), atomically: true, encoding: .utf8)
    let result = try Self.run(
      ["__generate-docs", directory.lastPathComponent],
      directory: directory.deletingLastPathComponent().path)
    #expect(result.status == Commands.ExitStatus.ok)
    for (path, text) in DocsGenerator.files() {
      let written = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
      #expect(written == text, "\(path)")
    }
    #expect(!FileManager.default.fileExists(atPath: man.appendingPathComponent("mn-gone.1").path))
    #expect(FileManager.default.fileExists(atPath: man.appendingPathComponent("README").path))
    let names = try FileManager.default.contentsOfDirectory(atPath: man.path)
    #expect(!names.contains { $0.hasSuffix(".nosync") })
  }
}

/// `doc check` of a file that Automerge 0.6.1 opens and 0.11 refuses: valid, with a warning.
@Suite struct DocCheckTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(
      "Fixtures/valid/upstream/broken_zero_width_mark.automerge"
    ).path

  @Test func aFileOnlyTheOlderAutomergeOpensIsValidWithAWarning() throws {
    let result = try VerbTests.run(["doc", "check", Self.fixture])
    #expect(result.status == Commands.ExitStatus.ok)
    #expect(result.stderr.contains("warning"))
    #expect(result.stderr.contains("Automerge 0.11 and later refuse this file"))
    let json = try VerbTests.run(["--json", "doc", "check", Self.fixture])
    #expect(json.stdout.contains("refusedByNewerAutomerge"))
    let quiet = try VerbTests.run(["-q", "doc", "check", Self.fixture])
    #expect(quiet.stderr.isEmpty)
  }
}
