import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Platform
@testable import TestSupport

/// The read-back check of `mn export`, which streams the archive instead of loading it.
@Suite struct StreamingVerifyTests {
  /// One streamed pass over the finished file at `path`, checked against `expected`, as
  /// the export does when no second thread is available.
  static func verifyStreaming(path: String, expected: ArchiveManifest) throws {
    try ArchiveReader.readBack(
      path: AbsolutePath(path), fileSystem: LiveFileSystem(), limits: .standard, watermark: nil
    ).get().check(expected)
  }

  let hello = Array("hello\n".utf8)

  func manifest(_ files: [(String, [UInt8])]) throws -> ArchiveManifest {
    try ArchiveManifest.parse(manifestBytes(files))
  }

  func verify(_ tar: TarBuilder, expected: ArchiveManifest) throws {
    try verify(tar.archive, expected: expected)
  }

  func verify(_ bytes: [UInt8], expected: ArchiveManifest) throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("a.tar", bytes)
    try Self.verifyStreaming(path: scratch.path + "/a.tar", expected: expected)
  }

  @Test func acceptsWhatWasWritten() throws {
    var tar = TarBuilder()
    tar.add("Minuta/a.txt", hello)
    tar.add("Minuta/.mn-manifest.json", manifestBytes([("a.txt", hello)]))
    try verify(tar, expected: try manifest([("a.txt", hello)]))
  }

  @Test func refusesOtherContentAnotherManifestOrNone() throws {
    let expected = try manifest([("a.txt", hello)])
    var changed = TarBuilder()
    changed.add("Minuta/a.txt", Array("hellO\n".utf8))
    changed.add("Minuta/.mn-manifest.json", manifestBytes([("a.txt", hello)]))
    #expect(
      throws: ArchiveError.manifestMismatch(
        path: "a.txt",
        .sha256(
          expected: SHA256Digest.hexHash(hello), actual: SHA256Digest.hexHash(Array("hellO\n".utf8))
        ))
    ) { try verify(changed, expected: expected) }

    var other = TarBuilder()
    other.add("Minuta/b.txt", hello)
    other.add("Minuta/.mn-manifest.json", manifestBytes([("b.txt", hello)]))
    #expect(
      throws: ArchiveError.invalidManifest(
        reason: "the manifest read back differs from the one written")
    ) {
      try verify(other, expected: expected)
    }

    var none = TarBuilder()
    none.add("Minuta/a.txt", hello)
    #expect(throws: ArchiveError.missingManifest) { try verify(none, expected: expected) }

    var hostile = TarBuilder()
    hostile.add("/etc/passwd", hello)
    #expect(throws: ArchiveError.self) { try verify(hostile, expected: expected) }
  }

  @Test func aTruncatedArchiveIsRefused() throws {
    var tar = TarBuilder()
    tar.add("Minuta/a.txt", [UInt8](repeating: 7, count: 5000))
    tar.add(
      "Minuta/.mn-manifest.json", manifestBytes([("a.txt", [UInt8](repeating: 7, count: 5000))]))
    #expect(throws: ArchiveError.self) {
      try verify(
        Array(tar.archive.prefix(2048)),
        expected: try manifest([("a.txt", [UInt8](repeating: 7, count: 5000))]))
    }
  }

  @Test func aMissingFileIsAnIOError() throws {
    #expect {
      try Self.verifyStreaming(path: "/nonexistent/a.tar", expected: try manifest([]))
    } throws: { error in
      guard case .io(let e) = error as? ArchiveError else { return false }
      return e.errno == .noSuchFileOrDirectory
    }
  }
}
