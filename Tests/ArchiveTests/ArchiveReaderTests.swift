import Archive
import AutomergeCodec
import Foundation
import Platform
import Testing

@testable import TestSupport

@Suite struct ArchiveReaderTests {
  let hello = Array("hello\n".utf8)

  /// A well-formed tar with a manifest, as a base for tampering.
  func goodTar() -> TarBuilder {
    var tar = TarBuilder()
    tar.add("Minuta/", type: .directory, mode: 0o755)
    tar.add("Minuta/a.txt", hello)
    tar.add("Minuta/records/2026/09.automerge", [1, 2, 3], mode: 0o600)
    return tar
  }

  @Test func readsAHandMadeTarWithoutManifest() throws {
    let read = try ArchiveReader.read(bytes: goodTar().archive)
    #expect(read.topFolder == "Minuta")
    #expect(read.manifest == nil)
    #expect(read.entries.map(\.path) == ["a.txt", "records/2026/09.automerge"])
    #expect(read.entry("records/2026/09.automerge")?.permissions == 0o600)
    #expect(read.entry("a.txt")?.bytes == hello)
  }

  @Test func anyTopFolderNameAndDotSlashPrefixesAreAccepted() throws {
    var tar = TarBuilder()
    tar.add("./backup/x", hello)
    tar.add("backup//y/./z", hello)
    let read = try ArchiveReader.read(bytes: tar.archive)
    #expect(read.topFolder == "backup")
    #expect(read.entries.map(\.path) == ["x", "y/z"])
  }

  @Test func macOSResourceForksAreIgnored() throws {
    var tar = goodTar()
    tar.add("__MACOSX/Minuta/._a.txt", [0])
    #expect(try ArchiveReader.read(bytes: tar.archive).entries.count == 2)
  }

  static let hostile: [(String, @Sendable (inout TarBuilder) -> Void, ArchiveError)] = [
    ("absolute", { $0.add("/etc/passwd", [1]) }, .absolutePath("/etc/passwd")),
    ("absolute top", { $0.add("/Minuta/b", [1]) }, .absolutePath("/Minuta/b")),
    ("dot-dot", { $0.add("Minuta/../../evil", [1]) }, .parentComponent("Minuta/../../evil")),
    (
      "dot-dot inside", { $0.add("Minuta/records/../../x", [1]) },
      .parentComponent("Minuta/records/../../x")
    ),
    (
      "backslash dot-dot", { $0.add("Minuta/..\\..\\x", [1]) }, .parentComponent("Minuta/..\\..\\x")
    ),
    ("drive letter", { $0.add("C:/x", [1]) }, .absolutePath("C:/x")),
    (
      "symlink", { $0.add("Minuta/link", type: .symbolicLink, link: "/etc/passwd") },
      .symbolicLink(path: "Minuta/link", target: "/etc/passwd")
    ),
    (
      "hard link", { $0.add("Minuta/hard", type: .hardLink, link: "Minuta/a.txt") },
      .hardLink(path: "Minuta/hard", target: "Minuta/a.txt")
    ),
    ("char device", { $0.add("Minuta/null", type: .character) }, .specialFile(path: "Minuta/null")),
    ("block device", { $0.add("Minuta/sda", type: .block) }, .specialFile(path: "Minuta/sda")),
    ("fifo", { $0.add("Minuta/pipe", type: .fifo) }, .specialFile(path: "Minuta/pipe")),
    ("duplicate", { $0.add("Minuta/a.txt", [9]) }, .duplicateEntry("a.txt")),
    ("duplicate via dot", { $0.add("Minuta/./a.txt", [9]) }, .duplicateEntry("a.txt")),
    ("file used as directory", { $0.add("Minuta/a.txt/b", [9]) }, .duplicateEntry("a.txt")),
    ("directory used as file", { $0.add("Minuta/records", [9]) }, .duplicateEntry("records")),
    ("second top folder", { $0.add("Other/x", [1]) }, .notUnderTopFolder("Other/x")),
    ("file at top level", { $0.add("loose.txt", [1]) }, .notUnderTopFolder("loose.txt")),
  ]

