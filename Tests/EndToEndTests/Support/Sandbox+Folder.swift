import Foundation

/// Data-folder helpers for end-to-end tests: sample documents, placeholders, times.
extension Sandbox {
  /// The bytes of a file under `examples/` (real Automerge files, see examples/README.md).
  static func example(_ relative: String) throws -> Data {
    try Data(
      contentsOf: packageRoot.appendingPathComponent("examples").appendingPathComponent(relative))
  }

  /// The sample tag list (device 0), its device-1 copy, and a month of records.
  static var tags: Data { get throws { try example("sample/tags.automerge") } }
  static var tagsOther: Data { get throws { try example("sample/tags 2.automerge") } }
  static var september: Data { get throws { try example("sample/records/2026/09.automerge") } }

  /// Writes an iCloud stub `.NAME.icloud` for `rel` (`dir/NAME`): a binary property list, as
  /// iCloud Drive writes it.
  func writeICloudStub(for rel: String, size: Int) throws {
    let url = URL(fileURLWithPath: rel)
    let name = url.lastPathComponent
    let directory = (rel as NSString).deletingLastPathComponent
    let stub = directory.isEmpty ? ".\(name).icloud" : "\(directory)/.\(name).icloud"
    let plist: [String: Any] = [
      "NSURLNameKey": name, "NSURLFileSizeKey": size,
      "NSURLFileResourceTypeKey": "NSURLFileResourceTypeRegular",
    ]
    try write(
      stub, try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    )
  }

  /// Sets a file's modification time (seconds since the epoch), for exact `--long` output.
  func touch(_ rel: String, _ seconds: TimeInterval) throws {
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: path(rel))
  }

  /// The files below `rel`, sorted, as relative paths.
  func files(_ rel: String) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: path(rel)).filter {
      var isDirectory: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path(rel) + "/" + $0, isDirectory: &isDirectory)
      return !isDirectory.boolValue
    }.sorted()
  }

  /// Parses JSON output.
  static func json(_ result: RunResult) throws -> Any {
    try JSONSerialization.jsonObject(with: result.stdoutBytes)
  }
}
