import Foundation
import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// The small real documents in `Fixtures/valid` materialize to the JSON the real Automerge
/// gives (`.json` and `.typed.json` beside each file, copied from the shared fixtures).
@Suite struct MaterializeFixtureTests {
  static let files = [
    "valid/seed-01/device-0/tags.automerge", "valid/seed-01/device-0/tags.changes.automerge",
    "valid/seed-01/device-0/tags.incremental.automerge",
    "valid/seed-01/device-0/records/2026/09.automerge",
    "valid/seed-01/device-1/tags.automerge", "valid/upstream/exemplar",
    "valid/upstream/counter_value_is_ok.automerge", "valid/upstream/two_change_chunks.automerge",
    "valid/upstream/two_change_chunks_compressed.automerge",
    "valid/upstream/two_change_chunks_out_of_order.automerge",
    "valid/upstream/broken_zero_width_mark.automerge",
  ]

  @Test(arguments: files)
  func matchesTheReference(_ rel: String) throws {
    let file = try AutomergeFile.decode(Fixture.bytes(rel))
    for (suffix, typed) in [(".json", false), (".typed.json", true)] {
      let expected = try JSONParser.parse(Fixture.bytes(rel + suffix)).sortedKeys
      #expect(try Materializer.materialize(file, typed: typed) == expected, "\(rel)\(suffix)")
      // The generic entry point (with its own dependency check) agrees.
      #expect(
        try Materializer.materialize(file.changes, typed: typed) == expected, "\(rel)\(suffix)")
      // So does the column path, for a file that is one document chunk.
      let direct = try Materializer.materializeDocumentChunk(Fixture.bytes(rel), typed: typed)
      #expect(
        direct.map(\.sortedKeys) == (Self.oneDocumentChunk.contains(rel) ? expected : nil),
        "\(rel)\(suffix)")
    }
  }

  /// The files of `files` that are exactly one document chunk.
  static let oneDocumentChunk: Set<String> = [
    "valid/seed-01/device-0/tags.automerge", "valid/seed-01/device-0/records/2026/09.automerge",
    "valid/seed-01/device-1/tags.automerge", "valid/upstream/exemplar",
    "valid/upstream/broken_zero_width_mark.automerge",
  ]

  @Test func exemplarWrittenTextIsExact() throws {
    let file = try AutomergeFile.decode(Fixture.bytes("valid/upstream/exemplar"))
    let text = JSONWriter.string(try Materializer.materialize(file, typed: false))
    #expect(
      text
        == #"{"bool":true,"bytes":{"$bytes":"856f4a83"},"counter":5,"fp":3.14159267,"int":-4,"#
        + #""location":"https://automerge.org/","notes":"🇬🇧👨‍👨‍👧‍👦😀","timestamp":-905182979000,"#
        + #""title":"Hello 🇬🇧👨‍👨‍👧‍👦😀","uint":18446744073709551615}"#)
  }
}
