import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Platform
@testable import TestSupport

@Suite struct ExporterTests {
  static let formats = ArchiveFormat.allCases

  func export(
    _ sample: SampleFolder, to output: String, format: ArchiveFormat, reproducible: Bool = false,
    now: Int64 = 1_788_709_512, fileSystem: FileSystem = LiveFileSystem(),
    files: [ExportFile]? = nil, allowPlaceholders: Bool = false
  ) throws -> ExportSummary {
    let suffix = SuffixCounter()
    return try Exporter.export(
      root: sample.root, files: files ?? sample.files, output: .file(AbsolutePath(output)),
      options: ExportOptions(
        format: format, version: "1.2.3", reproducible: reproducible,
        allowPlaceholders: allowPlaceholders),
      now: now, fileSystem: fileSystem, inspect: fakeInspector, random: { suffix() })
  }

  @Test(arguments: formats)
  func roundTripThroughOwnReaderAndBsdtar(format: ArchiveFormat) throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let output = scratch.path + "/out." + format.fileExtension
    let summary = try export(sample, to: output, format: format)
    #expect(summary.path?.string == output)
    #expect(summary.entries == SampleFolder.contents.count)
    #expect(summary.verified)
    let archiveBytes = try #require(scratch.read("out." + format.fileExtension))
    #expect(summary.bytes == Int64(archiveBytes.count))
    #expect(summary.sha256 == SHA256Digest.hexHash(archiveBytes))
    #expect(scratch.listing().filter { $0.hasSuffix(".nosync") }.isEmpty)

    // Own reader.
    let read = try ArchiveReader.verify(path: AbsolutePath(output), fileSystem: LiveFileSystem())
    #expect(read.topFolder == "Minuta")
    let expectedPaths = SampleFolder.contents.map(\.0).sorted {
      Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
    }
    #expect(read.entries.map(\.path) == expectedPaths)
    for (relative, text, kind, mode) in SampleFolder.contents {
      let entry = try #require(read.entry(relative))
      #expect(entry.bytes == Array(text.utf8))
      #expect(entry.permissions.rawValue == UInt32(mode))
      #expect(read.manifestKind(relative) == kind)
    }
    let manifest = try #require(read.manifest)
    #expect(manifest.tool == "mn")
    #expect(manifest.version == "1.2.3")
    #expect(manifest.created == "2026-09-06T15:45:12Z")
    #expect(manifest.source == sample.root)
    let tags = try #require(manifest.files.first { $0.path == "tags.automerge" })
    #expect(tags.changes == "tags-document-bytes".utf8.count)
    #expect(tags.heads == [SHA256Digest.hexHash(Array("tags-document-bytes".utf8))])
    #expect(manifest.files.first { $0.path == ".minuta-version" }?.changes == nil)

