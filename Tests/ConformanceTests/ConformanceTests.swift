import Foundation
import Testing

@testable import AutomergeCodec

/// The shared fixtures: `../shared/fixtures` beside the package root.
enum SharedFixtures {
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/fixtures")

  static var exists: Bool {
    var dir: ObjCBool = false
    return FileManager.default.fileExists(atPath: root.path, isDirectory: &dir) && dir.boolValue
  }

  static let expectationSuffixes = [
    ".heads", ".changes", ".chunks", ".json", ".typed.json", ".json.gz", ".typed.json.gz",
    ".rejected",
    ".changes.sha256", ".changes.count", ".md",
  ]

  /// Every data file under `dir` (relative paths, sorted), skipping expectation files.
  static func dataFiles(under dir: String) -> [String] {
    let base = root.appendingPathComponent(dir)
    guard let e = FileManager.default.enumerator(atPath: base.path) else { return [] }
    var out: [String] = []
    while let rel = e.nextObject() as? String {
      var isDir: ObjCBool = false
      _ = FileManager.default.fileExists(
        atPath: base.appendingPathComponent(rel).path, isDirectory: &isDir)
      if isDir.boolValue { continue }
      if expectationSuffixes.contains(where: { rel.hasSuffix($0) }) || rel.hasSuffix("gen.json") {
        continue
      }
      out.append(dir + "/" + rel)
    }
    return out.sorted()
  }

  static func read(_ rel: String) -> [UInt8]? {
    (try? Data(contentsOf: root.appendingPathComponent(rel))).map { [UInt8]($0) }
  }

  static func text(_ rel: String) -> String? {
    read(rel).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The corpus files, and the upstream files with the path of their expectations.
  static let corpusFiles = dataFiles(under: "corpus")
  static let upstreamFiles = dataFiles(under: "upstream")

  /// Where the expectations of an upstream file live: Automerge 0.6.1's answers
  /// (`upstream-expected-0.6/`) where they differ from 0.11's, else 0.11's. Where the two
  /// versions disagree, mn accepts what either accepts (issue 19): the 0.6.1 answer wins.
  static func upstreamExpectation(_ rel: String) -> String {
    let tail = rel.dropFirst("upstream".count)
    let old = "upstream-expected-0.6" + tail
    let answers = [".heads", ".changes", ".json", ".typed.json", ".rejected"]
    if answers.contains(where: { read(old + $0) != nil }) { return old }
    return "upstream-expected" + tail
  }
}

/// What the real Automerge says about one file.
struct Expectation {
  var rejected = false
  var heads: String?
  var changes: String?
  var changesSHA256: String?
  var changesCount: Int?

  init(prefix: String) {
    rejected = SharedFixtures.read(prefix + ".rejected") != nil
    heads = SharedFixtures.text(prefix + ".heads")
    changes = SharedFixtures.text(prefix + ".changes")
    changesSHA256 = SharedFixtures.text(prefix + ".changes.sha256")?.trimmingCharacters(
      in: .whitespacesAndNewlines)
    changesCount = SharedFixtures.text(prefix + ".changes.count").flatMap {
      Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
  }

  var isEmpty: Bool { !rejected && heads == nil && changes == nil && changesSHA256 == nil }

  /// Checks a decoded file (or its error) against the expectation.
  func check(_ name: String, _ result: Result<AutomergeFile, Error>) {
    switch result {
    case .failure(let error):
      #expect(rejected, "\(name): rejected but should load: \(error)")
    case .success(let file):
      #expect(!rejected, "\(name): loaded but the reference rejects it")
      if rejected { return }
      if let heads { #expect(ChangeListing.heads(file.heads) == heads, "\(name): heads differ") }
      let listing = ChangeListing.changes(file.changes)
      if let changes {
        #expect(listing == changes, "\(name): change listing differs")
      }
      if let changesSHA256 {
        let digest = SHA256.hash(Array(listing.utf8)).description
        #expect(digest == changesSHA256, "\(name): change listing sha256 differs")
      }
      if let changesCount {
        #expect(file.changes.count == changesCount, "\(name): change count differs")
      }
    // JSON (`.json`, `.typed.json`) is compared by the materializer's conformance suite.
    }
  }
}

@Suite struct ConformanceTests {
  @Test func fixturesArePresent() {
    #expect(
      SharedFixtures.exists,
      "the shared fixtures are missing at \(SharedFixtures.root.path): the conformance suite needs them"
    )
    #expect(
      SharedFixtures.corpusFiles.count >= 100,
      "too few corpus files: \(SharedFixtures.corpusFiles.count)")
    #expect(
      SharedFixtures.upstreamFiles.count >= 30,
      "too few upstream files: \(SharedFixtures.upstreamFiles.count)")
  }

  @Test(arguments: SharedFixtures.corpusFiles)
  func corpusFile(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    let expected = Expectation(prefix: rel)
    #expect(!expected.isEmpty, "\(rel): no expectation files")
    expected.check(rel, Result { try AutomergeFile.decode(bytes) })
  }

