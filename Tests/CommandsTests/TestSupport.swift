import Foundation
import Testing

@testable import Commands

/// Paths and helpers shared by the CommandsTests suites.
enum TestSupport {
  /// The package root, found from this file's path.
  static let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Whether snapshots and generated files are re-recorded (`MN_RECORD=1`).
  static var recording: Bool { ProcessInfo.processInfo.environment["MN_RECORD"] == "1" }

  /// Compares `actual` with `Snapshots/<name>.<ext>`; records it when missing (and fails) or
  /// when `MN_RECORD=1`.
  static func assertSnapshot(
    _ actual: String, named name: String, ext: String = "txt",
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let url = packageRoot.appendingPathComponent("Tests/CommandsTests/Snapshots")
      .appendingPathComponent("\(name).\(ext)")
    let existing = try? String(contentsOf: url, encoding: .utf8)
    if recording || existing == nil {
      try? FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try? actual.write(to: url, atomically: true, encoding: .utf8)
      if existing == nil {
        Issue.record(
          "recorded missing snapshot \(url.path); run again", sourceLocation: sourceLocation)
      }
      return
    }
    #expect(
      actual == existing, "snapshot \(name).\(ext) differs; MN_RECORD=1 re-records",
      sourceLocation: sourceLocation)
  }

  /// The result of running a program.
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs `executable` (found on PATH) with arguments; nil when it cannot be started.
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    directory: URL? = nil
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    var env = ProcessInfo.processInfo.environment
    env["LC_ALL"] = "C"
    env["TZ"] = "UTC"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }

  /// Whether a program is on PATH.
  static func onPath(_ name: String) -> Bool {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
  }

  /// A fresh temporary directory; the caller removes it.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("mn-cli-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// The test table's grouped options: `merge-conflicts --check | --dry-run`, and
  /// `export --reproducible | --json`.
  static let check = Flag("check", help: "Only check.")
  static let dryRun = Flag("dry-run", short: "n", help: "Do not write.")
  static let reproducible = Flag("reproducible", short: "r", help: "Fix times.")

  /// A small table for parser tests, independent of the real one.
  static let commands: [CommandSpec] = [
    CommandSpec(
      name: "merge-conflicts", abstract: "Merge conflict copies.",
      arguments: [
        ArgumentSpec("PATH", .document, help: "Documents.", optional: true, variadic: true)
      ],
      options: [
        check, dryRun, OptionSpec.option("wait", .seconds, valueName: "SECONDS", help: "Wait."),
        OptionGroup.atMostOne(check, dryRun),
      ]),
    CommandSpec(
      name: "export", abstract: "Write an archive.",
      options: [
        OptionSpec.option("output", short: "o", .path, valueName: "FILE", help: "Output."),
        OptionSpec.option(
          "format", .choice(["tar", "tar.gz", "zip"]), valueName: "FORMAT", help: "Format."),
        OptionSpec.option(
          "exclude", short: "x", .text, valueName: "GLOB", help: "Skip.", repeatable: true),
        OptionSpec.option("level", .count, valueName: "N", help: "Level."),
        reproducible,
        // A choice with a global member: `--json` is the table's, not the verb's.
        OptionGroup.atMostOne(reproducible, CommandTable.Global.json),
      ]),
    CommandSpec(
      name: "resolve", abstract: "Print the data folder.", aliases: ["where"],
      options: [OptionSpec.flag("explain", help: "Explain.")]),
    CommandSpec(
      name: "doc", abstract: "Work on documents.",
      subcommands: [
        CommandSpec(
          name: "info", abstract: "Describe a document.",
          arguments: [ArgumentSpec("FILE", .path, help: "The file.")]),
        CommandSpec(
          name: "merge", abstract: "Merge documents.",
          arguments: [ArgumentSpec("FILE", .path, help: "Inputs.", variadic: true)],
          options: [
            OptionSpec.option("output", short: "o", .path, valueName: "OUT", help: "Output.")
          ]),
      ]),
    CommandSpec(
      name: "__secret", abstract: "Hidden.", options: [OptionSpec.flag("deep", help: "Deep.")],
      flags: [.hidden]),
    Help.spec,
  ]

  static let globals = CommandTable.globalOptions
}
