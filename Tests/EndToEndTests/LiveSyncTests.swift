import Foundation
import Testing

@testable import AutomergeCodec
@testable import Platform
@testable import Storage

/// mn and a sync client writing the same folder at the same moment (mn.md §6): a real
/// concurrent process (`Support/sync-client.py`) renames other devices' newer versions over
/// the documents, or writes conflict copies when a document changed since it last synced it,
/// while `merge-conflicts`, `fetch --from`, `migrate` and `restore` run on a 30-document
/// folder. After the run and a rerun, every change of every version that ever existed is in
/// its canonical file, and no copy or temporary is left. `MN_LIVE_SYNC_ROUNDS` sets the
/// rounds per workflow (default 8); the counts are printed, with the step of the replace
/// protocol that found each version that arrived during a replace (from `-v`).
@Suite(.serialized) struct LiveSyncTests {
  static let rounds = Int(ProcessInfo.processInfo.environment["MN_LIVE_SYNC_ROUNDS"] ?? "") ?? 8

  /// 30 months: 2024-07 to 2026-12.
  static let names: [String] = (0..<30).map { k in
    let month = 7 + k
    return String(
      format: "records/%04d/%02d.automerge", 2024 + (month - 1) / 12, (month - 1) % 12 + 1)
  }

  static let client = Sandbox.packageRoot.appendingPathComponent(
    "Tests/EndToEndTests/Support/sync-client.py"
  ).path

