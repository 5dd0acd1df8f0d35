import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Platform
@testable import Storage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kill -9` of `mn merge-conflicts` at every named step of its workflow (mn.md §6
/// "Crashes"; the steps of docs/testing.md, through `MN_TEST_PAUSE_AT`): after each kill
/// every input change is still in some file of the folder or a backup, and a rerun
/// finishes the job.
@Suite struct MergeConflictsCrashTests {
  /// Six documents: four months with a canonical file and two copies (seeds 1 and 4 in
  /// turn, copies named by four services), one copies-only month, and the tags.
  func fill(_ f: ConflictFolder) throws {
    let names = [
      ("NN 2.automerge", "NN (Ada's conflicted copy 2026-09-06).automerge"),
      (
        "NN.sync-conflict-20260906-154512-ABCDEFG.automerge",
        "NN (conflicted copy 2026-09-06 154512).automerge"
      ),
    ]
    for month in 1...4 {
      let nn = month < 10 ? "0\(month)" : "\(month)"
      let seed = month % 2 == 0 ? "seed-04" : "seed-01"
      let (a, b) = names[month % 2]
      try f.put(
        "records/2026/\(nn).automerge", from: "device-0/records/2026/09.automerge", seed: seed)
      try f.put(
        "records/2026/" + a.replacingOccurrences(of: "NN", with: nn),
        from: "device-1/records/2026/09.automerge",
        seed: seed)
      try f.put(
        "records/2026/" + b.replacingOccurrences(of: "NN", with: nn),
        from: "device-2/records/2026/09.automerge",
        seed: seed)
    }
    try f.put(
      "records/2026/07 2.automerge", from: "device-1/records/2026/09.automerge", seed: "seed-04")
    try f.put(
      "records/2026/07 3.automerge", from: "device-2/records/2026/09.automerge", seed: "seed-04")
    try f.fill()
    try FileManager.default.removeItem(atPath: f.box.path("data/" + ConflictFolder.month))
    try FileManager.default.removeItem(atPath: f.box.path("data/" + ConflictFolder.icloud))
    try FileManager.default.removeItem(atPath: f.box.path("data/" + ConflictFolder.dropbox))
  }

  /// The document a file of the folder belongs to (its logical name), or nil.
  func document(of rel: String) -> String? {
    var parts = rel.split(separator: "/").map(String.init)
    guard let name = parts.popLast() else { return nil }
    let canonical = ConflictCopy.parse(fileName: name)?.canonicalName ?? name
    guard canonical.hasSuffix(".automerge"), !name.hasPrefix(".") else { return nil }
    return (parts + [canonical]).joined(separator: "/")
  }

  /// The change hashes per document over every document file and copy in `data`, and every
  /// archive in `backups`.
  func changes(_ f: ConflictFolder, includingBackups: Bool) throws -> [String: Set<ChangeHash>] {
    var found: [String: Set<ChangeHash>] = [:]
    func add(_ rel: String, _ bytes: [UInt8]) throws {
      guard let doc = document(of: rel) else { return }
      found[doc, default: []].formUnion(try decoded.hashes(bytes))
    }
    for (rel, data) in f.snapshot("data") { try add(rel, Array(data)) }
    guard includingBackups else { return found }
    for name in f.backups() where name.hasSuffix(".tar.gz") && !name.hasPrefix(".") {
      let archive = try ArchiveReader.verify(
        path: AbsolutePath(f.box.path("backups/" + name)), fileSystem: LiveFileSystem())
      for entry in archive.entries { try add(entry.path, entry.bytes) }
    }
    return found
  }

  /// Change hashes by file content: the same few contents recur in every iteration.
  final class DecodeCache {
    var hashes: [[UInt8]: Set<ChangeHash>] = [:]
    func hashes(_ bytes: [UInt8]) throws -> Set<ChangeHash> {
      if let known = hashes[bytes] { return known }
      let found = Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
      hashes[bytes] = found
      return found
    }
  }

  let decoded = DecodeCache()

  /// The named steps of merge-conflicts' workflow (docs/testing.md).
  static let steps = ["after-lock", "after-backup", "after-write", "after-swap", "before-remove"]

  /// `kill -9` at every named step, each time it is reached, with and without a backup:
  /// after each kill every input change is still in some file of the folder or a backup,
  /// and a rerun finishes the job.
  @Test(arguments: [true, false])
  func killedAtAnyMomentLosesNothingAndARerunFinishes(backup: Bool) throws {
    let calibration = try ConflictFolder()
    try fill(calibration)
    let original = try changes(calibration, includingBackups: false)
    #expect(original.count == 6)
    var hits: [String: Int] = [:]
    for step in Self.steps where backup || step != "after-backup" {
      for occurrence in 1...60 {
        let context = "killed at \(step):\(occurrence)\(backup ? "" : " --no-backup")"
        let f = try ConflictFolder()
        try fill(f)
        let run = try f.box.runPausing(
          ["--root", f.box.path("data"), "merge-conflicts", "-q"] + (backup ? [] : ["--no-backup"]),
          at: step, occurrence: occurrence)
        guard case .stopped(let process) = run else {
          if case .finished(let status) = run { #expect(status == 0, "\(context)") }
          break
        }
        hits[step, default: 0] += 1
        Sandbox.kill9(process)
        let left = try changes(f, includingBackups: true)
        for (doc, hashes) in original {
          #expect(
            hashes.isSubset(of: left[doc] ?? []), "\(doc) lost changes after the kill; \(context)")
        }
        let rerun = try f.box.run(["--root", f.box.path("data"), "merge-conflicts"])
        #expect(rerun.status == 0, "\(rerun.stderr); \(context)")
        let files = f.snapshot("data").keys
        #expect(
          files.allSatisfy {
            ConflictCopy.parse(fileName: String($0.split(separator: "/").last ?? "")) == nil
          },
          "a copy remains: \(files.sorted()); \(context)")
        #expect(!files.contains { $0.contains(".mn-") }, "a temporary remains; \(context)")
        #expect(try changes(f, includingBackups: false) == original, "after the rerun; \(context)")
      }
    }
    print("merge-conflicts crash test\(backup ? "" : " --no-backup"): kills per step \(hits)")
    for step in Self.steps where backup || step != "after-backup" {
      #expect(hits[step] ?? 0 > 0, "merge-conflicts never reached \(step)")
    }
  }

  /// Starts `mn merge-conflicts` with SIGINT unblocked and at its default action (a child
  /// started from a test thread would inherit that thread's blocked signals), to stop itself
  /// at the named step `pauseAt` (docs/testing.md).
  func spawnWithSIGINT(_ f: ConflictFolder, backup: Bool, pauseAt: String) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGINT)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let arguments =
      [Sandbox.binary.path, "--root", f.box.path("data"), "merge-conflicts", "-q"]
      + (backup ? [] : ["--no-backup"])
    let environment = [
      "HOME=\(f.box.home)", "MN_BACKUP_DIR=\(f.box.path("backups"))", "LC_ALL=C", "TZ=UTC",
      "PATH=/usr/bin:/bin", "MN_TEST_PAUSE_AT=\(pauseAt)",
    ]
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid = pid_t()
    let result = posix_spawn(&pid, Sandbox.binary.path, &actions, &attributes, argv, envp)
    #expect(result == 0)
    return pid
  }

  /// SIGINT mid-run, at named steps (the process stops itself there, gets SIGINT, then
  /// SIGCONT): the verb stops between documents with 130 (or, at its very last document, it
  /// finishes with 0; before its handler is installed, it dies of the signal), nothing is
  /// lost, and a rerun finishes.
  @Test func sigintStopsBetweenDocumentsWith130() throws {
    var interrupted = 0
    let points = [
      "after-lock:1", "after-backup:1", "after-write:1", "after-swap:1", "after-swap:3",
      "before-remove:2", "before-remove:6",
    ]
    for (round, point) in points.enumerated() {
      let f = try ConflictFolder()
      try fill(f)
      let original = try changes(f, includingBackups: false)
      let backup = round % 2 == 0 || point.hasPrefix("after-backup")
      let pid = try spawnWithSIGINT(f, backup: backup, pauseAt: point)
      #expect(Watcher.waitUntil(600) { Sandbox.isStopped(pid) }, "\(point): never stopped")
      kill(pid, SIGINT)
      kill(pid, SIGCONT)
      var raw: Int32 = 0
      while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
      let signalled = raw & 0x7f
      let status = (raw >> 8) & 0xff
      #expect(
        (signalled == 0 && (status == 0 || status == 130)) || signalled == SIGINT,
        "\(point): status \(status), signal \(signalled)")
      if signalled == 0 && status == 130 { interrupted += 1 }
      print("merge-conflicts SIGINT at \(point): status \(status), signal \(signalled)")
      let left = try changes(f, includingBackups: true)
      for (doc, hashes) in original {
        #expect(
          hashes.isSubset(of: left[doc] ?? []), "\(doc) lost changes after SIGINT at \(point)")
      }
      #expect(
        !f.snapshot("data").keys.contains { $0.contains(".mn-") },
        "SIGINT between steps leaves no temporary (\(point))")
      let rerun = try f.box.run(["--root", f.box.path("data"), "merge-conflicts"])
      #expect(rerun.status == 0, "\(rerun.stderr)")
      #expect(try changes(f, includingBackups: false) == original)
    }
    #expect(interrupted >= 4, "SIGINT at the first documents stops the run with 130")
  }
}
