import Archive
import AutomergeCodec
import Foundation
import Platform
import Testing

@testable import TestSupport

@Suite struct ArchiveBasicsTests {
  @Test func sha256KnownVectors() {
    #expect(
      SHA256Digest.hexHash([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
    #expect(
      SHA256Digest.hexHash(Array("abc".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let long = Array(repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(
      SHA256Digest.hexHash(long)
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func sha256StreamingMatchesOneShot() {
    var random = SplitMix64(state: 1)
    let bytes = random.bytes(100_003)
    let digest = SHA256Digest()
    var offset = 0
    while offset < bytes.count {
      let n = min(4093, bytes.count - offset)
      digest.update(Array(bytes[offset..<offset + n]))
      offset += n
    }
    #expect(digest.finalize() == SHA256Digest.hash(bytes))
    #expect(digest.finalize().isEmpty)
  }

  @Test(arguments: [
    (Int64(0), "1970-01-01T00:00:00Z", "19700101-000000"),
    (1_788_709_512, "2026-09-06T15:45:12Z", "20260906-154512"),
    (951_782_400, "2000-02-29T00:00:00Z", "20000229-000000"),
    (-1, "1969-12-31T23:59:59Z", "19691231-235959"),
    (253_402_300_799, "9999-12-31T23:59:59Z", "99991231-235959"),
  ])
  func utcDateTimes(seconds: Int64, iso: String, compact: String) {
    let time = UTCDateTime(secondsSinceEpoch: seconds)
    #expect(time.iso8601 == iso)
    #expect(time.compact == compact)
  }

  @Test func manifestRoundTripAndShape() throws {
    let manifest = ArchiveManifest(
      version: "1.0", created: "2026-09-06T15:45:12Z", source: "/data",
      files: [
        ArchiveManifest.File(path: "records/2026/08.automerge", kind: .placeholder),
        ArchiveManifest.File(
          path: "tags.automerge", kind: .document, size: 3,
          sha256: String(repeating: "a", count: 64),
          changes: 2, heads: ["00ff"]),
      ])
    #expect(try ArchiveManifest.parse(manifest.encoded) == manifest)
    let text = String(decoding: manifest.encoded, as: UTF8.self)
    let keys = ["\"tool\"", "\"version\"", "\"created\"", "\"source\"", "\"files\""]
    let positions = keys.compactMap { text.range(of: $0)?.lowerBound }
    #expect(positions.count == keys.count && positions == positions.sorted())
    #expect(text.hasSuffix("}\n"))
    let parsed = try JSONSerialization.jsonObject(with: Data(manifest.encoded)) as? [String: Any]
    #expect(parsed?["tool"] as? String == "mn")
  }

  @Test func atomicFileWritesReplacesAndKeepsMode() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let path = scratch.path + "/doc.automerge"
    try AtomicFile.write(
      [1, 2], to: AbsolutePath(path), fileSystem: LiveFileSystem(), random: { "aaaaaa" })
    #expect(scratch.read("doc.automerge") == [1, 2])
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    try AtomicFile.write(
      [3], to: AbsolutePath(path), fileSystem: LiveFileSystem(), random: { "bbbbbb" })
    #expect(scratch.read("doc.automerge") == [3])
    #expect(
      (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
    #expect(scratch.listing() == ["doc.automerge"])
  }

  @Test func atomicFileRetriesATakenTemporaryName() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write(".doc.mn-000001.nosync", "someone else's")
    let suffix = SuffixCounter()
    try AtomicFile.write(
      [9], to: AbsolutePath(scratch.path).appending("doc"), fileSystem: LiveFileSystem(),
      random: { suffix() })
    #expect(scratch.read("doc") == [9])
    #expect(scratch.read(".doc.mn-000001.nosync") == Array("someone else's".utf8))
    #expect(AtomicFile.isTemporaryName(".doc.mn-000001.nosync"))
    #expect(!AtomicFile.isTemporaryName("doc.nosync"))
  }

  @Test(arguments: [
    FaultyFileSystem.Operation.write, .sync, .close, .setPermissions, .rename,
  ])
  func atomicFileFailuresLeaveTheOldFileAndNoTemporary(operation: FaultyFileSystem.Operation) throws
  {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("doc", "old")
    let fs = FaultyFileSystem(failing: operation, onCall: 1, with: .noSpace)
    #expect(throws: FileSystemError.self) {
      try AtomicFile.write(
        Array("new".utf8), to: AbsolutePath(scratch.path).appending("doc"), fileSystem: fs,
        random: { "cccccc" })
    }
    #expect(scratch.read("doc") == Array("old".utf8))
    #expect(scratch.listing() == ["doc"])
  }
}
