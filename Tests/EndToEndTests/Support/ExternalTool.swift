import Foundation

/// Runs an installed tool (`bsdtar`, `sha256sum`) in `directory`; the independent checks of
/// what mn writes. Returns the exit status and standard output.
@discardableResult
func externalTool(_ name: String, _ arguments: [String], in directory: String) throws -> (
  status: Int32, output: Data
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
  process.arguments = arguments
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  var environment = ProcessInfo.processInfo.environment
  environment["LC_ALL"] = "C.UTF-8"
  process.environment = environment
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.nullDevice
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, data)
}

extension Sandbox {
  /// The entry names of an archive in the sandbox, in archive order (`bsdtar -tf`).
  func archiveEntries(_ rel: String) throws -> [String] {
    let (status, output) = try externalTool("bsdtar", ["-tf", path(rel)], in: home)
    guard status == 0 else { return [] }
    return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// One entry's bytes (`bsdtar -xOf`).
  func archiveEntry(_ rel: String, _ entry: String) throws -> Data {
    try externalTool("bsdtar", ["-xOf", path(rel), entry], in: home).output
  }

  /// The hex SHA-256 of a file in the sandbox (`sha256sum`).
  func sha256(_ rel: String) throws -> String {
    let output = try externalTool("sha256sum", [path(rel)], in: home).output
    return String(String(decoding: output, as: UTF8.self).prefix(64))
  }

  /// Every regular file below `rel`, relative to it, sorted, with its bytes.
  func files(under rel: String) throws -> [String: Data] {
    var out: [String: Data] = [:]
    let base = path(rel)
    for sub in (FileManager.default.subpaths(atPath: base) ?? []) {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: base + "/" + sub, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        out[sub] = try Data(contentsOf: URL(fileURLWithPath: base + "/" + sub))
      }
    }
    return out
  }
}
