import Archive
import AutomergeCodec
import Foundation
import Operations
import Platform
import Storage
import Testing

/// A fresh temporary directory, removed by `remove()`.
struct ArchiveScratch {
  let path: String

  init() throws {
    let base = FileManager.default.temporaryDirectory.path
    path = try LiveFileSystem().realPath(base) + "/mn-archive-tests-" + UUID().uuidString
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
        ExportFile(relativePath: relative, absolutePath: root + "/" + relative, kind: kind))
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

/// Builds ustar archives byte by byte, so that tests can make entries no well-behaved writer
/// would (absolute paths, `..`, links, devices, lying sizes).
struct TarBuilder {
  enum TypeFlag: UInt8 {
    case file = 0x30  // "0"
    case hardLink = 0x31  // "1"
    case symbolicLink = 0x32  // "2"
    case character = 0x33  // "3"
    case block = 0x34  // "4"
    case directory = 0x35  // "5"
    case fifo = 0x36  // "6"
  }

  private(set) var bytes: [UInt8] = []

  private static func octal(_ value: Int, width: Int) -> [UInt8] {
    let digits = String(value, radix: 8)
    let padded = String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
    return Array(padded.utf8) + [0]
  }

  /// Appends one entry; `declaredSize` overrides the header's size field.
  mutating func add(
    _ name: String, _ content: [UInt8] = [], type: TypeFlag = .file, link: String = "",
    mode: Int = 0o644, declaredSize: Int? = nil
  ) {
    var header = [UInt8](repeating: 0, count: 512)
    func put(_ field: [UInt8], at offset: Int) {
      for (i, b) in field.enumerated() { header[offset + i] = b }
    }
    put(Array(name.utf8.prefix(100)), at: 0)
    put(Self.octal(mode, width: 8), at: 100)
    put(Self.octal(0, width: 8), at: 108)
    put(Self.octal(0, width: 8), at: 116)
    put(Self.octal(declaredSize ?? content.count, width: 12), at: 124)
    put(Self.octal(1_700_000_000, width: 12), at: 136)
    put(Array(repeating: 0x20, count: 8), at: 148)
    header[156] = type.rawValue
    put(Array(link.utf8.prefix(100)), at: 157)
    put(Array("ustar\0".utf8), at: 257)
    put(Array("00".utf8), at: 263)
    put(Self.octal(0, width: 8), at: 329)
    put(Self.octal(0, width: 8), at: 337)
    let sum = header.reduce(0) { $0 + Int($1) }
    put(Self.octal(sum, width: 7) + [0x20], at: 148)
    bytes += header
    bytes += content
    let padding = (512 - content.count % 512) % 512
    bytes += [UInt8](repeating: 0, count: padding)
  }

  /// The archive with its two zero end blocks.
  var archive: [UInt8] { bytes + [UInt8](repeating: 0, count: 1024) }
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
