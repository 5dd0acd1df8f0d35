import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct AutomergeMergeTests {
  static let d0 = "valid/seed-01/device-0/tags.automerge"
  static let d1 = "valid/seed-01/device-1/tags.automerge"
  static let expected = "valid/seed-01/merged/tags.device-0+device-1.automerge"

  @Test func mergeMatchesTheReference() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    for inputs in [[a, b], [b, a], [a, b, a]] {
      let result = try AutomergeMerge.merge(inputs)
      #expect(Array(result.bytes.prefix(inputs[0].count)) == inputs[0])
      let merged = try AutomergeFile.decode(result.bytes)
      #expect(ChangeListing.heads(merged.heads) == (try Fixture.text(Self.expected + ".heads")))
      #expect(
        ChangeListing.changes(merged.changes) == (try Fixture.text(Self.expected + ".changes")))
      #expect(result.heads == merged.heads)
      #expect(try AutomergeMerge.verify(result.bytes, inputs: inputs))
      // The appended chunks are in dependency order.
      var seen = Set(try AutomergeFile.decode(inputs[0]).changes.map(\.hash))
      for h in result.added {
        let c = try #require(merged.change(h))
        #expect(c.deps.allSatisfy { seen.contains($0) })
        seen.insert(h)
      }
    }
  }

  /// `mergeAndVerify` reads the output back from the decoded inputs and the appended
  /// chunks only: the same answer as `verify`, for outputs that hold the union and for
  /// outputs that do not.
  @Test func mergeAndVerifyAgreesWithVerify() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let inc = try Fixture.bytes("valid/seed-01/device-0/tags.incremental.automerge")
    let chg = try Fixture.bytes("valid/seed-01/device-0/tags.changes.automerge")
    for inputs in [[a, b], [b, a], [a, b, a], [[], a, b], [inc, b], [chg, a, b], [a]] {
      let (result, holds) = try AutomergeMerge.mergeAndVerify(inputs)
      #expect(result.bytes == (try AutomergeMerge.merge(inputs)).bytes)
      #expect(holds)
      #expect(try AutomergeMerge.verify(result.bytes, inputs: inputs))
      let decoded = try inputs.map { try AutomergeFile.decode($0, keepOps: false) }
      let merged = try AutomergeFile.decode(result.bytes, keepOps: false)
      let again = try AutomergeFile.decode(
        result.bytes, after: decoded[0], prefixLength: inputs[0].count)
      #expect(Set(again.changes.map(\.hash)) == Set(merged.changes.map(\.hash)))
      #expect(again.heads == merged.heads && again.opCount == merged.opCount)
      #expect(again.chunks.map(\.offset) == merged.chunks.map(\.offset))
      // Without its last appended chunk the output misses a change: both checks say so.
      guard let last = merged.chunks.last, !result.added.isEmpty else { continue }
      let short = Array(result.bytes[..<last.offset])
      #expect(!(try AutomergeMerge.verify(short, inputs: inputs, decoded: decoded)))
      #expect(!(try AutomergeMerge.verify(short, inputs: inputs)))
    }
  }

  @Test func mergeIsIdempotent() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let once = try AutomergeMerge.merge([a, b]).bytes
    #expect(try AutomergeMerge.merge([once, a, b]).bytes == once)
    #expect(try AutomergeMerge.merge([a, a]).bytes == a)
    #expect(try AutomergeMerge.merge([a]).bytes == a)
  }

  @Test func emptyFirstInputGivesTheUnionsChunks() throws {
    let a = try Fixture.bytes(Self.d0)
    let b = try Fixture.bytes(Self.d1)
    let result = try AutomergeMerge.merge([[], a, b])
    let merged = try AutomergeFile.decode(result.bytes)
    #expect(merged.chunks.allSatisfy { $0.type == .change })
    #expect(ChangeListing.changes(merged.changes) == (try Fixture.text(Self.expected + ".changes")))
    #expect(try AutomergeMerge.merge([[], []]).bytes.isEmpty)
  }

  @Test func duplicateSeqIsRefused() throws {
    let a = try AutomergeFile.decode(Fixture.bytes(Self.d0))
    let c1 = a.changes[0]
    let twin = Change(
      actors: c1.actors, seq: 1, startOp: 1, time: 1, message: "twin", deps: [], ops: [])
    #expect(throws: AutomergeMergeError.self) {
      try AutomergeMerge.merge([Fixture.bytes(Self.d0), twin.chunk])
    }
  }

  @Test func invalidInputIsNamed() throws {
    #expect(throws: AutomergeMergeError.self) {
      try AutomergeMerge.merge([Fixture.bytes(Self.d0), [0x85, 0x6f]])
    }
  }
}
