import Foundation
import Testing

@testable import Platform
@testable import TestSupport

/// The replace primitive (mn.md §6) on text "documents" whose changes are lines: a version
/// that arrives at any step of the protocol ends up in the target, and nothing is left.
@Suite struct ReplaceTests {
  static let merger = ReplaceMerger(
    merge: { content, arrived in
      guard !arrived.contains(0) else { throw ReplaceTestFailure.unreadable }
      return lines(content, adding: arrived)
    },
    holdsAll: { holder, version in
      Set(split(version)).isSubset(of: Set(split(holder)))
    },
    asideName: { name, attempt in "\(name) \(attempt + 2)" })

  static func split(_ bytes: [UInt8]) -> [String] {
    String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  static func lines(_ content: [UInt8], adding other: [UInt8]) -> [UInt8] {
    let old = split(content)
    let union = old + split(other).filter { !old.contains($0) }
    return Array(union.map { $0 + "\n" }.joined().utf8)
  }

  @Test func nothingArrivedExchangesAndLeavesNoTemporary() throws {
    let folder = try ScratchFolder()
    let target = try folder.write("doc", Array("a\n".utf8))
    let basis = try basis(target)
    let outcome = try Replace.replace(
      AbsolutePath(target), with: Array("a\nb\n".utf8), basis: basis, merger: Self.merger,
      fileSystem: LiveFileSystem())
    #expect(outcome.route == .exchange)
    #expect(outcome.arrivals.total == 0 && outcome.rounds == 1)
    #expect(try read(target) == "a\nb\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["doc"])
  }

  @Test func aNewTargetIsCreatedWithoutOverwriting() throws {
    let folder = try ScratchFolder()
    let target = folder.absolute("doc")
    let outcome = try Replace.replace(
      AbsolutePath(target), with: Array("a\n".utf8), basis: .absent, merger: Self.merger,
      fileSystem: LiveFileSystem(), permissions: 0o600)
    #expect(outcome.route == .exclusive)
    #expect(try read(target) == "a\n")
    let mode = try #require(try LiveFileSystem().info(AbsolutePath(target))).permissions
    #expect(mode == 0o600)
  }

  /// At every step, for a replace of an existing target and for a new one: the version that
  /// arrived is in the target, and so is the content; nothing else is left.
  @Test(arguments: ReplaceStep.replace, [true, false])
  func aVersionArrivingAtAnyStepIsMergedIn(_ step: ReplaceStep, _ existing: Bool) throws {
    let folder = try ScratchFolder()
    let target = folder.absolute("doc")
    if existing { _ = try folder.write("doc", Array("a\n".utf8)) }
    let basis = existing ? try basis(target) : .absent
    // Another device's version: what it last synced, plus its own change.
    let arriving = ArrivingFileSystem(step: step, target: target) {
      Array((existing ? "a\nremote\n" : "remote\n").utf8)
    }
    let outcome = try Replace.replace(
      AbsolutePath(target), with: Array("a\nmine\n".utf8), basis: basis, merger: Self.merger,
      fileSystem: arriving.faulty)
    let applies = existing || (step != .afterExchange && step != .beforeDisplacedRemoval)
    #expect(arriving.didFire == applies)
    let held = Set(Self.split(Array(try read(target).utf8)))
    #expect(held.isSuperset(of: ["a", "mine"]))
    if arriving.didFire {
      #expect(held.contains("remote"), "step \(step): the arrived version was lost")
      // Found by the step of the protocol that should find it.
      let found =
        !existing
        ? outcome.arrivals.beforePlacing
        : step == .beforeTemporary || step == .afterFsync
          ? outcome.arrivals.displaced : outcome.arrivals.afterPlacing
      #expect(found == 1, "step \(step): \(outcome.arrivals)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["doc"])
  }

  @Test(arguments: ReplaceStep.replace)
  func theFallbackWithoutExchangeMergesAnArrival(_ step: ReplaceStep) throws {
    let folder = try ScratchFolder()
    let target = try folder.write("doc", Array("a\n".utf8))
    let basis = try basis(target)
    let refusing = FaultyFileSystem(
      failingPaths: [], refusing: [.exchange, .renameExclusive], with: .invalidArgument)
    let arriving = ArrivingFileSystem(step: step, target: target, base: refusing) {
      Array("a\nremote\n".utf8)
    }
    let outcome = try Replace.replace(
      AbsolutePath(target), with: Array("a\nmine\n".utf8), basis: basis, merger: Self.merger,
      fileSystem: arriving.faulty)
    #expect(outcome.route == .compared)
    let held = Set(Self.split(Array(try read(target).utf8)))
    #expect(held.isSuperset(of: ["a", "mine"]))
    if arriving.didFire { #expect(held.contains("remote"), "step \(step)") }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["doc"])
  }

  @Test func anArrivalThatCannotBeMergedIsKeptAside() throws {
    let folder = try ScratchFolder()
    let target = try folder.write("doc", Array("a\n".utf8))
    let basis = try basis(target)
    let arriving = ArrivingFileSystem(step: .afterFsync, target: target) { [0x00, 0x01] }
    let outcome = try Replace.replace(
      AbsolutePath(target), with: Array("a\nmine\n".utf8), basis: basis, merger: Self.merger,
      fileSystem: arriving.faulty)
    #expect(outcome.keptAside == [folder.location("doc 2")])
    #expect(try read(target) == "a\nmine\n")
    #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder.absolute("doc 2")))) == [0, 1])
  }

  @Test func aLinkOrDirectoryIsNeverReplaced() throws {
    let folder = try ScratchFolder()
    let outside = try folder.write("outside", Array("theirs\n".utf8))
    try folder.symlink("doc", to: outside)
    try folder.makeDirectory("dir")
    for (name, kind) in [("doc", FileKind.symlink), ("dir", .directory)] {
      #expect(throws: ReplaceError.notRegularFile(path: folder.absolute(name), kind: kind)) {
        _ = try Replace.replace(
          folder.location(name), with: Array("mine\n".utf8), basis: .absent,
          merger: Self.merger, fileSystem: LiveFileSystem())
      }
    }
    #expect(try read(outside) == "theirs\n")
    #expect(try LiveFileSystem().info(folder.location("doc"))?.kind == .symlink)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "dir", "doc", "outside",
      ])
  }

