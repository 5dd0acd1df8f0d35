import Foundation
import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// What the real Automerge refuses to load, mn refuses too, and what it loads from an odd
/// deflate stream, mn loads: every file of `Tests/Fixtures/malformed` (upstream's fuzz
/// crashers and fixtures, and the deflate streams with reserved symbols made here) is
/// refused by 0.11, 0.6.1 and the codec; every file of `Tests/Fixtures/deflate-headers`
/// (headers declaring more codes than zlib takes) is loaded by all three, with the same heads.
@Suite struct RefusalConformanceTests {
  @Test(arguments: Fixture.files("malformed"))
  func refusedByTheReferenceAndByMn(_ rel: String) throws {
    let path = Fixture.root.appendingPathComponent(rel).path
    #expect(throws: AutomergeDecodeError.self) { try AutomergeFile.decode(Fixture.bytes(rel)) }
    guard DocumentSaveConformanceTests.oraclesPresent else { return }
    for oracle in ["am-oracle", "am-oracle-0.6"] {
      let status = try DocumentSaveConformanceTests.run(oracle, ["check", path]).1
      #expect(status != 0, "\(oracle) loads \(rel)")
    }
  }

  @Test(arguments: Fixture.files("deflate-headers"))
  func loadedByTheReferenceAndByMn(_ rel: String) throws {
    let path = Fixture.root.appendingPathComponent(rel).path
    let heads = try AutomergeFile.decode(Fixture.bytes(rel)).heads.map(\.description)
    guard DocumentSaveConformanceTests.oraclesPresent else { return }
    for oracle in ["am-oracle", "am-oracle-0.6"] {
      let (out, status) = try DocumentSaveConformanceTests.run(oracle, ["heads", path])
      #expect(status == 0, "\(oracle) refuses \(rel)")
      #expect(out.split(separator: "\n").map(String.init) == heads, "\(oracle), \(rel)")
    }
  }
}
