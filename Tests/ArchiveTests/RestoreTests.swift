import Archive
import AutomergeCodec
import Foundation
import Platform
import Testing

@testable import TestSupport

@Suite struct RestoreTests {
  /// A stand-in for the Automerge merge: the union of lines, existing lines first.
  @Sendable static func lineMerge(_ existing: [UInt8], _ incoming: [UInt8]) -> [UInt8] {
    let old = String(decoding: existing, as: UTF8.self).split(separator: "\n").map(String.init)
    let new = String(decoding: incoming, as: UTF8.self).split(separator: "\n").map(String.init)
    let union = old + new.filter { !old.contains($0) }
    return Array((union.joined(separator: "\n") + "\n").utf8)
  }

  /// `lineMerge` as the replace primitive takes it.
  static func lineMerger(
    merge: @escaping @Sendable ([UInt8], [UInt8]) throws -> [UInt8] = lineMerge
  ) -> ReplaceMerger {
    ReplaceMerger(
      merge: merge,
      holdsAll: { holder, version in
        let lines = Set(String(decoding: holder, as: UTF8.self).split(separator: "\n"))
        return String(decoding: version, as: UTF8.self).split(separator: "\n").allSatisfy(
          lines.contains)
      },
      asideName: { name, attempt in "\(name).aside\(attempt)" })
  }
  let lineMerger = Self.lineMerger()

  func archive(_ files: [(String, String)], manifest: Bool = true) throws -> ReadArchive {
    var tar = TarBuilder()
    for (path, text) in files { tar.add("Minuta/" + path, Array(text.utf8), mode: 0o640) }
    if manifest {
      let listed = files.map { (path, text) in
        ArchiveManifest.File(
          path: path, kind: ArchiveRestore.isDocumentPath(path) ? .document : .other,
          size: Int64(text.utf8.count), sha256: SHA256Digest.hexHash(Array(text.utf8)))
      }
      tar.add(
        "Minuta/.mn-manifest.json",
        ArchiveManifest(version: "1", created: "x", source: "/", files: listed).encoded)
    }
    return try ArchiveReader.read(bytes: tar.archive)
  }

  @Test func documentPaths() {
    #expect(ArchiveRestore.isDocumentPath("tags.automerge"))
    #expect(ArchiveRestore.isDocumentPath("records/2026/09.automerge"))
    #expect(!ArchiveRestore.isDocumentPath("records/2026/13.automerge"))
    #expect(!ArchiveRestore.isDocumentPath("records/26/09.automerge"))
    #expect(!ArchiveRestore.isDocumentPath("records/2026/09.automerge.bak"))
    #expect(!ArchiveRestore.isDocumentPath(".minuta-version"))
  }

  @Test func plansAndExecutesWriteMergeKeepAndSkip() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("dest/tags.automerge", "a\nb\n")
    try scratch.write("dest/records/2026/09.automerge", "same\n")
    try scratch.write("dest/.minuta-version", "4\n")
    try scratch.write("dest/notes.txt", "same other\n")
    let read = try archive([
      ("tags.automerge", "b\nc\n"),
      ("records/2026/09.automerge", "same\n"),
      ("records/2026/10.automerge", "new doc\n"),
      (".minuta-version", "3\n"),
      ("notes.txt", "same other\n"),
      ("extra/file.txt", "x\n"),
      (".minuta.writelock.nosync", ""),
    ])
    let destination = scratch.path + "/dest"
    let plan = try ArchiveRestore.plan(
      archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem())
    #expect(plan.destinationExists)
    let actions = Dictionary(uniqueKeysWithValues: plan.items.map { ($0.path, $0.action) })
    #expect(actions["tags.automerge"] == .merge)
    #expect(actions["records/2026/09.automerge"] == .unchanged)
    #expect(actions["records/2026/10.automerge"] == .write)
    #expect(actions[".minuta-version"] == .keepDifferent)
    #expect(actions["notes.txt"] == .unchanged)
    #expect(actions["extra/file.txt"] == .write)
    #expect(actions[".minuta.writelock.nosync"] == .skip)
    // Planning changes nothing.
    #expect(scratch.read("dest/records/2026/10.automerge") == nil)