  /// A link put in place of the target between the check and the exchange is put back.
  @Test func aLinkSwappedInIsPutBackAndRefused() throws {
    let folder = try ScratchFolder()
    let target = try folder.write("doc", Array("a\n".utf8))
    let outside = try folder.write("outside", Array("theirs\n".utf8))
    let basis = try basis(target)
    let faulty = FaultyFileSystem(base: LiveFileSystem(), faults: [])
    faulty.before = { operation, _ in
      guard operation == .exchange,
        (try? LiveFileSystem().info(AbsolutePath(target)))?.kind == .regular
      else { return }
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: outside)
    }
    #expect(throws: ReplaceError.notRegularFile(path: target, kind: .symlink)) {
      _ = try Replace.replace(
        AbsolutePath(target), with: Array("mine\n".utf8), basis: basis, merger: Self.merger,
        fileSystem: faulty)
    }
    #expect(try LiveFileSystem().info(AbsolutePath(target))?.kind == .symlink)
    #expect(try read(outside) == "theirs\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "doc", "outside",
      ])
  }

  /// A target that a sync client replaces in every round: the replace gives up after
  /// `Replace.maxRounds` rounds, and every version (the content, each arrival) is still in the
  /// target or in one of the temporaries it leaves for the next writer.
  @Test func aTargetThatKeepsChangingLosesNothing() throws {
    let folder = try ScratchFolder()
    let target = try folder.write("doc", Array("a\n".utf8))
    let basis = try basis(target)
    let arrived = Counter()
    let faulty = FaultyFileSystem(base: LiveFileSystem(), faults: [])
    faulty.before = { operation, path in
      guard operation == .close, path.contains(".mn-") else { return }
      try? SyncClient.renameOver(target, Array("a\nremote-\(arrived.next())\n".utf8))
    }
    #expect(throws: ReplaceError.keepsChanging(path: target)) {
      _ = try Replace.replace(
        AbsolutePath(target), with: Array("a\nmine\n".utf8), basis: basis, merger: Self.merger,
        fileSystem: faulty)
    }
    #expect(arrived.value == Replace.maxRounds)
    var held = Set<String>()
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
      held.formUnion(Self.split(Array(try read(folder.absolute(name)).utf8)))
    }
    let every = ["a", "mine"] + (0..<Replace.maxRounds).map { "remote-\($0)" }
    #expect(held.isSuperset(of: every), "lost: \(Set(every).subtracting(held).sorted())")
  }

  func basis(_ path: String) throws -> ReplaceBasis {
    let fs = LiveFileSystem()
    let file = AbsolutePath(path)
    return ReplaceBasis(info: try fs.info(file), bytes: try fs.readFile(file, limit: 1 << 20))
  }

  func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }
}

enum ReplaceTestFailure: Error { case unreadable }

/// A count shared with a file system's hook.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  /// The count before this call, then one more.
  func next() -> Int {
    lock.withLock {
      defer { count += 1 }; return count
    }
  }

  var value: Int { lock.withLock { count } }
}
