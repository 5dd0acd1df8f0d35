import Foundation
import Platform
import Testing

@testable import AutomergeCodec
@testable import Operations

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an idle `mn watch` costs, and copies arriving while it is killed and restarted
/// (mn.md §12). `MN_WATCH_SOAK_SECONDS` sets the soak's length (default 40; the issue's
/// two minutes: 120); `MN_WATCH_SOAK_SEED` replays a seed.
@Suite(.serialized) struct WatchSoakTests {
  static var environment: [String: String] { ProcessInfo.processInfo.environment }

  /// The 24 documents: the tags and 23 months.
  static let documents: [String] =
    ["tags.automerge"]
    + (1...12).map { String(format: "records/2026/%02d.automerge", $0) }
    + (1...11).map { String(format: "records/2025/%02d.automerge", $0) }

  /// Names of the next copy of `document`, as five services write them (unique by `n`).
  static func copyName(_ document: String, _ n: UInt64, _ pick: UInt64) -> String {
    let stem = String(document.dropLast(".automerge".count))
    // A time of day unique by n (the patterns check that the time is one).
    let t = Int(n % 86_400)
    let hhmmss = String(format: "%02d%02d%02d", t / 3600, t / 60 % 60, t % 60)
    switch pick % 5 {
    case 0: return "\(stem) \(n + 2).automerge"
    case 1:
      return
        "\(stem) (Ada's conflicted copy 2026-09-\(String(format: "%02d", n % 28 + 1))) (\(n)).automerge"
    case 2: return "\(stem).sync-conflict-20260906-\(hhmmss)-ABCDEFG.automerge"
    case 3: return "\(stem) (conflicted copy 2026-09-06 \(hhmmss)).automerge"
    default: return "\(stem).automerge.conflict\(n)"
    }
  }

  @Test func anIdleWatcherCostsNoCPUAndItsMemoryStaysFlat() throws {
    let box = try Sandbox()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    try box.write("data/records/2026/09.automerge", Data(try WatchDocuments.month))
    let root = box.path("data")
    // A long quiet period: the copies written below stay pending, nothing is merged.
    let w = try Watcher(box, ["--root", root, "watch", "--quiet-for", "3600"])
    #expect(w.waitFor("watching", 120))
    // Idle once its first scan is done: its CPU time stops moving (polled, not assumed
    // from a fixed pause, which a loaded machine outlasts).
    var settled: Int?
    Watcher.waitUntil(120) {
      let ticks = w.cpuTicks()
      defer { settled = ticks }
      guard let ticks, ticks == settled else {
        usleep(500_000)
        return false
      }
      return true
    }
    let before = try #require(w.cpuTicks(), "mn watch is not running: \(w.stderr)")
    sleep(10)
    let after = try #require(w.cpuTicks(), "mn watch is not running: \(w.stderr)")
    let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    let idleMilliseconds = Double(after - before) * 1000 / ticksPerSecond
    print("idle watcher: \(idleMilliseconds) ms of CPU in 10 s")
    #expect(idleMilliseconds <= 10)

    // Events: writes to ten copies and to the document in turn.
    let copies = (0..<10).map { box.path("data/records/2026/09 \($0 + 2).automerge") }
    let fds = (copies + [box.path("data/records/2026/09.automerge")]).map {
      open($0, O_CREAT | O_WRONLY | O_APPEND, 0o644)
    }
    defer { fds.forEach { close($0) } }
    var byte: UInt8 = 0
    func events(_ count: Int) {
      for i in 0..<count {
        _ = write(fds[i % fds.count], &byte, 1)
        if i % 50 == 49 { usleep(2_000) }
      }
      usleep(500_000)
    }
    events(100)
    let at100 = try #require(w.residentKB())
    events(1_900)
    let at2000 = try #require(w.residentKB())
    print("resident memory: \(at100) kB after 100 events, \(at2000) kB after 2,000")
    #expect(at2000 - at100 <= 2048)
    #expect(w.stop() == 0)
  }

