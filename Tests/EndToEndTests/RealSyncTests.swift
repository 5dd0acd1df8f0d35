import Foundation
import Testing

@testable import AutomergeCodec

/// Real sync engines between two "devices" (two data folders), with an app-like writer on
/// each (`AppWriter`) changing the same documents and `mn` merging on each (issue 27):
/// Unison (`-copyonconflict`), rclone bisync (each device with a shared hub) and Syncthing
/// (two instances in a network namespace of their own with only `lo`, everything that
/// reaches out turned off; `Support/real-sync.py` drives the engines). After every round,
/// every change written is in both devices' documents, their heads are equal, and no
/// conflict copy or temporary is left.
///
/// The figure printed per engine is the number of syncs, after concurrent edits, that brought
/// conflict copies: 1 is the conflict itself, more are extra rounds. An engine whose
/// program is missing fails the test, unless `MN_REAL_SYNC_SKIP` names it (comma-separated,
/// `all` for every one): a skip is said out loud, never silent.
@Suite(.serialized) struct RealSyncTests {
  enum Engine: String, CaseIterable {
    case unison, rclone, syncthing
  }

  static let helper = Sandbox.packageRoot.appendingPathComponent(
    "Tests/EndToEndTests/Support/real-sync.py"
  ).path
  static let documents = ["records/2026/09.automerge", "tags.automerge"]
  /// Rounds of concurrent edits (one change per document per device each).
  static let editRounds = 3
  /// Syncs after which a round that still brings conflict copies fails.
  static let maxSyncs = 6

  /// Each engine with the real Automerge's writer (when `../shared/tools` is there), and
  /// Unison once more with the codec's own writer, so that the fallback is exercised too.
  static let cases: [(Engine, Bool)] = Engine.allCases.map { ($0, true) } + [(.unison, false)]

  @Test(arguments: cases) func twoDevicesConverge(_ engine: Engine, oracleWriter: Bool) throws {
    let skip = (ProcessInfo.processInfo.environment["MN_REAL_SYNC_SKIP"] ?? "")
      .split(separator: ",").map(String.init)
    if skip.contains(engine.rawValue) || skip.contains("all") {
      print("RealSyncTests: SKIPPED \(engine.rawValue): MN_REAL_SYNC_SKIP says so")
      return
    }
    let program = engine == .rclone ? "rclone" : engine.rawValue
    try #require(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/" + program),
      "\(program) is not installed: run make setup, or set MN_REAL_SYNC_SKIP=\(engine.rawValue)")
    let box = try Sandbox()
    let work = box.path("sync")
    for folder in ["a", "b", "home", "state"] { try box.mkdir("sync/" + folder) }
    let devices = ["a", "b"]
    let roots = devices.map { work + "/" + $0 }
    let writers = devices.enumerated().map { i, device in
      AppWriter(
        root: roots[i], actor: device == "a" ? "aa01" : "bb02", stateDirectory: work + "/state",
        usesOracle: oracleWriter)
    }
    let sync = try EngineProcess(engine, work: work)
    defer { sync.stop() }
    if engine == .syncthing { try Self.checkSyncthingConfiguration(sync.ready) }

