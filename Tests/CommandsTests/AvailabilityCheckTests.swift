import Foundation
import Testing

/// `scripts/check-availability.py`, which `make test` runs on the package, fails on an API
/// newer than macOS 14 (mn.md §15); here it is run on planted files, so that a check that
/// silently passes everything fails this suite.
@Suite struct AvailabilityCheckTests {
  static let script = TestSupport.packageRoot.appendingPathComponent(
    "scripts/check-availability.py"
  ).path

  /// Runs the check on `sources` (file name → text) in a temporary folder.
  func check(_ sources: [String: String]) throws -> TestSupport.Result {
    let folder = try TestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    var paths: [String] = []
    for (name, text) in sources.sorted(by: { $0.key < $1.key }) {
      let url = folder.appendingPathComponent(name)
      try text.write(to: url, atomically: true, encoding: .utf8)
      paths.append(url.path)
    }
    return try TestSupport.run("python3", [Self.script, "--source"] + paths)
  }

  @Test func aPlantedUseOfAMacOS15APIFails() throws {
    let result = try check([
      "Planted.swift": """
      func name(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
      }
      """,
      "Clean.swift": "func count() -> Int { [1, 2].count }\n",
    ])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "Planted.swift:2: String.init(validating:as:) needs macOS 15.0; the package declares macOS 14.0"
      ), "\(result.stderr)")
    #expect(!result.stderr.contains("Clean.swift"), "\(result.stderr)")
  }

  /// A type newer than the minimum is found through its name alone, and so are its members,
  /// whose own declarations carry no availability (they inherit the type's).
  @Test func aPlantedNewTypeFails() throws {
    let result = try check([
      "Planted.swift": """
      import Synchronization

      func counter() -> Int {
        let m = Mutex(0)
        return m.withLock { $0 }
      }
      """
    ])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.contains("Planted.swift:4: Mutex"), "\(result.stderr)")
    #expect(result.stderr.contains("needs macOS 15.0"), "\(result.stderr)")
  }

  @Test func apisOfMacOS14AndOlderPass() throws {
    let result = try check([
      "Fine.swift": """
      func fine(_ text: String) -> String {
        // replacing(_:with:) is macOS 13.
        text.replacing("a", with: "b") + String(decoding: [0x61], as: UTF8.self)
      }
      """
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("no API newer than macOS 14.0"))
  }
}
