import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Platform

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kill -9` of `mn restore` into a folder with changes of its own, at every named step of
/// its workflow, each time it is reached (mn.md §6; docs/testing.md): every change the
/// folder held is still in it or in a backup, and a rerun finishes the restore.
@Suite struct RestoreCrashTests {
  static let steps = ["after-lock", "after-backup", "after-write", "after-swap"]

  /// The change hashes of each `.automerge` file under `rel` (by relative path).
  static func changes(_ box: Sandbox, under rel: String) throws -> [String: Set<ChangeHash>] {
    var found: [String: Set<ChangeHash>] = [:]
    for (name, data) in try box.files(under: rel)
    where name.hasSuffix(".automerge") && !name.hasPrefix(".") && !name.contains("/.") {
      found[name] = Set(try AutomergeFile.decode(Array(data)).changes.map(\.hash))
    }
    return found
  }

  /// The change hashes of each document in every backup archive.
  static func backedUp(_ box: Sandbox) throws -> [String: Set<ChangeHash>] {
    var found: [String: Set<ChangeHash>] = [:]
    let names = (try? FileManager.default.contentsOfDirectory(atPath: box.path("backups"))) ?? []
    for name in names where name.hasSuffix(".tar.gz") && !name.hasPrefix(".") {
      let archive = try ArchiveReader.verify(
        path: AbsolutePath(box.path("backups/" + name)), fileSystem: LiveFileSystem())
      for entry in archive.entries where entry.path.hasSuffix(".automerge") {
        let hashes = Salvage.salvage(entry.bytes).changes.map(\.hash)
        found[entry.path, default: []].formUnion(hashes)
      }
    }
    return found
  }

  @Test func killedAtAnyMomentLosesNothingAndARerunFinishes() throws {
    var hits: [String: Int] = [:]
    for step in Self.steps {
      for occurrence in 1...40 {
        let context = "killed at \(step):\(occurrence)"
        let box = try RestoreTests.sandbox()
        try box.copyFromPackage("examples/second-device", to: "Documents/Minuta")
        let before = try Self.changes(box, under: "Documents/Minuta")
        let archived = try Self.changes(box, under: "sample")
        let run = try box.runPausing(
          ["restore", "sample.tar.gz"], at: step, occurrence: occurrence)
        guard case .stopped(let process) = run else {
          if case .finished(let status) = run { #expect(status == 0, "\(context)") }
          break
        }
        hits[step, default: 0] += 1
        Sandbox.kill9(process)
        let now = try Self.changes(box, under: "Documents/Minuta")
        let backups = try Self.backedUp(box)
        for (name, hashes) in before {
          let kept = (now[name] ?? []).union(backups[name] ?? [])
          #expect(hashes.isSubset(of: kept), "\(name) lost changes; \(context)")
        }
        let rerun = try box.run(["restore", "sample.tar.gz"])
        #expect(rerun.status == 0, "\(rerun.stderr); \(context)")
        let after = try Self.changes(box, under: "Documents/Minuta")
        for (name, hashes) in before.merging(archived, uniquingKeysWith: { $0.union($1) }) {
          #expect(hashes.isSubset(of: after[name] ?? []), "\(name) after the rerun; \(context)")
        }
        let left = try box.files(under: "Documents/Minuta").keys.filter { $0.contains(".mn-") }
        #expect(left.isEmpty, "temporaries left: \(left); \(context)")
      }
    }
    print("restore crash test: kills per step \(hits)")
    for step in Self.steps { #expect(hits[step] ?? 0 > 0, "restore never reached \(step)") }
  }
}
