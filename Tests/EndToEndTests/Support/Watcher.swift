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

/// A running `mn watch` in a sandbox: its standard error and output go to files that the
/// test reads while it runs.
final class Watcher {
  let process: Process
  let errPath: String
  let outPath: String

  init(_ box: Sandbox, _ arguments: [String], name: String = "watch") throws {
    errPath = box.path("\(name).stderr")
    outPath = box.path("\(name).stdout")
    for path in [errPath, outPath] {
      _ = FileManager.default.createFile(atPath: path, contents: nil)
    }
    process = Process()
    process.executableURL = Sandbox.binary
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: box.home)
    process.environment = box.environment()
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    process.standardInput = FileHandle.nullDevice
    try process.run()
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  var pid: Int32 { process.processIdentifier }
  var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
  var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }

  /// Waits until `condition` holds (checked every 20 ms) or `seconds` pass; whether it held.
  @discardableResult
  static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
      if condition() { return true }
      usleep(20_000)
    }
    return condition()
  }

  /// Waits until standard error has a line containing `text` (a generous deadline: it
  /// returns as soon as the line is there).
  @discardableResult
  func waitFor(_ text: String, _ seconds: Double = 120) -> Bool {
    Watcher.waitUntil(seconds) { stderr.contains(text) }
  }

  /// Sends `signal` and waits for the exit; the exit status (or 128 + signal).
  func stop(_ signal: Int32 = SIGTERM, timeout: Double = 20) -> Int32 {
    kill(pid, signal)
    Watcher.waitUntil(timeout) { !process.isRunning }
    if process.isRunning {
      kill(pid, SIGKILL)
      process.waitUntilExit()
      return -1
    }
    return process.terminationReason == .exit
      ? process.terminationStatus : 128 + process.terminationStatus
  }

  /// The CPU time used so far, in clock ticks (`/proc/PID/stat` utime + stime).
  func cpuTicks() -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
      return nil
    }
    return user + system
  }

  /// The resident memory in kB (`/proc/PID/status` VmRSS).
  func residentKB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
  }
}

/// Automerge documents for the watch tests: real fixtures, and copies that each add one
/// change of their own (an empty change by a fresh actor, as any Automerge writes).
enum WatchDocuments {
  static let fixtures = Sandbox.packageRoot.appendingPathComponent(
    "Tests/Fixtures/conflicts")

  static func fixture(_ rel: String) throws -> [UInt8] {
    Array(try Data(contentsOf: fixtures.appendingPathComponent(rel)))
  }

  /// Device 0's month and tags (seed 1).
  static var month: [UInt8] {
    get throws { try fixture("seed-01/device-0/records/2026/09.automerge") }
  }
  static var tags: [UInt8] { get throws { try fixture("seed-01/device-0/tags.automerge") } }

  /// `base` followed by one new change, and that change's hash.
  static func withNewChange(_ base: [UInt8], tag: UInt64) throws -> ([UInt8], ChangeHash) {
    let file = try AutomergeFile.decode(base)
    let maxOp = file.changes.map(\.maxOp).max() ?? 0
    var actor = [UInt8](repeating: 0xA5, count: 16)
    withUnsafeBytes(of: tag.bigEndian) { for (i, b) in $0.enumerated() { actor[8 + i] = b } }
    let change = Change(
      actors: [ActorId(actor)], seq: 1, startOp: maxOp + 1, time: 0,
      message: "copy \(tag)", deps: file.heads, ops: [])
    return (base + change.chunk, change.hash)
  }

  /// The change hashes of a file; empty when it cannot be read or decoded.
  static func hashes(_ path: String) -> Set<ChangeHash> {
    guard let data = FileManager.default.contents(atPath: path),
      let file = try? AutomergeFile.decode(Array(data))
    else { return [] }
    return Set(file.changes.map(\.hash))
  }

  /// Writes `bytes` as a sync client does: a temporary beside the target, then a rename.
  static func renameIntoPlace(_ bytes: [UInt8], _ path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let temporary = directory + "/.syncthing.\(UUID().uuidString).tmp"
    try Data(bytes).write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
  }

  /// The conflict copies left below `root`, as relative paths.
  static func copies(_ root: String) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var found: [String] = []
    while let rel = walker.nextObject() as? String {
      if WatchPaths.kind(of: AbsolutePath(root + "/" + rel), root: AbsolutePath(root)) == .copy {
        found.append(rel)
      }
    }
    return found.sorted()
  }
}
