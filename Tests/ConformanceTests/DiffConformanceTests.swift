import Foundation
import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// `mn diff`'s comparison (`DocumentDiff`) against the real Automerge, over the corpus's
/// device copies: the changes only in either side are the set differences of
/// `am-oracle changes` (the `.changes` expectation files, whole lines: hash, actor, seq,
/// startOp, time, deps, message), and the JSON Patch applied to `am-oracle json` of the
/// first side gives `am-oracle json` of the merge (the `merged/…device-0+device-1` files,
/// and `am-oracle merge` for the other pairs when the tool is there).
@Suite struct DiffConformanceTests {
  static let oracle = SharedFixtures.root.deletingLastPathComponent()
    .appendingPathComponent("tools/am-oracle")

  /// `seed-NN/DOC` for every seed and both documents.
  static let cases: [String] = {
    guard SharedFixtures.exists else { return [] }
    let seeds =
      (try? FileManager.default.contentsOfDirectory(
        atPath: SharedFixtures.root.appendingPathComponent("corpus").path)) ?? []
    return seeds.filter { $0.hasPrefix("seed-") }.sorted().flatMap {
      ["\($0)/tags.automerge", "\($0)/records/2026/09.automerge"]
    }
  }()

  static func lines(_ rel: String) throws -> Set<String> {
    let text = try #require(SharedFixtures.text(rel + ".changes"), "missing \(rel).changes")
    return Set(text.split(separator: "\n").map { String($0) + "\n" })
  }

  static func json(_ rel: String) throws -> JSONValue {
    try JSONParser.parse(try #require(SharedFixtures.read(rel + ".json"), "missing \(rel).json"))
  }

  /// `am-oracle merge A B OUT` then `am-oracle json OUT`; nil without the tool.
  static func oracleMergeJSON(_ a: String, _ b: String) throws -> JSONValue? {
    guard FileManager.default.isExecutableFile(atPath: oracle.path) else { return nil }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mn-diff-conformance-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("merged.automerge").path
    func run(_ arguments: [String]) throws -> Data {
      let p = Process()
      p.executableURL = oracle
      p.arguments = arguments
      let pipe = Pipe()
      p.standardOutput = pipe
      try p.run()
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      #expect(p.terminationStatus == 0, "am-oracle \(arguments)")
      return data
    }
    let root = SharedFixtures.root.path + "/"
    _ = try run(["merge", root + a, root + b, out])
    return try JSONParser.parse([UInt8](try run(["json", out])))
  }

  @Test(arguments: cases)
  func devicePairs(_ rel: String) throws {
    let seed = String(rel.prefix(while: { $0 != "/" }))
    let doc = String(rel.dropFirst(seed.count + 1))
    let stem = String(doc.dropLast(".automerge".count))
    let seedDir = "corpus/\(seed)"
    let devices =
      (try FileManager.default.contentsOfDirectory(
        atPath: SharedFixtures.root.appendingPathComponent(seedDir).path))
      .filter { $0.hasPrefix("device-") }.sorted()
    #expect(devices.count >= 2)
    for first in devices {
      for second in devices where second != first {
        let a = "\(seedDir)/\(first)/\(doc)"
        let b = "\(seedDir)/\(second)/\(doc)"
        let aBytes = try #require(SharedFixtures.read(a))
        let bBytes = try #require(SharedFixtures.read(b))
        let diff = try DocumentDiff.compare(aBytes, bBytes)
        let (aLines, bLines) = (try Self.lines(a), try Self.lines(b))
        #expect(
          Set(diff.onlyInFirst.map { ChangeListing.line($0.change) }) == aLines.subtracting(bLines),
          "only in \(a) vs \(b)")
        #expect(
          Set(diff.onlyInSecond.map { ChangeListing.line($0.change) })
            == bLines.subtracting(aLines),
          "only in \(b) vs \(a)")
        #expect(diff.same == (aLines == bLines))
        let expected: JSONValue?
        if first == "device-0" && second == "device-1" {
          expected = try Self.json("\(seedDir)/merged/\(stem).device-0+device-1.automerge")
        } else {
          expected = try Self.oracleMergeJSON(a, b)
        }
        if let expected {
          let applied = try JSONPatchApplier.apply(diff.patch, to: Self.json(a))
          #expect(
            JSONPatchApplier.sortedKeys(applied) == JSONPatchApplier.sortedKeys(expected),
            "patch(\(a)) == json(merge(\(a), \(b)))")
        }
        // The other forms of the second device's copy hold the same changes.
        for form in ["incremental", "changes"] {
          let other = try #require(
            SharedFixtures.read("\(seedDir)/\(second)/\(stem).\(form).automerge"))
          let again = try DocumentDiff.compare(aBytes, other)
          #expect(
            Set(again.onlyInSecond.map(\.change.hash)) == Set(diff.onlyInSecond.map(\.change.hash)))
          #expect(again.patch == diff.patch, "\(form) form of \(b)")
        }
      }
    }
  }
}
