import Foundation
import Testing

/// What one run of the built `mn` did.
struct RunResult {
  var status: Int32
  var stdout: String
  var stderr: String
  var stdoutBytes: Data
}

/// A fresh temporary directory that serves as HOME (and XDG dirs) for one test, removed after.
///
/// Every end-to-end test runs the real binary inside one of these, never with the real HOME.
final class Sandbox {
  let root: URL
  var home: String { root.path }
  var extraEnvironment: [String: String] = [:]

  init() throws {
    root = FileManager.default.temporaryDirectory
      .appendingPathComponent("mn-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  deinit {
    // Restore write permission where a test removed it, then clean up.
    _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwx", root.path])
      .waitUntilExit()
    try? FileManager.default.removeItem(at: root)
  }

  /// The built `mn` binary, next to the test bundle, or the one `MN_TEST_BINARY` names
  /// (`make test` also runs these tests on the release build, which links differently).
  static var binary: URL {
    if let path = ProcessInfo.processInfo.environment["MN_TEST_BINARY"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    let candidates = [
      Bundle.main.bundleURL.appendingPathComponent("mn"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mn"),
      URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/mn"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
      ?? candidates[2]
  }

  /// The package's root folder (for `examples/` and `Tests/Fixtures`).
  static var packageRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
  }

  /// The absolute path of `rel` inside the sandbox.
  func path(_ rel: String) -> String { root.appendingPathComponent(rel).path }

  func mkdir(_ rel: String) throws {
    try FileManager.default.createDirectory(atPath: path(rel), withIntermediateDirectories: true)
  }

  func write(_ rel: String, _ data: Data) throws {
    let url = root.appendingPathComponent(rel)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
  }

  func write(_ rel: String, _ text: String) throws { try write(rel, Data(text.utf8)) }

  func read(_ rel: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(rel)) }

  func exists(_ rel: String) -> Bool { FileManager.default.fileExists(atPath: path(rel)) }

  /// Copies a folder of the package (e.g. `examples/sample`) to `rel` in the sandbox.
  func copyFromPackage(_ source: String, to rel: String) throws {
    let destination = root.appendingPathComponent(rel)
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: Sandbox.packageRoot.appendingPathComponent(source), to: destination)
  }

  /// The environment `mn` runs with: HOME and the XDG folders in the sandbox, C locale, UTC.
  func environment(_ extra: [String: String] = [:]) -> [String: String] {
    var env = [
      "HOME": home, "XDG_CONFIG_HOME": path(".config"), "XDG_STATE_HOME": path(".local/state"),
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
      "LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1",
    ]
    env.merge(extraEnvironment) { $1 }
    env.merge(extra) { $1 }
    return env
  }

  /// Runs the built `mn` with `arguments`, its output discarded, and measures that one
  /// process. A small Python process starts it and reports `wait4`'s figures for it: Linux
  /// charges a spawned child, at its `exec`, with the peak resident size of the process it was
  /// spawned from, so a child of this test process (large after hundreds of tests: 1.8 GB in
  /// one full run) would be charged this process's size, not its own. Paths in `arguments`
  /// must be absolute (the child runs in the test's directory).
  ///
  /// - Returns: its exit status, wall-clock seconds and peak resident size in KiB.
  func measure(_ arguments: [String]) throws -> (status: Int32, seconds: Double, peakKiB: Int) {
    let report = path("measure-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(atPath: report) }
    let script = """
      import os, sys
      report, argv = sys.argv[1], sys.argv[2:]
      _, status, usage = os.wait4(os.posix_spawn(argv[0], argv, os.environ), 0)
      code = os.waitstatus_to_exitcode(status)
      open(report, "w").write(f"{code if code >= 0 else 128 - code} {usage.ru_maxrss}")
      """
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv =
      (["python3", "-c", script, report, Sandbox.binary.path] + arguments).map { strdup($0) }
      + [nil]
    let envp = environment().map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    let started = Date()
    var pid = pid_t()
    let spawned = posix_spawnp(&pid, "python3", &actions, nil, argv, envp)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var raw: Int32 = 0
    while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
    let seconds = Date().timeIntervalSince(started)
    let figures = try String(contentsOfFile: report, encoding: .utf8).split(separator: " ")
    guard raw == 0, figures.count == 2, let status = Int32(figures[0]), let peak = Int(figures[1])
    else { throw POSIXError(.EIO) }
    return (status, seconds, peak)
  }

  /// Starts the built `mn` in the sandbox, its output discarded, and returns at once (for
  /// tests that kill it part-way).
  func start(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = Sandbox.binary
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: home)
    process.environment = environment()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// Runs the built `mn` with `arguments` in `directory` (default: the sandbox).
  @discardableResult
  func run(
    _ arguments: [String], in directory: String? = nil, stdin: Data? = nil,
    environment: [String: String] = [:]
  ) throws -> RunResult {
    let process = Process()
    process.executableURL = Sandbox.binary
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory ?? home)
    process.environment = self.environment(environment)
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    // Read both pipes concurrently so a large output cannot block the child.
    let errBox = DataBox()
    let group = DispatchGroup()
    group.enter()
    let errHandle = err.fileHandleForReading
    DispatchQueue.global().async {
      errBox.data = errHandle.readDataToEndOfFile()
      group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let errData = errBox.data
    process.waitUntilExit()
    return RunResult(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData)
  }
}

/// Carries the bytes read on another thread back to the caller (after `DispatchGroup.wait`).
private final class DataBox: @unchecked Sendable {
  var data = Data()
}
