import AutomergeCodec
import Foundation

/// Fixtures of `Tests/Fixtures`, found from this file's path.
enum Fixture {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static func bytes(_ rel: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: root.appendingPathComponent(rel)))
  }

  static func text(_ rel: String) throws -> String {
    String(decoding: try bytes(rel), as: UTF8.self)
  }

  static func files(_ dir: String) -> [String] {
    let base = root.appendingPathComponent(dir)
    guard let e = FileManager.default.enumerator(atPath: base.path) else { return [] }
    var out: [String] = []
    while let rel = e.nextObject() as? String {
      if rel.hasSuffix(".md") || rel.hasSuffix(".heads") || rel.hasSuffix(".changes") { continue }
      var isDir: ObjCBool = false
      _ = FileManager.default.fileExists(
        atPath: base.appendingPathComponent(rel).path, isDirectory: &isDir)
      if !isDir.boolValue { out.append(dir + "/" + rel) }
    }
    return out.sorted()
  }
}

/// Hex literal helper: spaces and newlines are ignored.
func hex(_ s: String) -> [UInt8] {
  Hex.decode(String(s.filter { !$0.isWhitespace })) ?? []
}