  /// One change by a new actor: a whole valid document on its own, and one more change when
  /// appended to another document's bytes.
  static func change(_ label: String, _ rng: inout SystemRandomNumberGenerator) -> Change {
    let actor = ActorId((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) })
    return Change(
      actors: [actor], seq: 1, startOp: 1, time: 0, message: nil, deps: [],
      ops: [Op(object: .root, key: .map(label), insert: false, action: .set, value: .string(label))]
    )
  }

  /// What a round saw: versions the client renamed in and copies it wrote, and how many
  /// versions mn merged back after they arrived during a replace.
  struct Counts {
    var renamed = 0
    var copies = 0
    var beforePlacing = 0
    var displaced = 0
    var afterPlacing = 0
    var copyKept = 0
    var timed = 0
    var rounds = 0
  }

  final class Round {
    let sandbox: Sandbox
    let root: String
    var expected: [String: Set<ChangeHash>] = [:]
    var chunks: [String: ChangeHash] = [:]
    var rng = SystemRandomNumberGenerator()

    init(_ sandbox: Sandbox, root: String) {
      self.sandbox = sandbox
      self.root = root
    }

    /// Writes `changes` as one document at `path` and records them as expected in `name`.
    func write(_ changes: [Change], at path: String, expecting name: String) throws {
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data(changes.flatMap(\.chunk)).write(to: URL(fileURLWithPath: path))
      expected[name, default: []].formUnion(changes.map(\.hash))
    }

    func change(_ label: String) -> Change { LiveSyncTests.change(label, &rng) }

    /// Starts the client on `root` with 400 changes to bring.
    func startClient(seed: Int) throws -> Process {
      let directory = sandbox.path("chunks")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      for k in 0..<400 {
        let made = change("arrival-\(k)")
        let name = String(format: "%04d.chunk", k)
        try Data(made.chunk).write(to: URL(fileURLWithPath: directory + "/" + name))
        chunks[name] = made.hash
      }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments =
        ["python3", LiveSyncTests.client, root, directory, sandbox.path("client.log"), "\(seed)"]
        + LiveSyncTests.names
      try process.run()
      // mn starts once the client has read the folder's state (and is bringing versions).
      let ready = (root as NSString).deletingLastPathComponent + "/sync-client-ready"
      // A generous deadline: python's start on a loaded machine can take seconds.
      let deadline = Date().addingTimeInterval(300)
      while !FileManager.default.fileExists(atPath: ready) && Date() < deadline {
        usleep(10_000)
      }
      #expect(FileManager.default.fileExists(atPath: ready), "the sync client did not start")
      return process
    }

    func stopClient(_ process: Process) throws {
      FileManager.default.createFile(
        atPath: (root as NSString).deletingLastPathComponent + "/stop-sync-client", contents: nil)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "the sync client failed")
      let log = (try? String(contentsOfFile: sandbox.path("client.log"), encoding: .utf8)) ?? ""
      for line in log.split(separator: "\n") {
        let parts = line.split(separator: " ").map(String.init)
        guard parts.count == 4, let hash = chunks[parts[0]] else { continue }
        expected[parts[1], default: []].insert(hash)
      }
    }

    /// Every expected change is in its canonical file; no copy and no temporary is left.
    func verify(_ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
      let fs = LiveFileSystem()
      for (name, hashes) in expected {
        let bytes = try fs.readFile(AbsolutePath(root).appending(name), limit: 1 << 26)
        let held = Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
        let lost = hashes.subtracting(held)
        #expect(
          lost.isEmpty, "\(label): \(name) lost \(lost.count) changes",
          sourceLocation: sourceLocation)
      }
      let listing = try FolderScan.scan(root: AbsolutePath(root), fileSystem: fs)
      let copies = listing.documents.flatMap(\.copies).map(\.logicalName)
      #expect(copies.isEmpty, "\(label): copies left: \(copies)", sourceLocation: sourceLocation)
      #expect(
        listing.temporaries.isEmpty, "\(label): temporaries left", sourceLocation: sourceLocation)
    }

    func counts(_ outputs: [RunResult]) -> Counts {
      let log = (try? String(contentsOfFile: sandbox.path("client.log"), encoding: .utf8)) ?? ""
      var counts = Counts(rounds: 1)
      for line in log.split(separator: "\n") {
        if line.contains(" rename ") { counts.renamed += 1 } else { counts.copies += 1 }
        if line.hasSuffix(" timed") { counts.timed += 1 }
      }
      for output in outputs {
        for line in output.stderr.split(separator: "\n") {
          if line.contains("changed during the run") { counts.copyKept += 1 }
          guard line.contains("arrived meanwhile"), let open = line.lastIndex(of: "(") else {
            continue
          }
          // "(1 found in place before, 2 displaced by the exchange, 1 found after)"
          for part in line[line.index(after: open)...].dropLast().split(separator: ",") {
            let words = part.split(separator: " ")
            guard let n = words.first.flatMap({ Int($0) }) else { continue }
            if part.contains("before") { counts.beforePlacing += n }
            if part.contains("displaced") { counts.displaced += n }
            if part.contains("after") { counts.afterPlacing += n }
          }
        }
      }
      return counts
    }
  }

  /// Runs `rounds` rounds of one workflow and prints what they saw.
  ///
  /// A run that ends 75 (a document kept changing; "run the command again") is run again once
  /// the client has stopped, as a user would, before the `merge-conflicts` rerun: a workflow
  /// that moves changes between folders (`migrate`) finishes only then.
  func rounds(
    _ label: String, setUp: (Round) throws -> Void, run: (Round) throws -> RunResult
  ) throws {
    var total = Counts()
    for seed in 0..<Self.rounds {
      let sandbox = try Sandbox()
      let round = Round(sandbox, root: sandbox.path("data"))
      try setUp(round)
      let client = try round.startClient(seed: seed)
      let first = try run(round)
      try round.stopClient(client)
      #expect([0, 75].contains(first.status), "\(label) round \(seed): \(first.stderr)")
      var outputs = [first]
      if first.status == 75 {
        let again = try run(round)
        #expect(again.status == 0, "\(label) round \(seed) run again: \(again.stderr)")
        outputs.append(again)
      }
      let rerun = try sandbox.run(["--root", round.root, "-v", "merge-conflicts"])
      #expect(rerun.status == 0, "\(label) round \(seed) rerun: \(rerun.stderr)")
      try round.verify("\(label) round \(seed)")
      let counts = round.counts(outputs + [rerun])
      total.renamed += counts.renamed
      total.copies += counts.copies
      total.beforePlacing += counts.beforePlacing
      total.displaced += counts.displaced
      total.afterPlacing += counts.afterPlacing
      total.copyKept += counts.copyKept
      total.timed += counts.timed
      total.rounds += 1
    }
    print(
      "live sync, \(label): \(total.rounds) rounds, \(total.renamed + total.copies) arrivals "
        + "(\(total.renamed) renamed over a document, \(total.copies) as conflict copies; "
        + "\(total.timed) timed to an mn temporary), "
        + "merged back by a replace: \(total.beforePlacing) found in place before the rename, "
        + "\(total.displaced) displaced by the exchange, \(total.afterPlacing) found after it; "
        + "\(total.copyKept) copies kept for the rerun because the document changed")
    #expect(total.renamed + total.copies > 0, "\(label): the client brought nothing")
  }

  @Test func mergeConflicts() throws {
    try rounds(
      "merge-conflicts",
      setUp: { round in
        for name in Self.names {
          let base = round.change("base")
          try round.write([base], at: round.root + "/" + name, expecting: name)
          let copy = name.replacingOccurrences(of: ".automerge", with: " 2.automerge")
          try round.write(
            [base, round.change("copy")], at: round.root + "/" + copy, expecting: name)
        }
      },
      run: { round in try round.sandbox.run(["--root", round.root, "-v", "merge-conflicts"]) })
  }

  /// Documents of appended change chunks compacted while the client brings new versions:
  /// each arrival is merged into the compacted document (or left as a copy), never lost.
  @Test func compact() throws {
    try rounds(
      "compact",
      setUp: { round in
        for (k, name) in Self.names.enumerated() {
          try round.write(
            CompactTests.chain(6, actor: UInt8(k + 1)), at: round.root + "/" + name,
            expecting: name)
        }
      },
      run: { round in try round.sandbox.run(["--root", round.root, "-v", "compact"]) })
  }

  @Test func fetchFrom() throws {
    try rounds(
      "fetch --from",
      setUp: { round in
        for name in Self.names {
          try round.write(
            [round.change("other")], at: round.sandbox.path("other/" + name), expecting: name)
          try round.sandbox.write("data/" + name + ".nextcloud", "")
        }
      },
      run: { round in
        try round.sandbox.run(
          ["--root", round.root, "-v", "fetch", "--from", round.sandbox.path("other")])
      })
  }

  @Test func migrate() throws {
    try rounds(
      "migrate",
      setUp: { round in
        for name in Self.names {
          try round.write(
            [round.change("source")], at: round.sandbox.path("source/" + name), expecting: name)
          try round.write(
            [round.change("destination")], at: round.root + "/" + name, expecting: name)
        }
      },
      run: { round in
        try round.sandbox.run([
          "-v", "migrate", "--from", round.sandbox.path("source"), "--to", round.root, "--yes",
          "--no-progress",
        ])
      })
  }

  @Test func restore() throws {
    try rounds(
      "restore",
      setUp: { round in
        for name in Self.names {
          try round.write(
            [round.change("archived")], at: round.sandbox.path("archived/" + name),
            expecting: name)
          try round.write([round.change("present")], at: round.root + "/" + name, expecting: name)
        }
        let export = try round.sandbox.run([
          "--root", round.sandbox.path("archived"), "export", "-q", "-o",
          round.sandbox.path("archive.tar"),
        ])
        #expect(export.status == 0, "\(export.stderr)")
      },
      run: { round in
        try round.sandbox.run([
          "-v", "restore", round.sandbox.path("archive.tar"), "--to", round.root,
        ])
      })
  }
}