  @Test(arguments: hostile.indices)
  func hostileTarEntriesAreRefused(index: Int) throws {
    let (name, tamper, expected) = Self.hostile[index]
    var tar = goodTar()
    tamper(&tar)
    #expect(throws: expected, "\(name)") { try ArchiveReader.read(bytes: tar.archive) }
  }

  @Test func hostileEntriesAreRefusedAlsoWhenCompressed() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    var tar = goodTar()
    tar.add("Minuta/../../evil", [1])
    try scratch.write("evil.tar", tar.archive)
    // bsdtar recompresses the raw bytes without looking at them.
    for (ext, flag) in [("tar.gz", "-z"), ("tar.xz", "-J"), ("tar.zst", "--zstd")] {
      let output = scratch.path + "/evil." + ext
      try bsdtar(["-c", flag, "-f", output, "--format", "raw", "-C", scratch.path, "evil.tar"])
      #expect(throws: ArchiveError.parentComponent("Minuta/../../evil"), "\(ext)") {
        try ArchiveReader.read(path: AbsolutePath(output), fileSystem: LiveFileSystem())
      }
    }
  }

  @Test func hostileZipEntriesAreRefused() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("f", hello)
    let link = scratch.path + "/link"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/passwd")
    let dotdot = scratch.path + "/dotdot.zip"
    try bsdtar([
      "--format", "zip", "-cPf", dotdot, "-C", scratch.path, "-s", ",^f$,Minuta/../../evil,", "f",
    ])
    #expect(throws: ArchiveError.parentComponent("Minuta/../../evil")) {
      try ArchiveReader.read(path: AbsolutePath(dotdot), fileSystem: LiveFileSystem())
    }
    let symlink = scratch.path + "/link.zip"
    try bsdtar([
      "--format", "zip", "-cf", symlink, "-C", scratch.path, "-s", ",^,Minuta/,S", "f", "link",
    ])
    #expect(throws: ArchiveError.symbolicLink(path: "Minuta/link", target: "/etc/passwd")) {
      try ArchiveReader.read(path: AbsolutePath(symlink), fileSystem: LiveFileSystem())
    }
  }

  @Test func oversizedEntriesAreRefused() throws {
    var tar = goodTar()
    tar.add("Minuta/big", [UInt8](repeating: 7, count: 5000))
    let limits = ArchiveLimits(maxEntrySize: 4096)
    #expect(throws: ArchiveError.entryTooLarge(path: "big", limit: 4096)) {
      try ArchiveReader.read(bytes: tar.archive, limits: limits)
    }
    // The total cap counts all entries together.
    let total = ArchiveLimits(maxEntrySize: 8192, maxTotalSize: 4000)
    #expect(throws: ArchiveError.entryTooLarge(path: "big", limit: 4000)) {
      try ArchiveReader.read(bytes: tar.archive, limits: total)
    }
    #expect(throws: ArchiveError.archiveTooLarge(limit: 1000)) {
      try ArchiveReader.read(bytes: tar.archive, limits: ArchiveLimits(maxArchiveSize: 1000))
    }
  }

  @Test func aGzipBombStopsAtTheCap() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    var tar = TarBuilder()
    tar.add("Minuta/zeros", [UInt8](repeating: 0, count: 8 << 20))
    try scratch.write("bomb.tar", tar.archive)
    let output = scratch.path + "/bomb.tar.gz"
    try bsdtar(["-czf", output, "--format", "raw", "-C", scratch.path, "bomb.tar"])
    #expect(throws: ArchiveError.entryTooLarge(path: "zeros", limit: 1 << 20)) {
      try ArchiveReader.read(
        path: AbsolutePath(output), fileSystem: LiveFileSystem(),
        limits: ArchiveLimits(maxEntrySize: 1 << 20))
    }
  }

  @Test func manifestMismatchesAreRefused() throws {
    let good = manifestBytes([("a.txt", hello)])
    var ok = TarBuilder()
    ok.add("Minuta/a.txt", hello)
    ok.add("Minuta/.mn-manifest.json", good)
    #expect(try ArchiveReader.read(bytes: ok.archive).manifest?.files.count == 1)

    var changed = TarBuilder()
    changed.add("Minuta/a.txt", Array("hellO\n".utf8))
    changed.add("Minuta/.mn-manifest.json", good)
    #expect(
      throws: ArchiveError.manifestMismatch(
        path: "a.txt",
        .sha256(
          expected: SHA256Digest.hexHash(hello), actual: SHA256Digest.hexHash(Array("hellO\n".utf8))
        ))
    ) { try ArchiveReader.read(bytes: changed.archive) }

    var resized = TarBuilder()
    resized.add("Minuta/a.txt", Array("hello!\n".utf8))
    resized.add("Minuta/.mn-manifest.json", good)
    #expect(throws: ArchiveError.manifestMismatch(path: "a.txt", .size(expected: 6, actual: 7))) {
      try ArchiveReader.read(bytes: resized.archive)
    }

    var missing = TarBuilder()
    missing.add("Minuta/.mn-manifest.json", manifestBytes([("a.txt", hello), ("b.txt", hello)]))
    missing.add("Minuta/a.txt", hello)
    #expect(throws: ArchiveError.manifestMismatch(path: "b.txt", .missingEntry)) {
      try ArchiveReader.read(bytes: missing.archive)
    }

    var extra = TarBuilder()
    extra.add("Minuta/a.txt", hello)
    extra.add("Minuta/sneaky", hello)
    extra.add("Minuta/.mn-manifest.json", good)
    #expect(throws: ArchiveError.manifestMismatch(path: "sneaky", .unlistedEntry)) {
      try ArchiveReader.read(bytes: extra.archive)
    }

    var placeholder = TarBuilder()
    placeholder.add("Minuta/a.txt", hello)
    placeholder.add(
      "Minuta/.mn-manifest.json",
      ArchiveManifest(
        version: "1", created: "x", source: "/",
        files: [ArchiveManifest.File(path: "a.txt", kind: .placeholder)]
      ).encoded)
    #expect(throws: ArchiveError.manifestMismatch(path: "a.txt", .placeholderPresent)) {
      try ArchiveReader.read(bytes: placeholder.archive)
    }

    var twice = TarBuilder()
    twice.add("Minuta/a.txt", hello)
    twice.add("Minuta/.mn-manifest.json", good)
    twice.add("Minuta/.mn-manifest.json", good)
    #expect(throws: ArchiveError.duplicateEntry(".mn-manifest.json")) {
      try ArchiveReader.read(bytes: twice.archive)
    }
  }

  @Test(arguments: [
    ("not json", "{", "invalid JSON at byte 1: "),
    ("array", "[]", "not a JSON object"),
    (
      "no files", #"{"tool":"mn","version":"1","created":"x","source":"/"}"#,
      "missing or non-array 'files'"
    ),
    (
      "bad sha",
      #"{"tool":"mn","version":"1","created":"x","source":"/","files":[{"path":"a.txt","kind":"other","size":6,"sha256":"zz"}]}"#,
      "invalid 'sha256' for 'a.txt'"
    ),
    (
      "bad kind",
      #"{"tool":"mn","version":"1","created":"x","source":"/","files":[{"path":"a.txt","kind":"weird"}]}"#,
      "unknown kind for 'a.txt'"
    ),
  ])
  func malformedManifestsAreRefused(name: String, text: String, reason: String) throws {
    var tar = TarBuilder()
    tar.add("Minuta/a.txt", hello)
    tar.add("Minuta/.mn-manifest.json", Array(text.utf8))
    #expect {
      try ArchiveReader.read(bytes: tar.archive)
    } throws: { error in
      guard case .invalidManifest(let found) = error as? ArchiveError else { return false }
      return found.hasPrefix(reason)
    }
  }

  @Test(arguments: ArchiveFormat.allCases)
  func truncatedArchivesAreRefused(format: ArchiveFormat) throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    // Incompressible content so that every cut lands inside entry data or headers.
    var random = SplitMix64(state: 42)
    try scratch.write("data/blob.bin", random.bytes(40_000))
    let files =
      sample.files + [
        ExportFile(
          relativePath: "blob.bin", absolutePath: AbsolutePath(sample.root).appending("blob.bin"),
          kind: .other)
      ]
    let output = scratch.path + "/out." + format.fileExtension
    _ = try Exporter.export(
      root: sample.root, files: files, output: .file(AbsolutePath(output)),
      options: ExportOptions(format: format, version: "1"), now: 0, fileSystem: LiveFileSystem(),
      inspect: nil, random: { "abcdef" })
    let bytes = try #require(scratch.read("out." + format.fileExtension))
    // A plain tar is padded with zeros to 10 KiB blocks: cut inside the content, not the padding.
    let contentEnd = format == .tar ? 40_000 + 6 * 1024 : bytes.count
    // A zip cut only in its central directory still has every entry complete (read as a
    // stream, checked by the manifest), so zip cuts stay inside the entries.
    let last = format == .zip ? contentEnd * 3 / 4 : contentEnd - 10
    for cut in [contentEnd / 4, contentEnd / 2, last] {
      #expect(throws: ArchiveError.self, "\(format) cut at \(cut)") {
        try ArchiveReader.read(bytes: Array(bytes[0..<cut]))
      }
    }
  }

  @Test func randomGarbageIsRefused() throws {
    var random = SplitMix64(state: 0x5EED)
    for length in [1, 10, 511, 512, 1024, 10_240, 70_000] {
      let garbage = random.bytes(length)
      #expect(throws: ArchiveError.self, "seed 0x5EED length \(length)") {
        try ArchiveReader.read(bytes: garbage)
      }
    }
    #expect(throws: ArchiveError.corruptArchive(detail: "empty file")) {
      try ArchiveReader.read(bytes: [])
    }
    // Garbage that starts like a gzip stream.
    let gzipLike: [UInt8] = [0x1f, 0x8b, 0x08, 0] + random.bytes(2000)
    #expect(throws: ArchiveError.self) { try ArchiveReader.read(bytes: gzipLike) }
  }

  @Test func flippedBytesNeverCrash() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    for format in ArchiveFormat.allCases {
      let output = scratch.path + "/f." + format.fileExtension
      _ = try Exporter.export(
        root: sample.root, files: sample.files, output: .file(AbsolutePath(output)),
        options: ExportOptions(format: format, version: "1"), now: 0, fileSystem: LiveFileSystem(),
        inspect: nil, random: { "abcdef" })
      let bytes = try #require(scratch.read("f." + format.fileExtension))
      var random = SplitMix64(state: 7)
      for _ in 0..<100 {
        var copy = bytes
        let index = Int(random.next() % UInt64(copy.count))
        copy[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
        // Any outcome but a crash is fine; a changed entry is caught by the manifest.
        if let read = try? ArchiveReader.read(bytes: copy), let manifest = read.manifest {
          #expect(read.entries.count == manifest.files.count)
        }
      }
    }
  }

  @Test func emptyTarIsRefused() throws {
    #expect(throws: ArchiveError.self) { try ArchiveReader.read(bytes: TarBuilder().archive) }
    var onlyDirectory = TarBuilder()
    onlyDirectory.add("Minuta/", type: .directory)
    #expect(try ArchiveReader.read(bytes: onlyDirectory.archive).entries.isEmpty)
  }

  @Test func verifyRequiresAManifest() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("plain.tar", goodTar().archive)
    #expect(throws: ArchiveError.missingManifest) {
      try ArchiveReader.verify(
        path: AbsolutePath(scratch.path).appending("plain.tar"), fileSystem: LiveFileSystem())
    }
    #expect {
      try ArchiveReader.verify(
        path: AbsolutePath(scratch.path).appending("absent.tar"), fileSystem: LiveFileSystem())
    } throws: { error in
      guard case .io(let e) = error as? ArchiveError else { return false }
      return e.errno == .noSuchFileOrDirectory
    }
  }
}
