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

  /// Whether the file's first chunk is a document chunk (the path under test).
  static func startsWithDocument(_ bytes: [UInt8]) -> Bool {
    (try? AutomergeFile.decode(bytes))?.chunks.first?.type == .document
  }

  /// `verify` establishes what the full decode does (the same hashes and heads, counts and
  /// errors) on every fixture, whatever its chunks.
  @Test func agreesWithTheFullDecode() throws {
    var documents = 0
    var documentsThenChanges = 0
    for rel in Self.corpus {
      let bytes = try Fixture.bytes(rel)
      let full = Self.outcome {
        AutomergeFile.Verification(try AutomergeFile.decode(bytes, keepOps: false))
      }
      #expect(Self.outcome { try AutomergeFile.verify(bytes) } == full, "\(rel)")
      if let file = try? AutomergeFile.decode(bytes), file.chunks.first?.type == .document {
        documents += 1
        if file.chunks.count > 1 { documentsThenChanges += 1 }
        let facts = try AutomergeFile.verify(bytes)
        #expect(facts.heads == file.heads && facts.changeCount == file.changes.count, "\(rel)")
      }
    }
    // The corpus must reach both shapes of the document path.
    #expect(documents >= 10 && documentsThenChanges >= 3)
  }

  /// A document followed by another file's chunks (its changes repeated, colliding, or
  /// orphaned) is loaded by `verify` as by the full decode.
  @Test func documentsWithOtherChunksAgree() throws {
    let valid = Fixture.files("valid").filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".chunks") }
    let inputs = try valid.map { try Fixture.bytes($0) }
    let documents = inputs.filter(Self.startsWithDocument).prefix(12)
    for document in documents {
      for other in inputs.prefix(24) {
        let bytes = document + other
        let full = Self.outcome {
          AutomergeFile.Verification(try AutomergeFile.decode(bytes, keepOps: false))
        }
        #expect(Self.outcome { try AutomergeFile.verify(bytes) } == full)
      }
    }
  }

  /// A damaged file fails `verify` with the error the full decode gives: a byte changed in
  /// each eighth of every file of the corpus that starts with a document chunk.
  @Test func damagedDocumentsFailAlike() throws {
    for rel in Self.corpus {
      let bytes = try Fixture.bytes(rel)
      guard Self.startsWithDocument(bytes) else { continue }
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
