import Foundation
import Testing

@testable import AutomergeCodec

/// `mn compact`, `mn doctor`'s finding of a document worth compacting, and `mn doc save`.
@Suite struct CompactTests {
  /// A chain of `n` changes by one actor, as appended change chunks (what merges leave).
  static func chain(_ n: Int, actor byte: UInt8) -> [Change] {
    let actor = ActorId([UInt8](repeating: byte, count: 16))
    var changes: [Change] = []
    for k in 0..<n {
      changes.append(
        Change(
          actors: [actor], seq: UInt64(k + 1), startOp: UInt64(k + 1), time: Int64(k),
          message: nil, deps: changes.last.map { [$0.hash] } ?? [],
          ops: [
            Op(
              object: .root, key: .map("key-\(k)"), insert: false, action: .set,
              value: .string("value \(k)"))
          ]))
    }
    return changes
  }

  @Test func compactRewritesAsOneDocumentChunkAfterABackup() throws {
    let sandbox = try Sandbox()
    let changes = Self.chain(12, actor: 0xab)
    let name = "records/2026/09.automerge"
    try sandbox.write("data/" + name, Data(changes.flatMap(\.chunk)))
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk))
    try sandbox.write("data/tags.automerge", Data(saved.bytes))  // already compact
    let root = sandbox.path("data")
    let before = try sandbox.read("data/" + name)

    let doctor = try sandbox.run(["--root", root, "doctor", "--json"])
    #expect(doctor.status == 1, "\(doctor.stderr)")
    #expect(doctor.stdout.contains("\"compactable\""), "\(doctor.stdout)")
    #expect(doctor.stdout.contains("mn compact records/2026/09.automerge"), "\(doctor.stdout)")

    let dry = try sandbox.run(["--root", root, "compact", "--dry-run"])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(
      dry.stdout.contains("\(name): would compact, \(before.count) -> \(saved.bytes.count) bytes"),
      "\(dry.stdout)")
    #expect(dry.stdout.contains("tags.automerge: already compact"), "\(dry.stdout)")
    #expect(try sandbox.read("data/" + name) == before)

    let run = try sandbox.run(["--root", root, "compact"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("\(name): compacted"), "\(run.stdout)")
    #expect(run.stderr.contains("backup written to"), "\(run.stderr)")
    let after = [UInt8](try sandbox.read("data/" + name))
    #expect(after == saved.bytes)
    let file = try AutomergeFile.decode(after)
    #expect(file.chunks.map(\.type) == [.document])
    #expect(Set(file.changes.map(\.hash)) == Set(changes.map(\.hash)))
    #expect(try sandbox.read("data/tags.automerge") == Data(saved.bytes))
    // The backup holds the bytes from before.
    let backups = try FileManager.default.contentsOfDirectory(
      atPath: sandbox.path(".local/state/minuta/backups"))
    #expect(backups.contains { $0.hasPrefix("compact") || $0.contains("compact") }, "\(backups)")

    let again = try sandbox.run(["--root", root, "doctor", "--json"])
    #expect(!again.stdout.contains("\"compactable\""), "\(again.stdout)")
    let rerun = try sandbox.run(["--root", root, "compact"])
    #expect(rerun.status == 0 && !rerun.stdout.contains("compacted"), "\(rerun.stdout)")
  }

  @Test func anInvalidDocumentIsLeftAlone() throws {
    let sandbox = try Sandbox()
    let changes = Self.chain(6, actor: 0x11)
    var bytes = changes.flatMap(\.chunk)
    bytes[bytes.count - 3] ^= 0xff  // the last chunk's checksum no longer matches
    try sandbox.write("data/records/2026/09.automerge", Data(bytes))
    let run = try sandbox.run(["--root", sandbox.path("data"), "compact"])
    #expect(run.status == 65, "\(run.stderr)")
    #expect(run.stderr.contains("not compacted"), "\(run.stderr)")
    #expect([UInt8](try sandbox.read("data/records/2026/09.automerge")) == bytes)
  }

  @Test func docSaveWritesOneDocumentChunkOutsideTheDataFolderOnly() throws {
    let sandbox = try Sandbox()
    let changes = Self.chain(5, actor: 0x22)
    try sandbox.write("in.automerge", Data(changes.flatMap(\.chunk)))
    try sandbox.write("data/tags.automerge", Data(changes.flatMap(\.chunk)))
    let out = sandbox.path("out.automerge")
    let run = try sandbox.run(["doc", "save", sandbox.path("in.automerge"), "-o", out])
    #expect(run.status == 0, "\(run.stderr)")
    let file = try AutomergeFile.decode([UInt8](try sandbox.read("out.automerge")))
    #expect(file.chunks.map(\.type) == [.document])
    #expect(Set(file.changes.map(\.hash)) == Set(changes.map(\.hash)))

    let inside = try sandbox.run([
      "--root", sandbox.path("data"), "doc", "save", sandbox.path("in.automerge"), "-o",
      sandbox.path("data/records/x.automerge"),
    ])
    #expect(inside.status == 73, "\(inside.stderr)")
    #expect(inside.stderr.contains("inside the data folder"), "\(inside.stderr)")
    #expect(!sandbox.exists("data/records/x.automerge"))
  }

  /// A valid file whose changes one document chunk cannot hold (the fuzzer's deletion with
  /// a value): `mn doc check` accepts it, `mn doc save` refuses it in those words (not as
  /// an invalid file) and writes nothing, and `mn compact` leaves it as it is.
  @Test func aFileADocumentCannotHoldIsRefusedAsSuch() throws {
    let sandbox = try Sandbox()
    let bytes = try Data(
      contentsOf: Sandbox.packageRoot.appendingPathComponent(
        "Tests/Fixtures/unsaveable/deletion-with-value.automerge"))
    try sandbox.write("in.automerge", bytes)
    try sandbox.write("data/records/2026/09.automerge", bytes)
    #expect(try sandbox.run(["doc", "check", sandbox.path("in.automerge")]).status == 0)
    let save = try sandbox.run([
      "doc", "save", sandbox.path("in.automerge"), "-o", sandbox.path("out.automerge"),
    ])
    #expect(save.status == 65, "\(save.stderr)")
    #expect(
      save.stderr.contains(
        "cannot save the document: op 314@486a538f2996ca5524626065a2ed3f84 is a deletion with a "
          + "value or flags, which a document cannot store"), "\(save.stderr)")
    #expect(!save.stderr.contains("not a valid"), "\(save.stderr)")
    #expect(!sandbox.exists("out.automerge"))
    let compact = try sandbox.run(["--root", sandbox.path("data"), "compact"])
    #expect(compact.status == 65, "\(compact.stderr)")
    #expect(
      compact.stderr.contains(
        "not compacted: op 314@486a538f2996ca5524626065a2ed3f84 is a deletion"),
      "\(compact.stderr)")
    #expect(try sandbox.read("data/records/2026/09.automerge") == bytes)
  }
}
