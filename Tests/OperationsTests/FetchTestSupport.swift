import Foundation

@testable import AutomergeCodec
@testable import Platform
@testable import TestSupport

/// A clock that only moves when slept on; `onSleep` plays the sync client.
final class FakeClock: @unchecked Sendable {
  var time = 1_000.0
  var sleeps: [Double] = []
  var onSleep: (Double) -> Void = { _ in }

  func now() -> Double { time }

  func sleep(_ seconds: Double) {
    sleeps.append(seconds)
    time += seconds
    onSleep(time)
  }

  /// Seconds slept in all.
  var slept: Double { sleeps.reduce(0, +) }
}

/// A `ProcessRunner` that runs nothing: each command calls `behaviour`, which does the
/// command's work and says how it ends (nil: it runs until terminated).
final class FakeProcessRunner: ProcessRunner, @unchecked Sendable {
  var commands: [String] = []
  var environments: [[String: String]] = []
  var terminated: [(Int32, Bool)] = []
  var behaviour: (String) -> ProcessStatus? = { _ in .exited(0) }
  private var ends: [Int32: ProcessStatus] = [:]

  func start(shellCommand command: String, environment: [String: String]) throws(ProcessError)
    -> ChildProcess
  {
    commands.append(command)
    environments.append(environment)
    let id = Int32(100 + commands.count)
    if let end = behaviour(command) { ends[id] = end }
    return ChildProcess(id: id)
  }

  func status(of child: ChildProcess) throws(ProcessError) -> ProcessStatus? { ends[child.id] }

  func terminate(_ child: ChildProcess, force: Bool) {
    terminated.append((child.id, force))
    ends[child.id] = .signaled(force ? 9 : 15)
  }
}

/// Real Automerge files from `examples/` (see examples/README.md).
enum SampleDocuments {
  static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("examples")

  static func bytes(_ relative: String) throws -> [UInt8] {
    Array(try Data(contentsOf: examples.appendingPathComponent(relative)))
  }

  /// The tag list of device 0.
  static var tags: [UInt8] { get throws { try bytes("sample/tags.automerge") } }
  /// Device 1's copy of the same tag list (other changes).
  static var tagsOther: [UInt8] { get throws { try bytes("sample/tags 2.automerge") } }
  /// A month of records.
  static var september: [UInt8] { get throws { try bytes("sample/records/2026/09.automerge") } }

  /// The change hashes of a file.
  static func hashes(_ bytes: [UInt8]) throws -> Set<ChangeHash> {
    Set(try AutomergeFile.decode(bytes).changes.map(\.hash))
  }
}