    var written = Set<ChangeHash>()
    for document in Self.documents {
      written.insert(try writers[0].edit(document, key: "first", seq: 1))
    }
    _ = try Self.round(engine, sync, box, roots, merging: false)
    var figures: [Int] = []
    for round in 1...Self.editRounds {
      for (i, writer) in writers.enumerated() {
        for document in Self.documents {
          written.insert(
            try writer.edit(document, key: "k\(round)-\(devices[i])", seq: 10 * round + i))
        }
      }
      var syncs = 0
      while try Self.round(engine, sync, box, roots, merging: true) {
        syncs += 1
        try #require(syncs < Self.maxSyncs, "\(engine): still conflict copies after \(syncs) syncs")
      }
      figures.append(syncs)
      try Self.checkConverged(box, roots, holding: written)
    }
    let writer = oracleWriter && AppWriter.oracle != nil ? "am-oracle edit" : "the codec's writer"
    print(
      "RealSyncTests: \(engine.rawValue) (\(writer)): syncs that brought conflict copies per "
        + "edit round: \(figures)")
    #expect(figures.allSatisfy { $0 <= 2 }, "at most one extra round: \(figures)")
  }

  /// One engine round, then mn on each device; returns whether it brought conflict copies.
  /// rclone: each device in turn bisyncs with the hub, merges, and bisyncs again (the setup
  /// that settles); Unison and Syncthing: one sync of both, then mn on both.
  static func round(
    _ engine: Engine, _ sync: EngineProcess, _ box: Sandbox, _ roots: [String], merging: Bool
  ) throws -> Bool {
    var copies = false
    if engine == .rclone {
      for (i, root) in roots.enumerated() {
        try sync.send(i == 0 ? "sync a" : "sync b")
        copies = try conflictCount(box, root) > 0 || copies
        if merging { try merge(box, root, watch: i == 0) }
        try sync.send(i == 0 ? "sync a" : "sync b")
      }
      return copies
    }
    try sync.send("sync")
    for root in roots { copies = try conflictCount(box, root) > 0 || copies }
    if merging {
      for (i, root) in roots.enumerated() { try merge(box, root, watch: i == 0) }
    }
    return copies
  }

  /// `mn watch --once` on the first device, `mn merge-conflicts` on the second.
  static func merge(_ box: Sandbox, _ root: String, watch: Bool) throws {
    let arguments =
      watch ? ["watch", "--once", "--quiet-for", "0"] : ["merge-conflicts", "-q"]
    let r = try box.run(["--root", root] + arguments)
    try #require(r.status == 0, "mn \(arguments[0]) on \(root): \(r.stderr)")
  }

  static func conflictCount(_ box: Sandbox, _ root: String) throws -> Int {
    let r = try box.run(["--root", root, "ls", "--conflicts", "--json"])
    try #require(r.status == 0, "\(r.stderr)")
    let entries = try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [[String: Any]] ?? []
    return entries.reduce(0) { $0 + (($1["copies"] as? [Any])?.count ?? 0) }
  }

  /// Both devices hold every change written, with equal heads; no copy, no temporary.
  static func checkConverged(_ box: Sandbox, _ roots: [String], holding written: Set<ChangeHash>)
    throws
  {
    var heads: [[ChangeHash]] = []
    var held = [Set<ChangeHash>](repeating: [], count: roots.count)
    for (i, root) in roots.enumerated() {
      #expect(try conflictCount(box, root) == 0, "a copy left in \(root)")
      for document in documents {
        let file = try AutomergeFile.decode(
          [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/" + document))),
          keepOps: false)
        held[i].formUnion(file.changes.map(\.hash))
        heads.append(file.heads)
        if let oracle = AppWriter.oracle {  // the real Automerge opens it
          #expect(try tool(oracle, ["check", root + "/" + document]).status == 0, "\(document)")
        }
      }
      let leftovers = (FileManager.default.subpaths(atPath: root) ?? []).filter {
        $0.contains(".mn-") || $0.contains(".am-edit-") || $0.contains(".writer.nosync")
      }
      #expect(leftovers.isEmpty, "temporaries left in \(root): \(leftovers)")
    }
    for (i, root) in roots.enumerated() {
      let missing = written.subtracting(held[i])
      #expect(missing.isEmpty, "\(missing.count) changes missing in \(root)")
    }
    #expect(heads[0] == heads[2] && heads[1] == heads[3], "the devices' heads differ")
  }

  /// Syncthing's configuration, as its REST API gave it back before the folder was shared:
  /// discovery, relays, NAT, STUN, usage and crash reporting and upgrades off, 127.0.0.1 only.
  static func checkSyncthingConfiguration(_ ready: [String: Any]) throws {
    for device in ["a", "b"] {
      let options = try #require(ready[device] as? [String: Any], "no configuration of \(device)")
      for key in [
        "globalAnnounceEnabled", "localAnnounceEnabled", "relaysEnabled", "natEnabled",
        "crashReportingEnabled", "announceLANAddresses",
      ] {
        #expect(options[key] as? Bool == false, "\(device) \(key)")
      }
      #expect(options["urAccepted"] as? Int == -1, "\(device) usage reporting")
      #expect(options["autoUpgradeIntervalH"] as? Int == 0, "\(device) auto-upgrade")
      #expect(options["stunKeepaliveStartS"] as? Int == 0, "\(device) STUN")
      let listen = options["listenAddresses"] as? [String] ?? []
      #expect(!listen.isEmpty && listen.allSatisfy { $0.hasPrefix("tcp://127.0.0.1:") })
    }
  }
}

/// `Support/real-sync.py` running one engine (Syncthing under `unshare -n`), spoken to one
/// line at a time; stopped by its PID.
final class EngineProcess {
  let process = Process()
  let input = Pipe()
  let output = Pipe()
  private var buffer = Data()
  /// What the helper printed with "ready" (Syncthing: its configuration, read back).
  private(set) var ready: [String: Any] = [:]

  init(_ engine: RealSyncTests.Engine, work: String) throws {
    let python = ["python3", RealSyncTests.helper, engine.rawValue, work]
    if engine == .syncthing {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
      process.arguments = ["-n"] + python
    } else {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = python
    }
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let first = try line()
    try #require(first.hasPrefix("ready "), "\(engine) did not start: \(first)")
    let json = Data(first.dropFirst("ready ".count).utf8)
    ready = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
  }

  /// Sends one command and waits for its answer ("ok").
  func send(_ command: String) throws {
    input.fileHandleForWriting.write(Data((command + "\n").utf8))
    let answer = try line()
    try #require(answer == "ok", "\(command): \(answer)")
  }

  /// The next line the helper prints (it bounds every wait of its own).
  func line() throws -> String {
    while true {
      if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let text = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
        buffer = Data(buffer[(end + 1)...])
        return text
      }
      let more = output.fileHandleForReading.availableData
      if more.isEmpty { return "error: the helper ended" }
      buffer.append(more)
    }
  }

  /// Asks the helper to quit (it stops its engine's processes by PID), then its PID is
  /// signalled if it has not ended.
  func stop() {
    try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
    try? input.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(30)
    while process.isRunning && Date() < deadline { usleep(50_000) }
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
  }
}
