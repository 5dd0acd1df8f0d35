import Foundation
import Testing

@testable import AutomergeCodec
@testable import TestSupport

/// One chunk of an oracle listing (`Fixtures/salvage/*.chunks`): its bytes and its changes.
struct ListedChunk {
  var offset: Int
  var length: Int
  var type: Int
  var hashes: Set<String>
  var end: Int { offset + length }
}

/// The salvage corpus: six oracle files and their listings (see `Fixtures/salvage/README.md`).
enum SalvageCorpus {
  static let names = [
    "seed-04-09.changes", "seed-04-09.incremental", "seed-07-09.changes",
    "seed-07-09.incremental", "seed-08-09.changes", "seed-08-09.incremental",
  ]

  /// A file's bytes and its chunk listing, from the oracle's `.chunks` and `.changes` files.
  static func file(_ name: String) throws -> (bytes: [UInt8], chunks: [ListedChunk]) {
    let bytes = try Fixture.bytes("salvage/\(name).automerge")
    let listing = try Fixture.text("salvage/\(name).automerge.chunks")
    let all = Set(
      try Fixture.text("salvage/\(name).automerge.changes").split(separator: "\n").compactMap {
        $0.split(separator: " ").first.map(String.init)
      })
    var chunks: [ListedChunk] = []
    for line in listing.split(separator: "\n") where !line.hasPrefix("#") {
      var offset = 0
      var type = 0
      var hash: String?
      for field in line.split(separator: " ") {
        if field.hasPrefix("@") { offset = Int(field.dropFirst()) ?? -1 }
        if field.hasPrefix("type=") { type = Int(field.dropFirst(5)) ?? -1 }
        if field.hasPrefix("hash=") { hash = String(field.dropFirst(5)) }
      }
      chunks.append(
        ListedChunk(offset: offset, length: 0, type: type, hashes: hash.map { [$0] } ?? []))
    }
    for i in chunks.indices {
      chunks[i].length =
        (i + 1 < chunks.count ? chunks[i + 1].offset : bytes.count) - chunks[i].offset
    }
    // A document chunk holds the file's changes that no change chunk holds.
    let inChangeChunks = chunks.reduce(into: Set<String>()) { $0.formUnion($1.hashes) }
    for i in chunks.indices where chunks[i].type == 0 {
      chunks[i].hashes = all.subtracting(inChangeChunks)
    }
    return (bytes, chunks)
  }

  /// All six files one after another: 83 chunks of the three types, about 30 KB.
  static func concatenated() throws -> (bytes: [UInt8], chunks: [ListedChunk]) {
    var bytes: [UInt8] = []
    var chunks: [ListedChunk] = []
    for name in names {
      let (b, c) = try file(name)
      chunks += c.map {
        var k = $0; k.offset += bytes.count; return k
      }
      bytes += b
    }
    return (bytes, chunks)
  }

  /// The changes of the chunks that `isIntact` keeps.
  static func expected(_ chunks: [ListedChunk], _ isIntact: (ListedChunk) -> Bool) -> Set<String> {
    chunks.filter(isIntact).reduce(into: Set<String>()) { $0.formUnion($1.hashes) }
  }
}

@Suite struct SalvageTests {
  func recovered(_ bytes: [UInt8]) -> (hashes: Set<String>, salvaged: SalvagedFile) {
    let salvaged = Salvage.salvage(bytes)
    return (Set(salvaged.changes.map(\.hash.description)), salvaged)
  }

