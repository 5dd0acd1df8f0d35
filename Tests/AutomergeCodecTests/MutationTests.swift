import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// Hostile input never crashes or hangs: every truncation of small files and seeded random
/// bit flips of larger ones end in a typed error or a successful decode.
@Suite struct MutationTests {
  static let small = [
    "valid/upstream/exemplar", "valid/upstream/two_change_chunks.automerge",
    "valid/upstream/two_change_chunks_compressed.automerge",
    "valid/seed-01/device-0/tags.automerge",
    "valid/seed-01/device-0/tags.changes.automerge",
  ]
  static let larger = [
    "valid/seed-01/device-0/tags.incremental.automerge",
    "valid/seed-01/device-0/records/2026/09.automerge",
    "valid/seed-01/device-0/tags.changes.automerge",
  ]

  static func survives(_ bytes: [UInt8]) -> Bool {
    // The archive manifest's quick summary reads the same hostile bytes.
    do {
      _ = try QuickSummary.summarize(bytes)
    } catch is AutomergeDecodeError {
    } catch {
      return false
    }
    // So does `doc show`'s column path, which reads a document's columns before its
    // changes are verified; where the file decodes, it agrees with the general path.
    let direct: JSONValue?
    do {
      direct = try Materializer.materializeDocumentChunk(bytes, typed: true)
    } catch is AutomergeDecodeError {
      direct = nil
    } catch {
      return false
    }
    do {
      let file = try AutomergeFile.decode(bytes)
      if let direct, let general = try? Materializer.materialize(file, typed: true) {
        return direct.sortedKeys == general.sortedKeys
      }
      return true
    } catch is AutomergeDecodeError {
      return true
    } catch {
      return false
    }
  }

  @Test(arguments: small) func everyTruncation(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    for n in 0..<bytes.count {
      let cut = Array(bytes[0..<n])
      #expect(Self.survives(cut), "\(rel) truncated to \(n) bytes")
      if n > 0 {
        // Not a whole number of chunks: must be rejected (or be a shorter valid file).
        _ = cut
      }
    }
  }

  @Test(arguments: larger) func randomBitFlips(_ rel: String) throws {
    let bytes = try Fixture.bytes(rel)
    let seed: UInt64 = 0xA0_7013_E26E ^ UInt64(bytes.count)
    var rng = SplitMix64(state: seed)
    for round in 0..<400 {
      var m = bytes
      let flips = 1 + Int(rng.next() % 4)
      for _ in 0..<flips {
        let i = Int(rng.next() % UInt64(m.count))
        m[i] ^= UInt8(1 << (rng.next() % 8))
      }
      #expect(Self.survives(m), "\(rel): round \(round), seed \(seed)")
    }
  }

  /// Flips in a document chunk's body with its checksum fixed up, so that the document
  /// header and column parsers (and the quick summary's) see hostile bytes.
  @Test func documentBodyMutationsWithValidChecksums() throws {
    let doc = try Fixture.bytes("valid/seed-01/device-0/records/2026/09.automerge")
    let info = try #require(try AutomergeFile.decode(doc).chunks.first)
    let bodyStart = info.offset + info.length - info.bodyLength
    let seed: UInt64 = 11
    var rng = SplitMix64(state: seed)
    for round in 0..<400 {
      var m = doc
      let i = bodyStart + Int(rng.next() % UInt64(info.bodyLength))
      m[i] = UInt8(truncatingIfNeeded: rng.next())
      let hash = SHA256.hash(m, (info.offset + 8)..<(info.offset + info.length)).bytes
      for k in 0..<4 { m[info.offset + 4 + k] = hash[k] }
      #expect(Self.survives(m), "document byte \(i), round \(round), seed \(seed)")
    }
  }

  /// Flips that keep the checksum valid: mutate the body of a change chunk and fix up the
  /// header, so that the column decoders (not just the checksum) see hostile bytes.
  @Test func bodyMutationsWithValidChecksums() throws {
    let file = try AutomergeFile.decode(Fixture.bytes("valid/seed-01/device-0/tags.automerge"))
    let seed: UInt64 = 7
    var rng = SplitMix64(state: seed)
    for c in file.changes {
      let header = c.chunk.count - bodyLength(c.chunk)
      for round in 0..<60 {
        var body = Array(c.chunk[header...])
        let i = Int(rng.next() % UInt64(body.count))
        body[i] = UInt8(truncatingIfNeeded: rng.next())
        let (chunk, _) = ChangeEncoder.wrap(type: 1, body: body)
        #expect(Self.survives(chunk), "change \(c.hash) round \(round) seed \(seed)")
        if let doc = try? Fixture.bytes("valid/seed-01/device-0/tags.automerge") {
          #expect(Self.survives(doc + chunk))
        }
      }
    }
  }

  func bodyLength(_ chunk: [UInt8]) -> Int {
    var n = 0
    var shift = 0
    var i = 9
    while true {
      n |= Int(chunk[i] & 0x7f) << shift
      shift += 7
      i += 1
      if chunk[i - 1] & 0x80 == 0 { break }
    }
    return n
  }
}
