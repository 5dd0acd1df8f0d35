import Foundation
import TestSupport
import Testing

@testable import AutomergeCodec

/// `DocumentEncoder.save` (`mn doc save`) on every fixture that loads, judged by the real
/// Automerge: 0.11 and 0.6.1 load the output with the input's heads, changes and JSON, and
/// its inflated columns equal those of 0.11's own `save()` of the same input.
@Suite struct DocumentSaveConformanceTests {
  static let tools = SharedFixtures.root.deletingLastPathComponent().appendingPathComponent(
    "tools")

  static var oraclesPresent: Bool {
    ["am-oracle", "am-oracle-0.6"].allSatisfy {
      FileManager.default.isExecutableFile(atPath: tools.appendingPathComponent($0).path)
    }
  }

  /// Runs a tool; its standard output and exit status.
  static func run(_ tool: String, _ arguments: [String]) throws -> (String, Int32) {
    let p = Process()
    p.executableURL = tools.appendingPathComponent(tool)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), p.terminationStatus)
  }

  /// The largest fixture that 0.6.1 judges too.
  static let smallFixture = 100_000

  @Test func oraclesArePresent() {
    #expect(Self.oraclesPresent, "../shared/tools/am-oracle and am-oracle-0.6 are needed here")
  }

  @Test(arguments: SharedFixtures.corpusFiles + SharedFixtures.upstreamFiles)
  func saveMatchesTheReference(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    guard let file = try? AutomergeFile.decode(bytes, keepOps: false) else { return }
    let saved = try DocumentEncoder.save(bytes)
    let back = try AutomergeFile.decode(saved.bytes, keepOps: false)
    #expect(back.heads == file.heads, "\(rel): heads differ")
    #expect(
      ChangeListing.changes(back.changes) == ChangeListing.changes(file.changes),
      "\(rel): changes differ")
    #expect(back.chunks.first?.type == .document || file.changes.isEmpty, "\(rel): no document")
    #expect(
      back.chunks.count == 1 + file.orphans.count || file.changes.isEmpty,
      "\(rel): not one document chunk and its orphans")

    guard Self.oraclesPresent else { return }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mn-save-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = SharedFixtures.root.appendingPathComponent(rel).path
    let mine = dir.appendingPathComponent("mn.automerge").path
    let theirs = dir.appendingPathComponent("am.automerge").path
    try Data(saved.bytes).write(to: URL(fileURLWithPath: mine))
    guard try Self.run("am-oracle", ["check", input]).1 == 0 else { return }
    #expect(try Self.run("am-oracle", ["save", input, theirs]).1 == 0)
    let reference = try [UInt8](Data(contentsOf: URL(fileURLWithPath: theirs)))
    #expect(
      DocumentColumns.listing(saved.bytes) == DocumentColumns.listing(reference),
      "\(rel): inflated columns differ from am-oracle save's")
    // 0.6.1 takes 30-50 s a call on the large benchmark documents (godot-thread, essay, the
    // egwalker traces): it judges every fixture under 100 KB, 0.11 judges them all, so that
    // `make conformance` stays within CI's time.
    let judges = bytes.count < Self.smallFixture ? ["am-oracle", "am-oracle-0.6"] : ["am-oracle"]
    for tool in judges {
      let verbs = ["heads", "changes", "json"]
      #expect(try Self.run(tool, ["check", mine]).1 == 0, "\(rel): \(tool) refuses the output")
      for verb in verbs {
        let (a, sa) = try Self.run(tool, [verb, mine])
        let (b, sb) = try Self.run(tool, [verb, input])
        #expect(sa == sb && a == b, "\(rel): \(tool) \(verb) differs")
      }
    }
  }
}