  /// Checks one damaged file against the chunks that stayed intact; returns the counts.
  @discardableResult
  func check(
    _ damaged: [UInt8], _ chunks: [ListedChunk], _ what: String,
    intact isIntact: (ListedChunk) -> Bool
  ) -> (recovered: Int, intact: Int) {
    let expected = SalvageCorpus.expected(chunks, isIntact)
    let (got, salvaged) = recovered(damaged)
    #expect(got == expected, "\(what): recovered \(got.count), intact \(expected.count)")
    // Every byte is in a verified chunk or in a skipped range, never both.
    let intactBytes = chunks.filter(isIntact).reduce(0) { $0 + $1.length }
    #expect(
      salvaged.skippedBytes == damaged.count - intactBytes, "\(what): skipped bytes")
    #expect(salvaged.chunks.count == chunks.count(where: isIntact), "\(what): chunks")
    return (got.count, expected.count)
  }

  @Test func anIntactFileIsRecoveredWholeWithNothingSkipped() throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    #expect(chunks.count > 80)
    #expect(Set(chunks.map(\.type)) == [0, 1, 2])
    let (got, salvaged) = recovered(bytes)
    #expect(got == SalvageCorpus.expected(chunks) { _ in true })
    #expect(salvaged.skipped.isEmpty)
    for name in SalvageCorpus.names {
      let (b, _) = try SalvageCorpus.file(name)
      #expect(
        Set(Salvage.salvage(b).changes.map(\.hash))
          == Set(try AutomergeFile.decode(b).changes.map(\.hash)), "\(name)")
    }
  }

  @Test func truncationAtEveryChunkBoundaryKeepsEveryChunkBefore() throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    var totals = (0, 0)
    for chunk in chunks {
      let cut = Array(bytes[..<chunk.offset])
      let counts = check(cut, chunks, "cut at \(chunk.offset)") { $0.end <= chunk.offset }
      totals = (totals.0 + counts.recovered, totals.1 + counts.intact)
      #expect(Salvage.salvage(cut).skipped.isEmpty, "a cut at a boundary skips nothing")
    }
    print(
      "salvage: truncation at \(chunks.count) chunk boundaries: recovered \(totals.0) of \(totals.1) intact"
    )
  }

  @Test func truncationInsideEveryChunkKeepsEveryChunkBefore() throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    var totals = (0, 0)
    for chunk in chunks {
      for cut in [
        chunk.offset + 1, chunk.offset + 9, chunk.offset + chunk.length / 2, chunk.end - 1,
      ] {
        let counts = check(Array(bytes[..<cut]), chunks, "cut at \(cut)") { $0.end <= cut }
        totals = (totals.0 + counts.recovered, totals.1 + counts.intact)
        let skipped = Salvage.salvage(Array(bytes[..<cut])).skipped
        #expect(
          skipped.map { $0.offset } == [chunk.offset]
            && skipped.map { $0.length } == [cut - chunk.offset])
      }
    }
    print(
      "salvage: truncation inside \(chunks.count) chunks (4 cuts each): recovered \(totals.0) of \(totals.1) intact"
    )
  }

  @Test func aCutInTheMiddleOfACompressedChunkKeepsWhatPrecedes() throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    let compressed = chunks.filter { $0.type == 2 }
    #expect(compressed.count >= 20)
    var totals = (0, 0)
    for chunk in compressed {
      let cut = chunk.offset + chunk.length / 2
      let counts = check(Array(bytes[..<cut]), chunks, "cut at \(cut)") { $0.end <= cut }
      totals = (totals.0 + counts.recovered, totals.1 + counts.intact)
      // With the rest of the file after a gap, everything but that chunk comes back.
      let spliced = Array(bytes[..<cut]) + Array(bytes[chunk.end...])
      let shifted = chunks.map { c -> ListedChunk in
        var k = c
        if c.offset >= chunk.end { k.offset -= chunk.end - cut }
        return k
      }
      check(spliced, shifted, "half of the chunk at \(chunk.offset)") { $0.offset != chunk.offset }
    }
    print(
      "salvage: cut inside \(compressed.count) compressed chunks: recovered \(totals.0) of \(totals.1) intact"
    )
  }

  @Test(arguments: [false, true])
  func aZeroedOrRandom4KiBRangeLosesOnlyTheChunksItTouches(random: Bool) throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    var rng = SplitMix64(state: random ? 0x5eed_4b : 0x2e40)
    var totals = (0, 0)
    for _ in 0..<24 {
      let start = Int(rng.next() % UInt64(bytes.count - 4096))
      var damaged = bytes
      for i in start..<(start + 4096) {
        damaged[i] = random ? UInt8(truncatingIfNeeded: rng.next()) : 0
      }
      let range = start..<(start + 4096)
      let counts = check(damaged, chunks, "\(random ? "random" : "zeroed") at \(start)") {
        !range.overlaps($0.offset..<$0.end)
      }
      totals = (totals.0 + counts.recovered, totals.1 + counts.intact)
    }
    print(
      "salvage: \(random ? "random" : "zeroed") 4 KiB range (24 places): recovered \(totals.0) of \(totals.1) intact"
    )
  }

  @Test func oneFlippedBitLosesOnlyItsChunk() throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    var rng = SplitMix64(state: 0xb17)
    var totals = (0, 0)
    for chunk in chunks {
      // The last byte of a DEFLATE stream may end in padding bits that inflation ignores:
      // a flip there leaves a compressed chunk whose checksum still holds.
      let span = chunk.type == 2 ? chunk.length - 1 : chunk.length
      for _ in 0..<3 {
        let at = chunk.offset + Int(rng.next() % UInt64(span))
        var damaged = bytes
        damaged[at] ^= UInt8(1 << (rng.next() % 8))
        let counts = check(damaged, chunks, "bit flipped at \(at)") { $0.offset != chunk.offset }
        totals = (totals.0 + counts.recovered, totals.1 + counts.intact)
      }
    }
    print(
      "salvage: one flipped bit in each of \(chunks.count) chunks (3 places each): recovered \(totals.0) of \(totals.1) intact"
    )
  }

  @Test func twoFilesWithGarbageBetweenThemAreBothRecovered() throws {
    var rng = SplitMix64(state: 0x6a7b)
    var totals = (0, 0)
    for (a, b) in zip(SalvageCorpus.names, SalvageCorpus.names.reversed()) {
      let first = try SalvageCorpus.file(a)
      let second = try SalvageCorpus.file(b)
      var garbage = (0..<(1000 + Int(rng.next() % 3000))).map { _ in
        UInt8(truncatingIfNeeded: rng.next())
      }
      garbage[0] = 0x85  // starts like a magic, and goes wrong at once
      let joined = first.bytes + garbage + second.bytes
      let chunks =
        first.chunks
        + second.chunks.map {
          var k = $0
          k.offset += first.bytes.count + garbage.count
          return k
        }
      let counts = check(joined, chunks, "\(a) + garbage + \(b)") { _ in true }
      totals = (totals.0 + counts.recovered, totals.1 + counts.intact)
      let skipped = Salvage.salvage(joined).skipped
      #expect(skipped.map { $0.offset } == [first.bytes.count])
      #expect(skipped.map { $0.length } == [garbage.count])
    }
    print(
      "salvage: two files with garbage between them (6 pairs): recovered \(totals.0) of \(totals.1) intact"
    )
  }

  @Test func aChunkThatFailsItsCheckIsNeverDecoded() throws {
    // A change chunk whose checksum is wrong but whose body would decode: skipped as damaged.
    let (bytes, chunks) = try SalvageCorpus.file("seed-04-09.incremental")
    let change = try #require(chunks.first { $0.type == 1 })
    var damaged = bytes
    damaged[change.offset + 4] ^= 0xff
    let salvaged = Salvage.salvage(damaged)
    #expect(!salvaged.changes.contains { change.hashes.contains($0.hash.description) })
    let skip = try #require(salvaged.skipped.first)
    #expect(skip.offset == change.offset && skip.length == change.length)
    guard case .failedCheck(.checksumMismatch) = skip.problem else {
      Issue.record("\(skip.problem)")
      return
    }
  }

  func elapsed(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let d = clock.measure(body)
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
  }

  @Test func aFileOfOnlyMagicsIsOneSkippedRange() throws {
    var bytes = [UInt8](repeating: 0, count: 16 << 20)
    bytes.withUnsafeMutableBufferPointer { b in
      for i in stride(from: 0, to: b.count, by: 4) {
        b[i] = 0x85
        b[i + 1] = 0x6f
        b[i + 2] = 0x4a
        b[i + 3] = 0x83
      }
    }
    var salvaged: SalvagedFile?
    let seconds = elapsed { salvaged = Salvage.salvage(bytes) }
    #expect(salvaged?.changes.isEmpty == true)
    #expect(salvaged?.skipped.count == 1 && salvaged?.skippedBytes == bytes.count)
    #expect(seconds < 10, "16 MiB of magics took \(seconds) s")
  }

  @Test func chunksClaimingHugeLengthsAreSkippedAtOnce() throws {
    // magic, checksum, type 1, length 2^40: a header whose body runs past the end.
    let header: [UInt8] = Chunk.magic + [1, 2, 3, 4, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]
    let (valid, chunks) = try SalvageCorpus.file("seed-04-09.changes")
    let bytes = [UInt8](repeatElement(header, count: 1 << 20).joined()) + valid
    var salvaged: SalvagedFile?
    let seconds = elapsed { salvaged = Salvage.salvage(bytes) }
    #expect(
      Set(salvaged?.changes.map(\.hash.description) ?? [])
        == SalvageCorpus.expected(chunks) { _ in true })
    #expect(salvaged?.skipped.count == 1)
    #expect(seconds < 10, "took \(seconds) s")
  }

  /// 50 MB of near-chunks: valid headers, each claiming a body to the end of the file, with
  /// wrong checksums. Verifying each would hash 25 MB on average (about 10^14 bytes in all);
  /// the work cap keeps it linear, and the real chunks at the end are still found.
  @Test func fiftyMegabytesOfNearChunksTakeLinearTime() throws {
    let (valid, chunks) = try SalvageCorpus.file("seed-08-09.changes")
    let unit = 128
    let count = 50_000_000 / unit
    var bytes = [UInt8](repeating: 0x41, count: count * unit)
    for k in 0..<count {
      let at = k * unit
      let remaining = bytes.count - at - 14 + valid.count
      var w = ByteWriter()
      w.uleb(UInt64(remaining))
      let type: UInt8 = k % 3 == 0 ? 2 : k % 3 == 1 ? 1 : 0
      let header = Chunk.magic + [0xde, 0xad, 0xbe, 0xef, type] + w.bytes
      for (i, b) in header.enumerated() { bytes[at + i] = b }
    }
    bytes += valid
    var salvaged: SalvagedFile?
    let seconds = elapsed { salvaged = Salvage.salvage(bytes) }
    #expect(
      Set(salvaged?.changes.map(\.hash.description) ?? [])
        == SalvageCorpus.expected(chunks) { _ in true })
    #expect(salvaged?.skipped.count == 1)
    #expect(seconds < 30, "50 MB of near-chunks took \(seconds) s")
    print("salvage: 50 MB of near-chunks in \(seconds) s")
  }

  @Test func theWorkCapSkipsWhatWouldExceedItAndThenGrowsBack() throws {
    let (bytes, chunks) = try SalvageCorpus.concatenated()
    // No allowance at the start: the damaged first chunk is skipped unverified; the
    // allowance then grows with every byte walked, and the intact chunks all verify.
    var damaged = bytes
    let victim = chunks[0]
    damaged[victim.offset + victim.length / 2] ^= 1
    let salvaged = Salvage.salvage(damaged, workLimit: 0)
    #expect(
      Set(salvaged.changes.map(\.hash.description))
        == SalvageCorpus.expected(chunks) { $0.offset != victim.offset })
    #expect(salvaged.skipped.first?.problem == .workLimit)
    #expect(Salvage.salvage(damaged).skipped.first?.problem != .workLimit)
  }
}