  @Test func copiesArrivingWhileTheWatcherIsKilledAndRestartedAreAllMerged() throws {
    let seconds = Self.environment["MN_WATCH_SOAK_SECONDS"].flatMap(Double.init) ?? 40
    let seed = Self.environment["MN_WATCH_SOAK_SEED"].flatMap(UInt64.init) ?? UInt64(time(nil))
    var random = SplitMix64(seed: seed)
    let box = try Sandbox()
    box.extraEnvironment["MN_BACKUP_DIR"] = box.path("backups")
    let root = box.path("data")
    for document in Self.documents {
      let bytes = document == "tags.automerge" ? try WatchDocuments.tags : try WatchDocuments.month
      try box.write("data/" + document, Data(bytes))
    }
    let arguments = ["--root", root, "watch", "--quiet-for", "0.5"]
    var watcher = try Watcher(box, arguments, name: "watch-0")
    var expected: [String: Set<ChangeHash>] = [:]
    var copies = 0
    var kills = 0
    var restarts = 0
    let start = Date()
    var nextKill = Date().addingTimeInterval(Double(random.next() % 4000) / 1000 + 0.5)
    var down: Date?
    while Date().timeIntervalSince(start) < seconds {
      // A copy of a random document: its base as the other device had it, plus a change.
      let document = Self.documents[Int(random.next() % UInt64(Self.documents.count))]
      let base = document == "tags.automerge" ? try WatchDocuments.tags : try WatchDocuments.month
      copies += 1
      let (bytes, hash) = try WatchDocuments.withNewChange(base, tag: UInt64(copies) << 8 | 0x77)
      let directory = (document as NSString).deletingLastPathComponent
      let name = Self.copyName(
        (document as NSString).lastPathComponent, UInt64(copies), random.next())
      let path = root + "/" + (directory.isEmpty ? name : directory + "/" + name)
      #expect(WatchPaths.kind(of: AbsolutePath(path), root: AbsolutePath(root)) == .copy, "\(name)")
      if random.next() % 4 == 0 {
        // In place, in two writes a moment apart.
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        let half = bytes.count / 2
        _ = bytes[..<half].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        usleep(100_000)
        _ = bytes[half...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
      } else {
        try WatchDocuments.renameIntoPlace(bytes, path)
      }
      expected[document, default: []].insert(hash)
      usleep(useconds_t(50_000 + random.next() % 400_000))
      if let since = down, Date().timeIntervalSince(since) > 0.2 {
        watcher = try Watcher(box, arguments, name: "watch-\(restarts + 1)")
        restarts += 1
        down = nil
        nextKill = Date().addingTimeInterval(Double(random.next() % 4000) / 1000 + 0.5)
      } else if down == nil && Date() > nextKill {
        kill(watcher.pid, SIGKILL)
        watcher.process.waitUntilExit()
        kills += 1
        down = Date()
      }
    }
    if down != nil {
      watcher = try Watcher(box, arguments, name: "watch-\(restarts + 1)")
      restarts += 1
    }
    let settled = Watcher.waitUntil(30) { WatchDocuments.copies(root).isEmpty }
    #expect(watcher.stop() == 0)
    print(
      "watch soak (seed \(seed), \(Int(seconds)) s): \(copies) copies, \(kills) kills, \(restarts) restarts"
    )
    #expect(settled, "copies left: \(WatchDocuments.copies(root)); seed \(seed)")
    for (document, hashes) in expected {
      let held = WatchDocuments.hashes(root + "/" + document)
      #expect(
        hashes.isSubset(of: held),
        "\(document): \(hashes.subtracting(held).count) missing; seed \(seed)")
    }
    #expect(kills > 0 && copies > 0)
    if let keep = Self.environment["MN_WATCH_SOAK_KEEP"] {
      try? FileManager.default.removeItem(atPath: keep)
      try FileManager.default.copyItem(atPath: box.home, toPath: keep)
    }
  }
}
