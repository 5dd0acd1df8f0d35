import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct AutomergeFileVerificationTests {
  /// Every file of `Tests/Fixtures`, whatever it holds.
  static let corpus = [
    "conflicts", "diff", "malformed", "migrate", "salvage", "unsaveable", "valid",
  ]
  .flatMap { Fixture.files($0) }

  /// The verdict of `verify`, or of the full decode summarised: the facts, or the error.
  static func outcome(_ body: () throws -> AutomergeFile.Verification) -> String {
    do {
      return "\(try body())"
    } catch {
      return "error: \(error)"
    }
  }

  /// `verify` establishes what the full decode does (the same hashes and heads, counts and
  /// errors) on every fixture, one document chunk or not.
  @Test func agreesWithTheFullDecode() throws {
    var documents = 0
    for rel in Self.corpus {
      let bytes = try Fixture.bytes(rel)
      let full = Self.outcome {
        AutomergeFile.Verification(try AutomergeFile.decode(bytes, keepOps: false))
      }
      #expect(Self.outcome { try AutomergeFile.verify(bytes) } == full, "\(rel)")
      if let file = try? AutomergeFile.decode(bytes), file.chunks.map(\.type) == [.document] {
        documents += 1
        let facts = try AutomergeFile.verify(bytes)
        #expect(facts.heads == file.heads && facts.changeCount == file.changes.count, "\(rel)")
      }
    }
    // The one-document-chunk path is the one under test: the corpus must reach it.
    #expect(documents >= 10)
  }

  /// A damaged document chunk fails `verify` with the error the full decode gives: a byte
  /// changed in each eighth of every one-chunk document of the corpus.
  @Test func damagedDocumentsFailAlike() throws {
    for rel in Self.corpus {
      let bytes = try Fixture.bytes(rel)
      guard let file = try? AutomergeFile.decode(bytes), file.chunks.map(\.type) == [.document]
      else { continue }
      for eighth in 1..<8 {
        var damaged = bytes
        damaged[bytes.count * eighth / 8] ^= 0x41
        let full = Self.outcome {
          AutomergeFile.Verification(try AutomergeFile.decode(damaged, keepOps: false))
        }
        #expect(Self.outcome { try AutomergeFile.verify(damaged) } == full, "\(rel) \(eighth)")
      }
    }
  }
}