    // bsdtar: same entries in the same (sorted) order, manifest last, same bytes.
    let listing = try bsdtar(["-tf", output])
    #expect(listing.status == 0)
    let names = String(decoding: listing.output, as: UTF8.self).split(separator: "\n").map(
      String.init)
    #expect(names == expectedPaths.map { "Minuta/" + $0 } + ["Minuta/.mn-manifest.json"])
    let verbose = try bsdtar(["-tvf", output])
    #expect(verbose.status == 0)
    #expect(String(decoding: verbose.output, as: UTF8.self).contains("-rwxr-xr-x"))
    for (relative, text, _, _) in SampleFolder.contents {
      let extracted = try bsdtar(["-xOf", output, "Minuta/" + relative])
      #expect(extracted.status == 0)
      #expect(extracted.output == Array(text.utf8), "\(relative)")
    }
    let manifestOut = try bsdtar(["-xOf", output, "Minuta/.mn-manifest.json"])
    #expect(try ArchiveManifest.parse(manifestOut.output) == manifest)
  }

  @Test(arguments: formats)
  func reproducibleExportsAreByteIdentical(format: ArchiveFormat) throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let first = scratch.path + "/a." + format.fileExtension
    let second = scratch.path + "/b." + format.fileExtension
    let a = try export(sample, to: first, format: format, reproducible: true, now: 1_000_000_000)
    // Touch the sources' times, then export again later.
    for file in sample.files {
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSince1970: 1_900_000_000)],
        ofItemAtPath: file.absolutePath.string)
    }
    Thread.sleep(forTimeInterval: 1.1)
    let b = try export(sample, to: second, format: format, reproducible: true, now: 2_000_000_000)
    #expect(a.sha256 == b.sha256)
    #expect(scratch.read("a." + format.fileExtension) == scratch.read("b." + format.fileExtension))
    #expect(a.manifest.created == "1980-01-02T00:00:00Z")
    if format == .tarGz {
      // The gzip header's MTIME field (bytes 4..<8) is zero.
      let bytes = try #require(scratch.read("a.tar.gz"))
      #expect(Array(bytes[4..<8]) == [0, 0, 0, 0])
    }
  }

  /// A reproducible zip's entry times are the fixed time in UTC (1980-01-02 00:00:00) in every
  /// local header and central directory record, set without touching the process's time zone
  /// (the end-to-end tests export in two zones).
  @Test func reproducibleZipTimesAreUTC() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    _ = try export(sample, to: scratch.path + "/a.zip", format: .zip, reproducible: true)
    let bytes = try #require(scratch.read("a.zip"))
    func le(_ at: Int, _ count: Int) -> Int {
      (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
    // The end of central directory record (libarchive pads the last block with zeros after it):
    // the number of records and the directory's offset.
    let end = try #require(
      (0...(bytes.count - 22)).last { Array(bytes[$0..<($0 + 4)]) == [0x50, 0x4B, 0x05, 0x06] })
    let entries = le(end + 10, 2)
    var at = le(end + 16, 4)
    let stamp: [UInt8] = [0, 0, 0x22, 0]
    for _ in 0..<entries {
      #expect(Array(bytes[at..<(at + 4)]) == [0x50, 0x4B, 0x01, 0x02])
      #expect(Array(bytes[(at + 12)..<(at + 16)]) == stamp)
      let local = le(at + 42, 4)
      #expect(Array(bytes[local..<(local + 4)]) == [0x50, 0x4B, 0x03, 0x04])
      #expect(Array(bytes[(local + 10)..<(local + 14)]) == stamp)
      at += 46 + le(at + 28, 2) + le(at + 30, 2) + le(at + 32, 2)
    }
    #expect(entries == sample.files.count + 1)
  }

  /// The times are put over the bytes wherever the sink's chunks split them, and the central
  /// directory is held until close, then handed on with its record's time replaced.
  @Test func zipTimesSurviveAnySplit() throws {
    var stream = [UInt8](repeating: 0xEE, count: 60)
    var record = [UInt8](repeating: 0xEE, count: 46)
    record.replaceSubrange(0..<4, with: [0x50, 0x4B, 0x01, 0x02])
    record.replaceSubrange(28..<34, with: [0, 0, 0, 0, 0, 0])
    stream += record + [1, 2, 3]
    let stamp = ZipUTCTimes.dosFields(Exporter.reproducibleTime)
    // The directory starts at close, after everything before it was written.
    for split in 1...60 {
      let times = ZipUTCTimes()
      times.header(at: 5, seconds: Exporter.reproducibleTime)
      var out: [UInt8] = []
      out += stream[..<split].withUnsafeBytes { times.pass($0) }
      times.directory(at: 60)
      out += stream[split...].withUnsafeBytes { times.pass($0) }
      out += try times.finish(label: "test")
      var expected = stream
      expected.replaceSubrange(15..<19, with: stamp)
      expected.replaceSubrange(72..<76, with: stamp)
      #expect(out == expected, "split at \(split)")
    }
  }

  /// DOS fields of a UTC time, and the clamping of times outside DOS's range.
  @Test func dosFieldsOfUTCTimes() {
    #expect(ZipUTCTimes.dosFields(1_788_709_512) == [166, 125, 38, 93])  // 2026-09-06 15:45:12
    #expect(ZipUTCTimes.dosFields(Exporter.reproducibleTime) == [0, 0, 0x22, 0])
    #expect(ZipUTCTimes.dosFields(0) == [0, 0, 0x21, 0])
    #expect(ZipUTCTimes.dosFields(5_000_000_000) == [0x7D, 0xBF, 0x9F, 0xFF])
  }

  @Test func nonReproducibleExportsDifferInTime() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let a = try export(sample, to: scratch.path + "/a.tar", format: .tar, now: 1_000_000_000)
    let b = try export(sample, to: scratch.path + "/b.tar", format: .tar, now: 1_000_000_001)
    #expect(a.sha256 != b.sha256)
  }

  @Test func placeholdersAreRefusedUnlessAllowed() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let placeholder = ExportFile(
      relativePath: "records/2026/08.automerge",
      absolutePath: AbsolutePath(sample.root).appending("records/2026/.08.automerge.icloud"),
      kind: .placeholder)
    let files = sample.files + [placeholder]
    let output = scratch.path + "/out.tar.gz"
    #expect(throws: ArchiveError.placeholdersPresent(["records/2026/08.automerge"])) {
      try export(sample, to: output, format: .tarGz, files: files)
    }
    #expect(scratch.read("out.tar.gz") == nil)
    #expect(scratch.listing().filter { $0.hasSuffix(".nosync") }.isEmpty)

    let summary = try export(
      sample, to: output, format: .tarGz, files: files, allowPlaceholders: true)
    #expect(summary.missing == ["records/2026/08.automerge"])
    #expect(summary.entries == SampleFolder.contents.count)
    let read = try ArchiveReader.verify(path: AbsolutePath(output), fileSystem: LiveFileSystem())
    #expect(read.entry("records/2026/08.automerge") == nil)
    let listed = try #require(read.manifest?.files.first { $0.path == "records/2026/08.automerge" })
    #expect(listed == ArchiveManifest.File(path: "records/2026/08.automerge", kind: .placeholder))
  }

  @Test func unreadableDocumentFailsExportButNotBackup() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    try scratch.write("data/tags.automerge", "BROKEN bytes")
    let output = scratch.path + "/out.zip"
    #expect(throws: ArchiveError.unreadableDocument(path: "tags.automerge", reason: "unparsable")) {
      try export(sample, to: output, format: .zip)
    }
    #expect(
      scratch.listing() == [
        "data", "data/.minuta-version", "data/notes", "data/notes/café résumé.txt", "data/records",
        "data/records/2026", "data/records/2026/09.automerge", "data/records/2026/10.automerge",
        "data/tags.automerge",
      ])

    let suffix = SuffixCounter()
    let summary = try Exporter.export(
      root: sample.root, files: sample.files, output: .file(AbsolutePath(output)),
      options: ExportOptions(format: .zip, version: "1", includeUnreadableDocuments: true),
      now: 0, fileSystem: LiveFileSystem(), inspect: fakeInspector, random: { suffix() })
    #expect(summary.unreadableDocuments == ["tags.automerge"])
    let tags = try #require(summary.manifest.files.first { $0.path == "tags.automerge" })
    #expect(
      tags.kind == .document && tags.changes == nil && tags.heads == nil && tags.sha256 != nil)
  }

  @Test func streamsToADescriptor() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let fs = LiveFileSystem()
    let stream = AbsolutePath(scratch.path).appending("stream.tar.zst")
    let fd = try fs.createExclusive(stream, permissions: 0o644)
    let summary = try Exporter.export(
      root: sample.root, files: sample.files, output: .descriptor(fd, label: "standard output"),
      options: ExportOptions(format: .tarZst, version: "1"), now: 5, fileSystem: fs,
      inspect: nil, random: { "x" })
    try fs.close(fd, path: stream)
    #expect(summary.path == nil)
    #expect(summary.verified)
    let bytes = try #require(scratch.read("stream.tar.zst"))
    #expect(SHA256Digest.hexHash(bytes) == summary.sha256)
    let read = try ArchiveReader.read(bytes: bytes)
    #expect(read.entries.count == SampleFolder.contents.count)
    #expect(read.manifest?.files.allSatisfy { $0.changes == nil } == true)
  }

  @Test func invalidOrDuplicatePathsAreRefused() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    for bad in ["../x", "/abs", "a//b", "./a", "", ".mn-manifest.json", "tags.automerge"] {
      let files =
        sample.files + [
          ExportFile(relativePath: bad, absolutePath: AbsolutePath("/dev/null"), kind: .other)
        ]
      #expect(throws: ArchiveError.invalidExportPath(bad)) {
        try export(sample, to: scratch.path + "/out.tar", format: .tar, files: files)
      }
    }
  }

  @Test func missingOutputDirectoryCannotBeCreated() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let output = scratch.path + "/missing/out.tar"
    #expect {
      try export(sample, to: output, format: .tar)
    } throws: { error in
      guard case .cannotCreateOutput(let path, let underlying) = error as? ArchiveError else {
        return false
      }
      return path == output && underlying.errno == .noSuchFileOrDirectory
    }
  }

  @Test func missingSourceFileIsAnIOErrorAndLeavesNoTemporary() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let files =
      sample.files + [
        ExportFile(
          relativePath: "zzz", absolutePath: AbsolutePath(sample.root).appending("zzz"),
          kind: .other)
      ]
    #expect {
      try export(sample, to: scratch.path + "/out.tar.xz", format: .tarXz, files: files)
    } throws: { error in
      guard case .io(let underlying) = error as? ArchiveError else { return false }
      return underlying.errno == .noSuchFileOrDirectory
    }
    #expect(scratch.listing().filter { !$0.hasPrefix("data") }.isEmpty)
  }

  /// Fails the Nth call of each output-side operation, for every N until the export gets
  /// through: each failure throws, leaves no temporary and no output.
  @Test(arguments: [
    FaultyFileSystem.Operation.write, .sync, .close, .rename, .readFile, .read, .createExclusive,
  ])
  func faultsLeaveNothingBehind(operation: FaultyFileSystem.Operation) throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let output = scratch.path + "/out.tar.gz"
    var call = 1
    while true {
      let fs = FaultyFileSystem(failing: operation, onCall: call, with: .noSpace)
      do {
        _ = try export(sample, to: output, format: .tarGz, fileSystem: fs)
        break
      } catch let error as ArchiveError {
        switch error {
        case .io(let e), .cannotCreateOutput(_, let e): #expect(e.errno == .noSpace)
        default: Issue.record("unexpected \(error)")
        }
        #expect(scratch.read("out.tar.gz") == nil, "call \(call)")
        #expect(scratch.listing().filter { !$0.hasPrefix("data") }.isEmpty, "call \(call)")
      }
      call += 1
      if call > 200 {
        Issue.record("never succeeded")
        break
      }
    }
    // Closing a source file that was only read is allowed to fail.
    if operation != .close { #expect(call > 1) }
    _ = try ArchiveReader.verify(path: AbsolutePath(output), fileSystem: LiveFileSystem())
  }

  @Test func formatNamesAndExtensions() {
    #expect(ArchiveFormat(name: "tar.gz") == .tarGz)
    #expect(ArchiveFormat(name: "TGZ") == .tarGz)
    #expect(ArchiveFormat(name: "tar.zst") == .tarZst)
    #expect(ArchiveFormat(name: "zstd") == .tarZst)
    #expect(ArchiveFormat(name: "rar") == nil)
    #expect(ArchiveFormat(fileName: "/x/minuta-20260906-154512.tar.gz") == .tarGz)
    #expect(ArchiveFormat(fileName: "a.TAR.XZ") == .tarXz)
    #expect(ArchiveFormat(fileName: "a.tzst") == .tarZst)
    #expect(ArchiveFormat(fileName: "a.tar") == .tar)
    #expect(ArchiveFormat(fileName: "a.zip") == .zip)
    #expect(ArchiveFormat(fileName: "a.gz") == nil)
    #expect(ArchiveFormat(fileName: "archive") == nil)
    for format in ArchiveFormat.allCases {
      #expect(ArchiveFormat(name: format.rawValue) == format)
      #expect(ArchiveFormat(fileName: "x." + format.fileExtension) == format)
    }
  }
}