  @Test(arguments: SharedFixtures.upstreamFiles)
  func upstreamFile(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    let expectedPath = SharedFixtures.upstreamExpectation(rel)
    let expected = Expectation(prefix: expectedPath)
    #expect(!expected.isEmpty, "\(rel): no expectation files")
    let result = Result { try AutomergeFile.decode(bytes) }
    expected.check(rel, result)
    // A file only 0.6.1 opens is reported as refused by the newer Automerge; any other
    // file that opens is not.
    let newerRejects =
      SharedFixtures.read("upstream-expected" + rel.dropFirst("upstream".count) + ".rejected")
      != nil
    if case .success(let file) = result {
      #expect(
        file.refusedByNewerAutomerge.isEmpty != newerRejects,
        "\(rel): refusedByNewerAutomerge is \(file.refusedByNewerAutomerge)")
    }
  }

  /// Every change of every fixture re-encodes to its own canonical bytes.
  @Test(arguments: SharedFixtures.corpusFiles)
  func changesReencode(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    let file = try AutomergeFile.decode(bytes)
    for c in file.changes {
      let (chunk, hash) = c.encoded()
      #expect(hash == c.hash && chunk == c.chunk, "\(rel): change \(c.hash) re-encodes differently")
    }
  }

  /// The archive manifest's quick summary, where it applies, equals what the reference
  /// lists; a file the reference rejects is never summarised as something else than its
  /// own chunks say.
  @Test(arguments: SharedFixtures.corpusFiles)
  func quickSummary(_ rel: String) throws {
    let bytes = try #require(SharedFixtures.read(rel))
    let expected = Expectation(prefix: rel)
    guard !expected.rejected, let quick = try QuickSummary.summarize(bytes) else { return }
    if let heads = expected.heads {
      #expect(ChangeListing.heads(quick.heads) == heads, "\(rel): heads differ")
    }
    let file = try AutomergeFile.decode(bytes, keepOps: false)
    #expect(quick.changes == file.changes.count, "\(rel): change count differs")
  }

  static let mergeCases: [String] = {
    var out: [String] = []
    for seed
      in (try? FileManager.default.contentsOfDirectory(
        atPath: SharedFixtures.root.appendingPathComponent("corpus").path)) ?? []
    where seed.hasPrefix("seed-") {
      out.append("corpus/\(seed)/tags.automerge")
      out.append("corpus/\(seed)/records/2026/09.automerge")
    }
    return out.sorted()
  }()

  /// Merging each seed's device copies gives what the reference gives for `merged/`.
  @Test(arguments: mergeCases)
  func mergeDevices(_ doc: String) throws {
    let parts = doc.split(separator: "/", maxSplits: 2).map(String.init)
    let seedDir = parts[0] + "/" + parts[1]
    let name = parts[2]
    let devices =
      (try FileManager.default.contentsOfDirectory(
        atPath: SharedFixtures.root.appendingPathComponent(seedDir).path))
      .filter { $0.hasPrefix("device-") }.sorted()
    let inputs = try devices.map { try #require(SharedFixtures.read("\(seedDir)/\($0)/\(name)")) }
    let result = try AutomergeMerge.merge(inputs)
    #expect(result.bytes.starts(with: inputs[result.base]))
    let merged = try AutomergeFile.decode(result.bytes)
    let expected = Expectation(prefix: "\(seedDir)/merged/\(name)")
    expected.check("merge of \(doc)", .success(merged))
    #expect(try AutomergeMerge.verify(result.bytes, inputs: inputs))

    // device-0 + device-1, also from the incremental and changes-only variants.
    let stem = name.hasSuffix(".automerge") ? String(name.dropLast(".automerge".count)) : name
    let pairName = "\(seedDir)/merged/\(stem).device-0+device-1.automerge"
    let pair = Expectation(prefix: pairName)
    let d0 = inputs[0]
    let d1 = inputs[1]
    pair.check(
      "merge d0+d1 of \(doc)",
      Result { try AutomergeFile.decode(AutomergeMerge.merge([d0, d1]).bytes) })
    pair.check(
      "merge d1+d0 of \(doc)",
      Result { try AutomergeFile.decode(AutomergeMerge.merge([d1, d0]).bytes) })
    let inc = try #require(SharedFixtures.read("\(seedDir)/device-0/\(stem).incremental.automerge"))
    let chg = try #require(SharedFixtures.read("\(seedDir)/device-1/\(stem).changes.automerge"))
    pair.check(
      "merge inc+changes of \(doc)",
      Result { try AutomergeFile.decode(AutomergeMerge.merge([inc, chg]).bytes) })
    pair.check(
      "merge ∅+inc+changes of \(doc)",
      Result { try AutomergeFile.decode(AutomergeMerge.merge([[], inc, chg]).bytes) })
  }
}