    let suffix = SuffixCounter()
    let report = try ArchiveRestore.execute(
      archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem(),
      merger: lineMerger,
      random: { suffix() })
    #expect(report.written == ["extra/file.txt", "records/2026/10.automerge"])
    #expect(report.merged == ["tags.automerge"])
    #expect(report.unchanged == ["notes.txt", "records/2026/09.automerge"])
    #expect(report.keptDifferent == [".minuta-version"])
    #expect(report.skipped == [".minuta.writelock.nosync"])
    #expect(scratch.read("dest/tags.automerge") == Array("a\nb\nc\n".utf8))
    #expect(scratch.read("dest/.minuta-version") == Array("4\n".utf8))
    #expect(scratch.read("dest/records/2026/10.automerge") == Array("new doc\n".utf8))
    #expect(scratch.read("dest/.minuta.writelock.nosync") == nil)
    let mode =
      try FileManager.default.attributesOfItem(atPath: destination + "/extra/file.txt")[
        .posixPermissions] as? Int
    #expect(mode == 0o640)
    #expect(!scratch.listing("dest").contains { $0.hasSuffix(".nosync") })

    // Running it again changes nothing.
    let again = try ArchiveRestore.execute(
      archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem(),
      merger: lineMerger,
      random: { suffix() })
    #expect(again.written.isEmpty && again.merged.isEmpty)
  }

  @Test func createsAMissingDestination() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let read = try archive(
      [("tags.automerge", "t\n"), ("records/2026/01.automerge", "r\n")], manifest: false)
    let destination = scratch.path + "/new/place"
    let plan = try ArchiveRestore.plan(
      archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem())
    #expect(!plan.destinationExists)
    #expect(plan.items.allSatisfy { $0.action == .write && $0.kind == .document })
    let report = try ArchiveRestore.execute(
      archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem(),
      merger: lineMerger,
      random: { "abcdef" })
    #expect(report.written.count == 2)
    #expect(scratch.read("new/place/records/2026/01.automerge") == Array("r\n".utf8))
  }

  @Test func refusesLinksAndDirectoriesInTheWayAndWritesNothing() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let outside = scratch.path + "/outside"
    try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/dest", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: scratch.path + "/dest/records", withDestinationPath: outside)
    let read = try archive([("a.txt", "a\n"), ("records/2026/09.automerge", "x\n")])
    let destination = scratch.path + "/dest"
    #expect(
      throws: ArchiveError.destinationConflict(
        path: destination + "/records", reason: "a symbolic link")
    ) {
      try ArchiveRestore.execute(
        archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem(),
        merger: lineMerger,
        random: { "abcdef" })
    }
    #expect(scratch.listing("outside").isEmpty)
    #expect(scratch.read("dest/a.txt") == nil)

    try FileManager.default.removeItem(atPath: scratch.path + "/dest/records")
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/dest/a.txt", withIntermediateDirectories: true)
    #expect(
      throws: ArchiveError.destinationConflict(path: destination + "/a.txt", reason: "a directory")
    ) {
      try ArchiveRestore.plan(
        archive: read, destination: AbsolutePath(destination), fileSystem: LiveFileSystem())
    }
  }

  @Test func aFailingMergeIsReportedAndTheFileKept() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("dest/tags.automerge", "mine\n")
    let read = try archive([("tags.automerge", "theirs\n")])
    #expect(throws: ArchiveError.mergeFailed(path: "tags.automerge", reason: "unparsable")) {
      try ArchiveRestore.execute(
        archive: read, destination: AbsolutePath(scratch.path + "/dest"),
        fileSystem: LiveFileSystem(),
        merger: Self.lineMerger(merge: { _, _ in throw ArchiveTestFailure.unparsable }),
        random: { "abcdef" })
    }
    #expect(scratch.read("dest/tags.automerge") == Array("mine\n".utf8))
  }

  @Test func aFailedWriteLeavesNoTemporary() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    try scratch.write("dest/tags.automerge", "a\n")
    let read = try archive([("tags.automerge", "b\n"), ("new.txt", "n\n")])
    for operation in [FaultyFileSystem.Operation.write, .sync, .rename] {
      let fs = FaultyFileSystem(failing: operation, onCall: 1, with: .noSpace)
      #expect(throws: ArchiveError.self) {
        try ArchiveRestore.execute(
          archive: read, destination: AbsolutePath(scratch.path + "/dest"), fileSystem: fs,
          merger: lineMerger,
          random: { "abcdef" })
      }
      #expect(!scratch.listing("dest").contains { $0.hasSuffix(".nosync") }, "\(operation)")
      #expect(scratch.read("dest/tags.automerge") == Array("a\n".utf8))
    }
  }
}
