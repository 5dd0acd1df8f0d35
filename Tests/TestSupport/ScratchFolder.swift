import Foundation
import Platform

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A fresh directory under the system's temporary directory (never HOME), removed at the end.
final class ScratchFolder {
  let path: String

  init() throws {
    var template = Array((NSTemporaryDirectory() + "/mn-folder-XXXXXX").utf8CString)
    guard
      let made = template.withUnsafeMutableBufferPointer({ buffer -> UnsafeMutablePointer<CChar>? in
        guard let base = buffer.baseAddress else { return nil }
        return mkdtemp(base)
      })
    else {
      throw CocoaError(.fileWriteUnknown)
    }
    // Resolved, so that tests comparing paths are not fooled by /tmp being a link.
    let given = AbsolutePath(String(cString: made))
    path = ((try? LiveFileSystem().realPath(given)) ?? given).string
  }

  /// Directories whose permissions a test removed, restored before deletion.
  private var lockedOut: [String] = []

  deinit {
    for dir in lockedOut { chmod(dir, 0o755) }
    try? FileManager.default.removeItem(atPath: path)
  }

  /// Removes every permission from a directory (restored at the end).
  func lockOut(_ rel: String) {
    lockedOut.append(absolute(rel))
    chmod(absolute(rel), 0)
  }

  /// Writes many files quickly (plain system calls; the directory must exist).
  func writeQuickly(_ rel: String, _ bytes: [UInt8]) throws {
    let fd = open(absolute(rel), O_CREAT | O_WRONLY | O_TRUNC, 0o644)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
  }

  func absolute(_ rel: String) -> String { rel.isEmpty ? path : path + "/" + rel }

  /// The folder, or `rel` inside it, as an `AbsolutePath` (what the `FileSystem` takes).
  func location(_ rel: String = "") -> AbsolutePath { AbsolutePath(absolute(rel)) }

  /// Writes a file, creating its directories.
  @discardableResult
  func write(_ rel: String, _ bytes: [UInt8] = Array("x".utf8)) throws -> String {
    let full = absolute(rel)
    let dir = (full as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: full, contents: Data(bytes)) else {
      throw CocoaError(.fileWriteUnknown)
    }
    return full
  }

  func makeDirectory(_ rel: String) throws {
    try FileManager.default.createDirectory(
      atPath: absolute(rel), withIntermediateDirectories: true)
  }

  func symlink(_ rel: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: absolute(rel), withDestinationPath: target)
  }
}

private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}

/// Binary property lists for stubs, written by Foundation (as iCloud writes them).
enum StubBytes {
  static func plist(_ value: Any) throws -> [UInt8] {
    Array(try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0))
  }

  static func stub(name: String, size: Int) throws -> [UInt8] {
    try plist([
      "NSURLNameKey": name, "NSURLFileSizeKey": size,
      "NSURLFileResourceTypeKey": "NSURLFileResourceTypeRegular",
    ])
  }
}

/// Whether the tests run as root, for whom permission bits do not apply.
var runningAsRoot: Bool { geteuid() == 0 }
