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

/// `mn repair` on the built binary (mn.md §14).
@Suite struct RepairTests {
  static let salvage = Sandbox.packageRoot.appendingPathComponent(
    "Tests/Fixtures/salvage")

  func hashes(_ data: Data) -> Set<ChangeHash> {
    Set(Salvage.salvage(Array(data)).changes.map(\.hash))
  }

  /// A month whose file is device 0's merged with a copy by an earlier `merge-conflicts`
  /// (which left a backup), then damaged; device 2's copy is on "another device".
  @Test func theUnionOfBackupAndAnotherDeviceEqualsTheMergeOfTheUndamagedInputs() throws {
    let f = try ConflictFolder()
    try f.put(ConflictFolder.month, from: "device-0/records/2026/09.automerge")
    try f.put(ConflictFolder.icloud, from: "device-1/records/2026/09.automerge")
    try f.put("tags.automerge", from: "device-0/tags.automerge")
    #expect(try f.mn(["merge-conflicts", "-q"]).status == 0)
    #expect(f.backups().count == 1)
    try f.box.write(
      "other/records/2026/09.automerge",
      try ConflictFolder.fixture("seed-01/device-2/records/2026/09.automerge"))
    // A zeroed range over the end of the document chunk and the first appended changes.
    var damaged = Array(try f.box.read("data/" + ConflictFolder.month))
    let start = damaged.count / 3
    for i in start..<min(damaged.count, start + 4096) { damaged[i] = 0 }
    try f.box.write("data/" + ConflictFolder.month, Data(damaged))
    let tagsBefore = try f.box.read("data/tags.automerge")

    let doctor = try f.mn(["doctor"])
    #expect(doctor.stdout.contains("fix: mn repair records/2026/09.automerge"))
    let dry = try f.mn(["repair", "--from", f.box.path("other"), "--dry-run"])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(try f.box.read("data/" + ConflictFolder.month) == Data(damaged))

    // The merged file is one document chunk, and the damage hits it: nothing salvaged ties
    // the backup to this document, so it is taken only when --from names it (mn.md §14).
    let backup = f.box.path("backups/" + (try #require(f.backups().first)))
    let r = try f.mn(["repair", "--from", f.box.path("other"), "--from", backup, "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try #require(try f.json(r.stdoutBytes) as? [String: Any])
    let documents = try #require(json["documents"] as? [[String: Any]])
    #expect(documents.count == 1)
    #expect(documents.first?["status"] as? String == "complete")
    let kinds = (documents.first?["sources"] as? [[String: Any]] ?? []).map {
      $0["kind"] as? String
    }
    #expect(kinds == ["damaged", "from", "from", "from"], "\(kinds)")
    #expect(try f.box.read("data/tags.automerge") == tagsBefore, "a document that loads stays")
    #expect(f.backups().count == 2)

    let heads = try f.mn(["doc", "heads", f.box.path("data/" + ConflictFolder.month)])
    let expected = try ConflictFolder.fixture("seed-01/merged/records/2026/09.automerge.heads")
    #expect(heads.stdout == String(decoding: expected, as: UTF8.self))
    let shown = try f.mn(["doc", "show", f.box.path("data/" + ConflictFolder.month)])
    #expect(
      try f.json(shown.stdoutBytes)
        == (try f.json(
          try ConflictFolder.fixture("seed-01/merged/records/2026/09.automerge.json"))))
    let oracle = Sandbox.packageRoot.appendingPathComponent("../shared/tools/am-oracle").path
    if FileManager.default.isExecutableFile(atPath: oracle) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: oracle)
      process.arguments = ["heads", f.box.path("data/" + ConflictFolder.month)]
      let out = Pipe()
      process.standardOutput = out
      try process.run()
      let data = out.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      #expect(String(decoding: data, as: UTF8.self) == heads.stdout, "the real Automerge opens it")
    } else {
      print("repair: ../shared/tools/am-oracle is missing; the oracle comparison is left out")
    }
    // The backup holds the damaged bytes.
    let newest = try #require(f.backups().last { $0.contains("-repair") })
    let archive = try ArchiveReader.verify(
      path: AbsolutePath(f.box.path("backups/" + newest)), fileSystem: LiveFileSystem())
    #expect(archive.entry(ConflictFolder.month)?.bytes == damaged)

    let again = try f.mn(["repair"])
    #expect(again.status == 0)
    #expect(again.stdout == "nothing to repair: every document loads\n")
  }

  @Test func aLostDependencyExits1AndTheRepairedFileStillOpens() throws {
    let f = try ConflictFolder()
    var bytes = Array(
      try Data(contentsOf: Self.salvage.appendingPathComponent("seed-04-09.incremental.automerge")))
    // Chunk 2 (at 1162, 385 bytes) is a change later ones depend on: flip a bit in it.
    bytes[1162 + 100] ^= 4
    try f.box.write("data/" + ConflictFolder.month, Data(bytes))
    let r = try f.mn(["repair"])
    #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("lost: 1 change that recovered changes depend on"))
    #expect(r.stdout.contains("skipped 385 bytes at offset 1162: damaged chunk: checksum mismatch"))
    let file = try AutomergeFile.decode(Array(try f.box.read("data/" + ConflictFolder.month)))
    #expect(file.missingDependencies.isEmpty && file.orphans.isEmpty)
    #expect(file.changes.count > 0)
    // Both versions of the real Automerge open it (0.6 is the one the app ships).
    for tool in ["am-oracle", "am-oracle-0.6"] {
      guard let checked = try oracle(tool, ["check", f.box.path("data/" + ConflictFolder.month)])
      else { continue }
      #expect(checked.status == 0, "\(tool): \(checked.output)")
    }
  }

  /// Runs a tool of `../shared/tools`; nil (and a note) when it is missing.
  func oracle(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String)? {
    let path = Sandbox.packageRoot.appendingPathComponent("../shared/tools/" + tool).path
    guard FileManager.default.isExecutableFile(atPath: path) else {
      print("repair: ../shared/tools/\(tool) is missing; that comparison is left out")
      return nil
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// A 50 MB month of near-chunks (valid headers that each claim the rest of the file, wrong
  /// checksums) with real chunks at the end: `mn repair` ends in bounded time and memory
  /// and gets the real chunks back.
  @Test func aHostileFileTakesBoundedTimeAndMemory() throws {
    let f = try ConflictFolder()
    let valid = Array(
      try Data(contentsOf: Self.salvage.appendingPathComponent("seed-08-09.changes.automerge")))
    let unit = 128
    let count = 50_000_000 / unit
    var bytes = [UInt8](repeating: 0x41, count: count * unit + valid.count)
    bytes.withUnsafeMutableBufferPointer { b in
      for k in 0..<count {
        let at = k * unit
        // The body claimed: everything after the header, to the end of the file.
        var width = 1
        while b.count - at - 9 - width >= 1 << (7 * width) { width += 1 }
        var w = ByteWriter()
        w.uleb(UInt64(b.count - at - 9 - width))
        let header = [0x85, 0x6f, 0x4a, 0x83, 0xde, 0xad, 0xbe, 0xef, UInt8(k % 3)] + w.bytes
        for (i, byte) in header.enumerated() { b[at + i] = byte }
      }
      for (i, byte) in valid.enumerated() { b[count * unit + i] = byte }
    }
    try f.box.write("data/" + ConflictFolder.month, Data(bytes))
    let (status, seconds, peak) = try f.box.measure(
      ["--root", f.box.path("data"), "repair", "--json"])
    #expect(status == 0)
    #expect(seconds < 60, "took \(seconds) s")
    // The 50 MB input, read once, and change.
    #expect(peak < 600 * 1024, "peak \(peak / 1024) MB")
    let file = try AutomergeFile.decode(Array(try f.box.read("data/" + ConflictFolder.month)))
    #expect(
      Set(file.changes.map(\.hash)) == Set(try AutomergeFile.decode(valid).changes.map(\.hash)))
    print("repair: 50 MB of near-chunks in \(seconds) s, peak \(peak / 1024) MB")
  }

  @Test func nothingRecoverableExits65AndALoadingDocumentIsNotRewritten() throws {
    let f = try ConflictFolder()
    try f.box.write("data/" + ConflictFolder.month, "not an automerge file")
    try f.put("tags.automerge", from: "device-0/tags.automerge")
    let r = try f.mn(["repair"])
    #expect(r.status == 65)
    #expect(
      r.stderr.contains("cannot repair 'records/2026/09.automerge': no change could be recovered"))
    #expect(try f.box.read("data/" + ConflictFolder.month) == Data("not an automerge file".utf8))
    let named = try f.mn(["repair", "tags.automerge"])
    #expect(named.status == 0)
    #expect(named.stdout.hasPrefix("tags.automerge: loads; not rewritten\n"))
  }

  @Test func aDamagedCopyIsRebuiltSoThatMergeConflictsCanMergeIt() throws {
    let f = try ConflictFolder()
    try f.put(ConflictFolder.month, from: "device-0/records/2026/09.automerge")
    let copy = Array(
      try Data(contentsOf: Self.salvage.appendingPathComponent("seed-04-09.changes.automerge")))
    try f.box.write("data/" + ConflictFolder.icloud, Data(copy.prefix(copy.count - 10)))
    let merge = try f.mn(["merge-conflicts"])
    #expect(merge.status == 65)
    #expect(merge.stderr.contains("'mn repair' rebuilds it"))
    let r = try f.mn(["repair"])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("records/2026/09 2.automerge: rebuilt with"))
    #expect(try f.mn(["merge-conflicts", "-q"]).status == 0)
  }

