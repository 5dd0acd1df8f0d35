import AutomergeCodec
import Foundation
import Operations
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kill -9` of `mn migrate` at every named step of its workflow, each time it is reached
/// (mn.md §6; docs/testing.md): after each kill every change is still in a non-temporary
/// document of one of the two folders, and a rerun moves them all into the destination.
@Suite struct MigrateCrashTests {
  /// The fixture scene plus four months of 2025 (odd months only local: moves; even months
  /// on both sides: merges) and a conflict copy in the source. Returns the expected change
  /// hashes of every document.
  static func scene() throws -> (MigrateSandbox, [String: Set<String>]) {
    let scene = try MigrateSandbox()
    let box = scene.box
    var expected: [String: Set<String>] = [:]
    for name in MigrateSandbox.documents {
      expected[name] = try hashes(scene.expected(name, "changes"))
    }
    for month in 1...4 {
      let name = "records/2025/" + (month < 10 ? "0\(month)" : "\(month)") + ".automerge"
      let fixture = month % 2 == 1 ? "records/2026/08.automerge" : "records/2026/09.automerge"
      try box.write(
        MigrateSandbox.local + "/" + name, box.read(MigrateSandbox.local + "/" + fixture))
      if month % 2 == 0 {
        try box.write(
          MigrateSandbox.icloud + "/" + name, box.read(MigrateSandbox.icloud + "/" + fixture))
      }
      expected[name] = expected[fixture]
    }
    // A conflict copy, merged first.
    try box.write(
      MigrateSandbox.local + "/records/2026/09 2.automerge",
      box.read(MigrateSandbox.icloud + "/records/2026/09.automerge"))
    return (scene, expected)
  }

  /// The first column of `mn doc changes` lines.
  static func hashes(_ listing: String) -> Set<String> {
    Set(
      listing.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
  }

  /// The change hashes of a file decoded with Core; empty when it is absent.
  static func changes(_ path: String) throws -> Set<String> {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return Set(try AutomergeFile.decode([UInt8](data)).changes.map(\.hash.description))
  }

  /// The named steps of migrate's workflow (docs/testing.md).
  static let steps = ["after-lock", "after-backup", "after-write", "after-swap", "before-remove"]

  @Test func killedAtAnyMomentLosesNothingAndARerunFinishes() throws {
    var hits: [String: Int] = [:]
    for step in Self.steps {
      for occurrence in 1...80 {
        let (scene, expected) = try Self.scene()
        let local = scene.box.path(MigrateSandbox.local)
        let icloud = scene.box.path(MigrateSandbox.icloud)
        let context = "killed at \(step):\(occurrence)"
        let run = try scene.box.runPausing(["migrate", "--yes"], at: step, occurrence: occurrence)
        guard case .stopped(let process) = run else {
          if case .finished(let status) = run { #expect(status == 0, "\(context)") }
          break
        }
        hits[step, default: 0] += 1
        Sandbox.kill9(process)
        for (name, changes) in expected.sorted(by: { $0.key < $1.key }) {
          let found = try Self.changes(local + "/" + name).union(
            try Self.changes(icloud + "/" + name))
          #expect(changes.isSubset(of: found), "\(name) lost changes; \(context)")
        }
        let rerun = try scene.box.run(["migrate", "--yes"])
        #expect(rerun.status == 0, "\(context): \(rerun.stderr)")
        for (name, changes) in expected.sorted(by: { $0.key < $1.key }) {
          #expect(try Self.changes(icloud + "/" + name) == changes, "\(name); \(context)")
          #expect(
            !FileManager.default.fileExists(atPath: local + "/" + name), "\(name); \(context)")
        }
        #expect(!FileManager.default.fileExists(atPath: local), "\(context)")
        #expect(
          !FileManager.default.fileExists(atPath: icloud + "/" + MigrationJournal.fileName),
          "\(context)")
        let pointer = try String(decoding: scene.box.read(MigrateSandbox.pointer), as: UTF8.self)
        #expect(pointer == icloud + "\n", "\(context)")
      }
    }
    print("migrate crash test: kills per step \(hits)")
    for step in Self.steps { #expect(hits[step] ?? 0 > 0, "migrate never reached \(step)") }
  }
}
