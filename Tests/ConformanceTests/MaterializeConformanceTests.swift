import Foundation
import Testing

@testable import AutomergeCodec

/// The expected JSON beside a fixture: `.json` / `.typed.json`, or their `.gz` forms.
enum ExpectedJSON {
  /// Reads `prefix + suffix`, or `prefix + suffix + ".gz"` inflated with `gzip -dc`.
  static func read(_ prefix: String, _ suffix: String) throws -> JSONValue? {
    if let bytes = SharedFixtures.read(prefix + suffix) {
      return try JSONParser.parse(bytes, maxDepth: 10_000).sortedKeys
    }
    let gz = SharedFixtures.root.appendingPathComponent(prefix + suffix + ".gz")
    guard FileManager.default.fileExists(atPath: gz.path) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gzip", "-dc", gz.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "gzip -dc \(gz.path) failed")
    return try JSONParser.parse([UInt8](data), maxDepth: 10_000).sortedKeys
  }

  /// Where the expectations of a fixture live (corpus: beside it; upstream: mirrored, with
  /// Automerge 0.6.1's answers over 0.11's where they differ).
  static func prefix(of rel: String) -> String {
    rel.hasPrefix("upstream/") ? SharedFixtures.upstreamExpectation(rel) : rel
  }

  /// Every fixture that has a plain or typed JSON expectation.
  static let fixtures: [String] = (SharedFixtures.corpusFiles + SharedFixtures.upstreamFiles).filter
  {
    let p = prefix(of: $0)
    return [".json", ".json.gz", ".typed.json", ".typed.json.gz"].contains {
      FileManager.default.fileExists(
        atPath: SharedFixtures.root.appendingPathComponent(p + $0).path)
    }
  }
}

/// Materializing every fixture gives exactly the real Automerge's JSON, plain and typed.
@Suite struct MaterializeConformanceTests {
  @Test func fixturesHaveJSON() {
    #expect(SharedFixtures.exists, "the shared fixtures are missing at \(SharedFixtures.root.path)")
    #expect(
      ExpectedJSON.fixtures.count >= 100,
      "too few fixtures with JSON: \(ExpectedJSON.fixtures.count)")
  }

  @Test(arguments: ExpectedJSON.fixtures)
  func materializedJSONMatches(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    let file = try AutomergeFile.decode(bytes)
    let opSet = try OpSet(changes: file.changes)
    #expect(opSet.unappliedChangeCount == file.orphans.count, "\(rel): orphans")
    let prefix = ExpectedJSON.prefix(of: rel)
    var compared = 0
    for (suffix, typed) in [(".json", false), (".typed.json", true)] {
      guard let expected = try ExpectedJSON.read(prefix, suffix) else { continue }
      let actual = try opSet.json(typed: typed).sortedKeys
      #expect(actual == expected, "\(rel)\(suffix) differs")
      // And the text we write parses back to the same value.
      let reparsed = try JSONParser.parse(Array(JSONWriter.string(actual).utf8), maxDepth: 10_000)
      #expect(reparsed == actual, "\(rel)\(suffix): written JSON does not read back")
      compared += 1
    }
    #expect(compared > 0)
  }

  /// A file that is one document chunk is materialized from its columns (`doc show`'s
  /// path) to the same JSON, plain and typed.
  @Test(arguments: ExpectedJSON.fixtures)
  func documentChunkJSONMatches(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    let prefix = ExpectedJSON.prefix(of: rel)
    for (suffix, typed) in [(".json", false), (".typed.json", true)] {
      guard let expected = try ExpectedJSON.read(prefix, suffix),
        let actual = try Materializer.materializeDocumentChunk(bytes, typed: typed)
      else { continue }
      #expect(actual.sortedKeys == expected, "\(rel)\(suffix) differs from its columns")
    }
  }

  /// Every corpus file that Automerge's save() wrote takes the column path.
  @Test func savedDocumentsTakeTheColumnPath() throws {
    let saved = ExpectedJSON.fixtures.filter {
      $0.hasPrefix("corpus/") && $0.hasSuffix("/09.automerge") && !$0.contains("/merged/")
    }
    #expect(saved.count >= 10)
    for rel in saved {
      let bytes = try #require(SharedFixtures.read(rel))
      #expect(try Materializer.materializeDocumentChunk(bytes, typed: false) != nil, "\(rel)")
    }
  }
}