  /// `kill -9` of `mn repair` at every named step of its workflow (docs/testing.md: the
  /// process stops itself there, then is killed), each time it is reached: every change that
  /// any file or backup held is still in the folder or the backups, and a rerun finishes.
  @Test func killedAtAnyMomentLosesNothing() throws {
    func fill(_ f: ConflictFolder) throws -> [String: Set<ChangeHash>] {
      var expected: [String: Set<ChangeHash>] = [:]
      for (k, name) in [
        "seed-04-09.incremental", "seed-07-09.changes", "seed-08-09.incremental",
        "seed-04-09.changes", "seed-07-09.incremental", "seed-08-09.changes",
      ].enumerated() {
        var bytes = Array(
          try Data(contentsOf: Self.salvage.appendingPathComponent(name + ".automerge")))
        bytes[bytes.count / 2] ^= 0x10
        let rel = "data/records/2026/0\(k + 1).automerge"
        try f.box.write(rel, Data(bytes))
        expected[rel] = hashes(Data(bytes))
      }
      return expected
    }
    func left(_ f: ConflictFolder) throws -> [String: Set<ChangeHash>] {
      var found: [String: Set<ChangeHash>] = [:]
      for (rel, data) in f.snapshot("data") where rel.hasSuffix(".automerge") {
        found["data/" + rel, default: []].formUnion(hashes(data))
      }
      for name in f.backups() where name.hasSuffix(".tar.gz") {
        let archive = try ArchiveReader.verify(
          path: AbsolutePath(f.box.path("backups/" + name)), fileSystem: LiveFileSystem())
        for entry in archive.entries {
          found["data/" + entry.path, default: []].formUnion(hashes(Data(entry.bytes)))
        }
      }
      return found
    }
    func backedUp(_ f: ConflictFolder, _ rel: String, _ bytes: Data?) throws -> Bool {
      for name in f.backups() where name.hasSuffix(".tar.gz") {
        let archive = try ArchiveReader.verify(
          path: AbsolutePath(f.box.path("backups/" + name)), fileSystem: LiveFileSystem())
        if let bytes, archive.entry(String(rel.dropFirst(5)))?.bytes == Array(bytes) { return true }
      }
      return false
    }
    var hits: [String: Int] = [:]
    for step in ["after-lock", "after-backup", "after-write", "after-swap"] {
      for occurrence in 1...50 {
        let context = "killed at \(step):\(occurrence)"
        let f = try ConflictFolder()
        let expected = try fill(f)
        let before = f.snapshot("data")
        let run = try f.box.runPausing(
          ["--root", f.box.path("data"), "repair", "-q"], at: step, occurrence: occurrence)
        guard case .stopped(let process) = run else {
          if case .finished(let status) = run { #expect(status <= 1, "\(context)") }
          break
        }
        hits[step, default: 0] += 1
        Sandbox.kill9(process)
        let found = try left(f)
        for (rel, hashes) in expected {
          #expect(hashes.isSubset(of: found[rel] ?? []), "\(rel) lost changes; \(context)")
          // The damaged bytes are on disk until a repaired file is, and in a backup by then.
          let now = f.snapshot("data")[String(rel.dropFirst(5))]
          if now != before[String(rel.dropFirst(5))] {
            #expect(try backedUp(f, rel, before[String(rel.dropFirst(5))]), "\(rel); \(context)")
          }
        }
        let rerun = try f.mn(["repair", "-q"])
        #expect(rerun.status <= 1, "\(rerun.stderr); \(context)")
        for (rel, hashes) in expected {
          let file = try AutomergeFile.decode(Array(try f.box.read(rel)))
          let written = Set(file.changes.map(\.hash))
          // Everything salvaged is written, but for changes cut off from a lost dependency.
          #expect(written.isSubset(of: hashes) && !written.isEmpty, "\(rel); \(context)")
        }
        #expect(!f.snapshot("data").keys.contains { $0.contains(".mn-") }, "\(context)")
      }
    }
    print("repair crash test: kills per step \(hits.sorted { $0.key < $1.key })")
    for step in ["after-lock", "after-backup", "after-write", "after-swap"] {
      #expect(hits[step] ?? 0 > 0, "repair never reached \(step)")
    }
  }
}
