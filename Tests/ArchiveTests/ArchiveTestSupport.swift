import Archive
import AutomergeCodec
import Foundation
import Platform
import Storage
import Testing

@testable import TestSupport

/// A fresh temporary directory, removed by `remove()`.
struct ArchiveScratch {
  let path: String

  init() throws {
    let base = FileManager.default.temporaryDirectory.path
    path =
      try LiveFileSystem().realPath(AbsolutePath(base))
      .appending("mn-archive-tests-" + UUID().uuidString).string
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }

  /// Writes a file (creating parents) with a mode.
  func write(_ relative: String, _ bytes: [UInt8], mode: Int = 0o644) throws {
    let full = path + "/" + relative
    let dir = (full as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: full)
  }

  func write(_ relative: String, _ text: String, mode: Int = 0o644) throws {
    try write(relative, Array(text.utf8), mode: mode)
  }

  func read(_ relative: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path + "/" + relative).map { [UInt8]($0) }
  }

  /// Every file and directory below `relative`, sorted, as relative paths.
  func listing(_ relative: String = "") -> [String] {
    let root = relative.isEmpty ? path : path + "/" + relative
    let items = (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []
    return items.sorted()
  }
}

/// A sample data folder: two documents, the version file, an executable "other" file with a
/// non-ASCII name, and a nested other file.
struct SampleFolder {
  let root: String
  let files: [ExportFile]

  static let contents: [(String, String, ArchiveManifest.Kind, Int)] = [
    ("tags.automerge", "tags-document-bytes", .document, 0o644),
    ("records/2026/09.automerge", "september-document", .document, 0o600),
    ("records/2026/10.automerge", "october-document-bytes-longer", .document, 0o644),
    (".minuta-version", "3\n", .other, 0o644),
    ("notes/café résumé.txt", "hello, non-ASCII world\n", .other, 0o755),
  ]

  init(in scratch: ArchiveScratch, name: String = "data") throws {
    root = scratch.path + "/" + name
    var files: [ExportFile] = []
    for (relative, text, kind, mode) in Self.contents {
      try scratch.write(name + "/" + relative, text, mode: mode)
      files.append(
        ExportFile(
          relativePath: relative, absolutePath: AbsolutePath(root).appending(relative), kind: kind))
    }
    self.files = files
  }
}

/// A stand-in for the Automerge codec: the change count is the byte count, the head the hash.
let fakeInspector: DocumentInspector = { bytes in
  if bytes.starts(with: Array("BROKEN".utf8)) { throw ArchiveTestFailure.unparsable }
  return (changes: bytes.count, heads: [SHA256Digest.hexHash(bytes)])
}

enum ArchiveTestFailure: Error { case unparsable }

/// Deterministic temporary-name suffixes.
final class SuffixCounter: @unchecked Sendable {
  private var next = 0
  func callAsFunction() -> String {
    next += 1
    return String(format: "%06d", next)
  }
}

/// Runs bsdtar (the independent reader) and returns status and stdout.
@discardableResult
func bsdtar(_ arguments: [String]) throws -> (status: Int32, output: [UInt8]) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/bsdtar")
  process.arguments = arguments
  var environment = ProcessInfo.processInfo.environment
  environment["LC_ALL"] = "C.UTF-8"
  process.environment = environment
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.nullDevice
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, [UInt8](data))
}

/// A manifest for the given files (path, content), as mn writes it.
func manifestBytes(_ files: [(String, [UInt8])], kind: ArchiveManifest.Kind = .other) -> [UInt8] {
  ArchiveManifest(
    version: "test", created: "2026-01-01T00:00:00Z", source: "/data",
    files: files.map {
      ArchiveManifest.File(
        path: $0.0, kind: kind, size: Int64($0.1.count), sha256: SHA256Digest.hexHash($0.1))
    }
  ).encoded
}
