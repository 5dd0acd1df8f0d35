import Foundation
import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// What the real Automerge refuses to load, mn refuses too: every file of
/// `Tests/Fixtures/malformed` (upstream's fuzz crashers and fixtures, and the deflate streams
/// with reserved length symbols made here) is refused by 0.11 and 0.6.1 and by the codec.
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
}
