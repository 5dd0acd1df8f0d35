import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a run started with `MN_TEST_PAUSE_AT` ended: stopped at the step (then the caller
/// kills it), or finished without reaching it (docs/testing.md).
enum PausedRun {
  case stopped(Process)
  case finished(Int32)
}

/// Why a paused run could not be told apart.
struct PausedRunTimeout: Error, CustomStringConvertible {
  var description: String
}

extension Sandbox {
  /// Runs the built `mn` with `MN_TEST_PAUSE_AT=STEP:N` and waits (polling, up to a generous
  /// deadline: no timing is assumed) until it has stopped itself at that step or exited.
  func runPausing(_ arguments: [String], at step: String, occurrence: Int) throws -> PausedRun {
    let process = Process()
    process.executableURL = Sandbox.binary
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: home)
    process.environment = environment(["MN_TEST_PAUSE_AT": "\(step):\(occurrence)"])
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(600)
    while Date() < deadline {
      if !process.isRunning {
        process.waitUntilExit()
        return .finished(process.terminationStatus)
      }
      if Self.isStopped(process.processIdentifier) { return .stopped(process) }
      usleep(2_000)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    throw PausedRunTimeout(description: "mn neither stopped at \(step):\(occurrence) nor exited")
  }

  /// Kills a stopped run with SIGKILL and waits for it.
  static func kill9(_ process: Process) {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Whether the process is stopped by a signal: state `T` in `/proc/PID/stat`.
  static func isStopped(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return false }
    let rest = stat[stat.index(after: close)...].drop { $0 == " " }
    return rest.first == "T"
  }
}
