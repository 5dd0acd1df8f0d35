import Foundation
import Operations
import Platform
import Testing

@testable import Commands

/// `mn log --summary` in-process, with the terminal flag injected: a sparkline on a
/// terminal, plain counts otherwise; and `--since` durations counted back from the injected
/// clock.
@Suite struct LogVerbTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/conflicts/seed-01")

  static func folder() throws -> URL {
    let directory = try TestSupport.temporaryDirectory()
    let month = directory.appendingPathComponent("records/2026")
    try FileManager.default.createDirectory(at: month, withIntermediateDirectories: true)
    for (source, target) in [
      ("device-0/records/2026/09.automerge", "records/2026/09.automerge"),
      ("device-1/records/2026/09.automerge", "records/2026/09 2.automerge"),
      ("device-0/tags.automerge", "tags.automerge"),
    ] {
      try FileManager.default.copyItem(
        at: fixtures.appendingPathComponent(source),
        to: directory.appendingPathComponent(target))
    }
    return directory
  }

  static func run(_ arguments: [String], terminal: Bool, now: Int64 = 0) throws -> (
    Int32, String, String
  ) {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = BufferSink()
    let err = BufferSink()
    let env = Environment(
      system: SystemContext(
        variables: ["HOME": directory.path], fileSystem: LiveFileSystem(), now: { Double(now) }),
      currentDirectory: AbsolutePath(directory.path), stdout: out, stderr: err,
      stdoutIsTerminal: terminal,
      utcOffset: { _ in 3600 })
    let status = CLI.run(["--root", directory.path, "log"] + arguments, env)
    return (status, out.text, err.text)
  }

  @Test func summaryIsASparklineOnATerminalAndCountsOtherwise() throws {
    let (status, terminal, err) = try Self.run(["--summary"], terminal: true)
    #expect(status == 0, "\(err)")
    let (_, plain, _) = try Self.run(["--summary"], terminal: false)
    let rows = terminal.split(separator: "\n").dropFirst()
    let plainRows = plain.split(separator: "\n").dropFirst()
    #expect(rows.count == 2 && plainRows.count == 2, "two actors: \(terminal)")
    let blocks = Set("▁▂▃▄▅▆▇█")
    for (row, plainRow) in zip(rows, plainRows) {
      let bar = try #require(
        row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first)
      #expect(bar.count == 24)
      #expect(bar.allSatisfy { $0 == " " || blocks.contains($0) })
      let counts = plainRow.split(separator: " ").suffix(24).compactMap { Int($0) }
      #expect(counts.count == 24)
      // A column is blank exactly where its count is 0, and the busiest is a full block.
      #expect(zip(bar, counts).allSatisfy { ($0 == " ") == ($1 == 0) })
      #expect(!row.contains("|") || !plainRow.contains("|"))
    }
    #expect(rows.contains { $0.contains("█") })
    // Local time with the injected offset.
    #expect(terminal.hasPrefix("period: 2026-09-02 09:10:07 +0100 to "))
  }

  @Test func sinceADurationCountsBackFromTheInjectedClock() throws {
    // 1788343396 is device 1's second change; 1 h later, --since 1h keeps it and what follows.
    let (_, recent, _) = try Self.run(
      ["--since", "1h", "--utc"], terminal: false, now: 1_788_346_996)
    let times = recent.split(separator: "\n").map { String($0.prefix(19)) }
    #expect(!times.isEmpty)
    #expect(times.allSatisfy { $0 >= "2026-09-02 10:03:16" }, "\(recent)")
    #expect(times.contains("2026-09-02 10:03:16"))
  }
}
