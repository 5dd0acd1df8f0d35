import Archive
import Foundation
import Platform
import Testing

@testable import TestSupport

@Suite struct BackupTests {
  func make(
    _ sample: SampleFolder, directory: String, reason: String = "merge-conflicts",
    roots: [String]? = nil, now: Int64 = 1_788_709_512, fileSystem: FileSystem = LiveFileSystem()
  ) throws -> Backup.Result {
    let suffix = SuffixCounter()
    return try Backup.make(
      files: sample.files, source: sample.root, reason: reason,
      directory: AbsolutePath(directory),
      dataRoots: (roots ?? [sample.root]).map { AbsolutePath($0) },
      version: "1.0", now: now, fileSystem: fileSystem,
      inspect: fakeInspector, random: { suffix() })
  }

  @Test func writesAVerifiedArchiveWithATimestampedName() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let directory = scratch.path + "/state/minuta/backups"
    let result = try make(sample, directory: directory)
    #expect(
      result.path.string == directory + "/minuta-backup-20260906-154512-merge-conflicts.tar.gz")
    #expect(result.summary.verified)
    #expect(result.summary.format == .tarGz)
    let read = try ArchiveReader.verify(
      path: result.path, fileSystem: LiveFileSystem())
    #expect(read.entries.count == SampleFolder.contents.count)
    let attributes = try FileManager.default.attributesOfItem(atPath: result.path.string)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let dirAttributes = try FileManager.default.attributesOfItem(atPath: directory)
    #expect((dirAttributes[.posixPermissions] as? Int) == 0o700)
  }

  @Test func namesAreUniqueAndNothingIsReplaced() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let directory = scratch.path + "/backups"
    let first = try make(sample, directory: directory, reason: "migrate")
    let second = try make(sample, directory: directory, reason: "migrate")
    let third = try make(sample, directory: directory, reason: "migrate")
    #expect(first.path.string.hasSuffix("/minuta-backup-20260906-154512-migrate.tar.gz"))
    #expect(second.path.string.hasSuffix("/minuta-backup-20260906-154512-migrate-2.tar.gz"))
    #expect(third.path.string.hasSuffix("/minuta-backup-20260906-154512-migrate-3.tar.gz"))
    #expect(scratch.listing("backups").count == 3)
  }

  @Test func reasonsAreSanitized() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let result = try make(sample, directory: scratch.path + "/b", reason: "re/store ../x")
    #expect(
      result.path.string == scratch.path + "/b/minuta-backup-20260906-154512-re-store----x.tar.gz")
  }

  @Test func refusesADirectoryInsideADataFolder() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let other = scratch.path + "/other-root"
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    for directory in [
      sample.root, sample.root + "/backups", sample.root + "/./x/../backups", other + "/deep/b",
    ] {
      #expect(throws: ArchiveError.self, "\(directory)") {
        try make(sample, directory: directory, roots: [sample.root, other])
      }
    }
    #expect(
      throws: ArchiveError.backupInsideDataFolder(
        backupDirectory: sample.root + "/backups", root: sample.root)
    ) {
      try make(sample, directory: sample.root + "/backups")
    }
    // Through a symbolic link to the root.
    let link = scratch.path + "/link"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sample.root)
    #expect(
      throws: ArchiveError.backupInsideDataFolder(
        backupDirectory: link + "/new/b", root: sample.root)
    ) {
      try make(sample, directory: link + "/new/b")
    }
    // Nothing was created inside the root.
    #expect(!scratch.listing("data").contains { $0.hasPrefix("backups") || $0.hasPrefix("new") })
    // A sibling whose name starts like the root is fine.
    let sibling = try make(sample, directory: sample.root + "-backups")
    #expect(sibling.summary.verified)
  }

  @Test func aFailedBackupLeavesNoFile() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let sample = try SampleFolder(in: scratch)
    let fs = FaultyFileSystem(failing: .write, onCall: 1, with: .noSpace)
    #expect(throws: ArchiveError.self) {
      try make(sample, directory: scratch.path + "/b", fileSystem: fs)
    }
    #expect(scratch.listing("b").isEmpty)
  }

  @Test func twoFoldersInOneBackup() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let from = try SampleFolder(in: scratch, name: "from")
    let to = try SampleFolder(in: scratch, name: "to")
    let files =
      from.files.map { $0.prefixed(by: "source") } + to.files.map { $0.prefixed(by: "destination") }
    let result = try Backup.make(
      files: files, source: from.root + " -> " + to.root, reason: "migrate",
      directory: AbsolutePath(scratch.path + "/b"),
      dataRoots: [AbsolutePath(from.root), AbsolutePath(to.root)], version: "1", now: 0,
      fileSystem: LiveFileSystem(), inspect: nil, random: { "aaaaaa" })
    let read = try ArchiveReader.verify(
      path: result.path, fileSystem: LiveFileSystem())
    #expect(read.entries.count == 2 * SampleFolder.contents.count)
    #expect(
      read.entry("source/tags.automerge") != nil && read.entry("destination/tags.automerge") != nil)
    #expect(result.path.string.hasSuffix("/minuta-backup-19700101-000000-migrate.tar.gz"))
  }
}
