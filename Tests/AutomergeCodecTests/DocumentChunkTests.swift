import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct DocumentChunkTests {
  /// §12.4: the exemplar's one change regenerates to exactly this 343-byte chunk.
  static let exemplarChange = hex(
    """
    856f4a833df6f94601cc0200104cd4253650bc4454ad8aa023db3e10f201010000000c010602061106130915
    4c34034205561b57890170047102730200020a00000900020a02000900030900000900027e0003080100097e
    057469746c65056e6f746573000a770974696d657374616d70086c6f636174696f6e07636f756e7465720369
    6e740475696e7402667005627974657304626f6f6c0974696d657374616d70020a097e010413017eb6050003
    467b364636463602467759e6021814a301850147026948656c6c6f20f09f87acf09f87a7f09f91a8e2808df0
    9f91a8e2808df09f91a7e2808df09f91a6f09f9880f09f87acf09f87a7f09f91a8e2808df09f91a8e2808df0
    9f91a7e2808df09f91a6f09f9880fd81b0d07c68747470733a2f2f6175746f6d657267652e6f72672f057cff
    ffffffffffffffff01cd067856fb210940856f4a83c8b88ff7d36514007f017f007f0d
    """)

  @Test func exemplar() throws {
    let file = try AutomergeFile.decode(Fixture.bytes("valid/upstream/exemplar"))
    #expect(file.chunks.map(\.type) == [.document])
    #expect(file.changes.count == 1)
    let c = file.changes[0]
    #expect(c.chunk == Self.exemplarChange)
    #expect(
      c.hash.description == "3df6f946d47c57c7fa84fccc3f72c2301c94d6c7d3a79bb6267c315b3d2d364c")
    #expect(c.seq == 1 && c.startOp == 1 && c.time == 0 && c.message == nil && c.actors.count == 1)
    #expect(c.ops.count == 21)
    // Op 21 (the second timestamp) has pred [13@author].
    #expect(c.ops[20].pred == [OpId(counter: 13, actor: 0)])
    #expect(file.opCount == 21)
    // The regenerated change also decodes as a change chunk, to itself.
    let again = try AutomergeFile.decode(c.chunk)
    #expect(again.changes[0].ops == c.ops)
  }

  /// Automerge 0.6.1 (the app's) opens a document whose mark end comes before its begin,
  /// which 0.11 refuses: mn opens it as 0.6.1 does, and says that the newer one refuses it.
  @Test func zeroWidthMarkOpensAsInAutomerge06() throws {
    let rel = "valid/upstream/broken_zero_width_mark.automerge"
    let file = try AutomergeFile.decode(Fixture.bytes(rel))
    #expect(ChangeListing.heads(file.heads) == (try Fixture.text(rel + ".heads")))
    #expect(ChangeListing.changes(file.changes) == (try Fixture.text(rel + ".changes")))
    #expect(file.refusedByNewerAutomerge.count == 1)
    #expect(file.refusedByNewerAutomerge.first?.contains("occurs before its mark begin") == true)
    // Every change still re-encodes to its own bytes.
    for c in file.changes {
      let (chunk, hash) = c.encoded()
      #expect(chunk == c.chunk && hash == c.hash)
    }
    // A document both versions open carries no such note.
    #expect(
      try AutomergeFile.decode(Fixture.bytes("valid/upstream/exemplar")).refusedByNewerAutomerge
        .isEmpty)
  }

  @Test func headsMismatchIsRejected() throws {
    #expect(throws: AutomergeDecodeError.self) {
      try AutomergeFile.decode(Fixture.bytes("malformed/incorrect_max_op.automerge"))
    }
  }

  @Test(arguments: Fixture.files("malformed"))
  func malformedIsRejected(_ rel: String) throws {
    #expect(throws: AutomergeDecodeError.self) { try AutomergeFile.decode(Fixture.bytes(rel)) }
  }
}
