import Foundation
import Testing

@testable import Archive
@testable import AutomergeCodec
@testable import Platform
@testable import TestSupport

@Suite struct BackupCatalogTests {
  /// 2026-09-06T15:45:12Z.
  static let t0: Int64 = 1_788_709_512

  /// A backup folder with real backups (written by `Backup.make`) at the given times.
  struct Folder {
    let scratch: ArchiveScratch
    let sample: SampleFolder
    let directory: AbsolutePath
    var fs: LiveFileSystem { LiveFileSystem() }

    init() throws {
      scratch = try ArchiveScratch()
      sample = try SampleFolder(in: scratch)
      directory = AbsolutePath(scratch.path + "/backups")
    }

    @discardableResult
    func backup(at now: Int64, reason: String = "merge-conflicts") throws -> String {
      let suffix = SuffixCounter()
      return try Backup.make(
        files: sample.files, source: sample.root, reason: reason, directory: directory,
        dataRoots: [AbsolutePath(sample.root)], version: "1.0", now: now, fileSystem: fs,
        inspect: fakeInspector, random: { suffix() }
      ).path.string
    }

    func names() -> [String] { scratch.listing("backups") }
  }

  @Test(arguments: [
    ("minuta-backup-20260906-154512-merge-conflicts.tar.gz", 1_788_709_512, "merge-conflicts", 1),
    ("minuta-backup-20260906-154512-merge-conflicts-3.tar.gz", 1_788_709_512, "merge-conflicts", 3),
    ("minuta-backup-19700101-000000-migrate.tar.gz", 0, "migrate", 1),
    ("minuta-backup-20240229-235959-restore.tar.gz", 1_709_251_199, "restore", 1),
    ("minuta-backup-20260101-000000-watch-10.tar.gz", 1_767_225_600, "watch", 10),
    // "-1" and "-02" are never a sequence number Backup.make writes: part of the verb.
    ("minuta-backup-20260101-000000-watch-1.tar.gz", 1_767_225_600, "watch-1", 1),
    ("minuta-backup-20260101-000000-watch-02.tar.gz", 1_767_225_600, "watch-02", 1),
  ])
  func namesParse(_ name: String, _ time: Int64, _ verb: String, _ sequence: Int) {
    let parsed = BackupCatalog.Name(name)
    #expect(parsed == BackupCatalog.Name(time: time, verb: verb, sequence: sequence))
  }

  @Test(arguments: [
    "minuta-backup-20260230-000000-migrate.tar.gz",  // February 30th
    "minuta-backup-20261301-000000-migrate.tar.gz",
    "minuta-backup-20260101-240000-migrate.tar.gz",
    "minuta-backup-20260101-000000-.tar.gz",
    "minuta-backup-20260101-000000-a b.tar.gz",
    "minuta-backup-20260101-000000-migrate.tar.xz",
    "minuta-backup-2026010-000000-migrate.tar.gz",
    "minuta-20260101-000000.tar.gz",
    ".minuta-backup-20260101-000000-migrate.tar.gz.mn-000001.nosync",
    "notes.txt",
  ])
  func otherNamesAreNotBackups(_ name: String) {
    #expect(BackupCatalog.Name(name) == nil)
  }

  @Test func namesRoundTripWithBackupMake() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    for now: Int64 in [0, Self.t0, 951_782_400 /* 2000-02-29 */, 4_102_444_799] {
      let path = try folder.backup(at: now, reason: "migrate")
      let name = BackupCatalog.Name(AbsolutePath(path).lastComponent)
      #expect(name?.time == now)
      #expect(name?.verb == "migrate")
    }
  }

  @Test func listReadsBackEveryBackupOldestFirstAndSkipsEverythingElse() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    try folder.backup(at: Self.t0 + 86_400, reason: "restore")
    try folder.backup(at: Self.t0)
    try folder.backup(at: Self.t0)  // -2, the same second
    // Not mn's: another file, a link with a backup's name, a directory with one, and an
    // archive whose manifest another tool wrote.
    try folder.scratch.write("backups/notes.txt", "mine")
    try FileManager.default.createSymbolicLink(
      atPath: folder.directory.string + "/minuta-backup-20270101-000000-migrate.tar.gz",
      withDestinationPath: folder.directory.string
        + "/minuta-backup-20260906-154512-merge-conflicts.tar.gz")
    try FileManager.default.createDirectory(
      atPath: folder.directory.string + "/minuta-backup-20270102-000000-migrate.tar.gz",
      withIntermediateDirectories: false)
    var tar = TarBuilder()
    tar.add("Minuta/a.txt", Array("a".utf8))
    let manifest = ArchiveManifest(
      tool: "other", version: "1", created: "2026-01-01T00:00:00Z", source: "/x",
      files: [
        ArchiveManifest.File(
          path: "a.txt", kind: .other, size: 1, sha256: SHA256Digest.hexHash(Array("a".utf8)))
      ])
    tar.add("Minuta/.mn-manifest.json", manifest.encoded)
    try folder.scratch.write("backups/minuta-backup-20270103-000000-migrate.tar.gz", tar.archive)

    let listing = try BackupCatalog.list(directory: folder.directory, fileSystem: folder.fs)
    #expect(listing.exists)
    #expect(
      listing.entries.map(\.fileName) == [
        "minuta-backup-20260906-154512-merge-conflicts.tar.gz",
        "minuta-backup-20260906-154512-merge-conflicts-2.tar.gz",
        "minuta-backup-20260907-154512-restore.tar.gz",
      ])
    #expect(
      listing.foreign == [
        "minuta-backup-20270101-000000-migrate.tar.gz",
        "minuta-backup-20270102-000000-migrate.tar.gz",
        "minuta-backup-20270103-000000-migrate.tar.gz",
      ])
    for entry in listing.entries {
      let contents = try entry.state.get()
      #expect(contents.documents == 3)
      #expect(contents.files == SampleFolder.contents.count)
      #expect(contents.source == folder.sample.root)
      #expect(contents.tool == "mn")
      #expect(entry.size == Int64(folder.scratch.read("backups/" + entry.fileName)?.count ?? -1))
    }
    #expect(listing.entries.map(\.name.verb) == ["merge-conflicts", "merge-conflicts", "restore"])
  }

  @Test func aMissingFolderHasNoBackups() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let listing = try BackupCatalog.list(
      directory: AbsolutePath(scratch.path + "/none"), fileSystem: LiveFileSystem())
    #expect(!listing.exists && listing.entries.isEmpty)
    try scratch.write("file", "x")
    #expect(throws: BackupCatalogError.self) {
      try BackupCatalog.list(
        directory: AbsolutePath(scratch.path + "/file"), fileSystem: LiveFileSystem())
    }
  }

  @Test func damagedBackupsAreFoundAndSayWhy() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    let good = try folder.backup(at: Self.t0)
    let bytes = folder.scratch.read("backups/" + AbsolutePath(good).lastComponent) ?? []
    // Truncated: the end, with the manifest, is missing.
    try folder.scratch.write(
      "backups/minuta-backup-20260908-000000-migrate.tar.gz", Array(bytes.prefix(bytes.count - 64)))
    // Cut in the middle.
    try folder.scratch.write(
      "backups/minuta-backup-20260909-000000-migrate.tar.gz", Array(bytes.prefix(bytes.count / 2)))
    // A well-formed archive whose manifest lies about a file's digest.
    var tar = TarBuilder()
    tar.add("Minuta/tags.automerge", Array("tags".utf8))
    let lying = ArchiveManifest(
      version: "1", created: "2026-01-01T00:00:00Z", source: "/x",
      files: [
        ArchiveManifest.File(
          path: "tags.automerge", kind: .document, size: 4,
          sha256: SHA256Digest.hexHash(Array("tagz".utf8)))
      ])
    tar.add("Minuta/.mn-manifest.json", lying.encoded)
    try folder.scratch.write("backups/minuta-backup-20260910-000000-migrate.tar.gz", tar.archive)
    // No manifest at all.
    var bare = TarBuilder()
    bare.add("Minuta/tags.automerge", Array("tags".utf8))
    try folder.scratch.write("backups/minuta-backup-20260911-000000-migrate.tar.gz", bare.archive)

    let listing = try BackupCatalog.list(directory: folder.directory, fileSystem: folder.fs)
    #expect(listing.entries.map(\.isIntact) == [true, false, false, false, false])
    #expect(listing.foreign.isEmpty)
    let errors = listing.entries.dropFirst().map { entry -> ArchiveError? in
      if case .failure(let error) = entry.state { return error }
      return nil
    }
    #expect(
      errors[2]
        == .manifestMismatch(
          path: "tags.automerge",
          .sha256(
            expected: SHA256Digest.hexHash(Array("tagz".utf8)),
            actual: SHA256Digest.hexHash(Array("tags".utf8)))))
    #expect(errors[3] == .missingManifest)
    // inspect on its own says the same.
    #expect(
      BackupCatalog.inspect(path: listing.entries[4].path, fileSystem: folder.fs)
        == .failure(.missingManifest))
    if case .success(let contents) = BackupCatalog.inspect(
      path: AbsolutePath(good), fileSystem: folder.fs)
    {
      #expect(contents.documents == 3)
    } else {
      Issue.record("the good backup did not read back")
    }
  }

  @Test func pruneRemovesOnlyWhatNoRuleKeeps() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    let day: Int64 = 86_400
    for offset in [0, 1, 1, 2, 9] as [Int64] {  // days after t0; two on day 1
      try folder.backup(at: Self.t0 + offset * day + (offset == 1 ? 0 : 60))
    }
    try folder.scratch.write("backups/notes.txt", "mine")
    try folder.scratch.write("backups/minuta-backup-20200101-000000-migrate.tar.gz", "damaged")
    let before = folder.names()

    let dry = try BackupCatalog.prune(
      directory: folder.directory, policy: .init(daily: 2), dryRun: true, wait: 0,
      fileSystem: folder.fs, sleep: { _ in })
    #expect(folder.names() == before)
    #expect(
      dry.kept.map(\.entry.fileName) == [
        "minuta-backup-20260915-154612-merge-conflicts.tar.gz",
        "minuta-backup-20260908-154612-merge-conflicts.tar.gz",
      ])
    #expect(dry.kept.map(\.reasons) == [[.rule(.daily)], [.rule(.daily)]])
    #expect(dry.removed.count == 3)
    #expect(dry.removed.allSatisfy { $0.removal == .wouldRemove })
    #expect(dry.damaged.map(\.fileName) == ["minuta-backup-20200101-000000-migrate.tar.gz"])

    let real = try BackupCatalog.prune(
      directory: folder.directory, policy: .init(daily: 2), dryRun: false, wait: 0,
      fileSystem: folder.fs, sleep: { _ in })
    #expect(real.removed.allSatisfy { $0.removal == .removed })
    #expect(real.kept.map(\.entry.fileName) == dry.kept.map(\.entry.fileName))
    #expect(
      folder.names() == [
        ".mn-backups.lock",
        "minuta-backup-20200101-000000-migrate.tar.gz",
        "minuta-backup-20260908-154612-merge-conflicts.tar.gz",
        "minuta-backup-20260915-154612-merge-conflicts.tar.gz",
        "notes.txt",
      ])
    // Running it again removes nothing more.
    let again = try BackupCatalog.prune(
      directory: folder.directory, policy: .init(daily: 2), dryRun: false, wait: 0,
      fileSystem: folder.fs, sleep: { _ in })
    #expect(again.removed.isEmpty && again.kept.count == 2)
  }

  /// Two data folders share the backup folder: the rules count each folder's backups apart
  /// (one's newer backups never push out the other's), and `folders` limits a prune to one.
  @Test func pruneCountsEachFoldersBackupsApart() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    let other = try SampleFolder(in: folder.scratch, name: "other")
    func backup(of sample: SampleFolder, at now: Int64) throws -> String {
      let suffix = SuffixCounter()
      return URL(
        fileURLWithPath: try Backup.make(
          files: sample.files, source: sample.root, reason: "merge-conflicts",
          directory: folder.directory, dataRoots: [AbsolutePath(sample.root)], version: "1.0",
          now: now, fileSystem: folder.fs, inspect: fakeInspector, random: { suffix() }
        ).path.string
      ).lastPathComponent
    }
    let day: Int64 = 86_400
    let ours = try (0..<3).map { try backup(of: folder.sample, at: Self.t0 + $0 * day) }
    let theirs = try (3..<5).map { try backup(of: other, at: Self.t0 + $0 * day) }

    let onlyOurs = try BackupCatalog.prune(
      directory: folder.directory, policy: .init(last: 1), dryRun: false, wait: 0,
      fileSystem: folder.fs, sleep: { _ in }, folders: { $0 == folder.sample.root })
    #expect(onlyOurs.kept.map(\.entry.fileName) == [ours[2]])
    #expect(Set(onlyOurs.removed.map(\.entry.fileName)) == Set(ours[0..<2]))
    #expect(Set(folder.names()) == Set([".mn-backups.lock", ours[2]] + theirs))

    let all = try BackupCatalog.prune(
      directory: folder.directory, policy: .init(last: 1), dryRun: false, wait: 0,
      fileSystem: folder.fs, sleep: { _ in })
    // Each folder's newest is kept, newest first.
    #expect(all.kept.map(\.entry.fileName) == [theirs[1], ours[2]])
    #expect(all.removed.map(\.entry.fileName) == [theirs[0]])
  }

  @Test func pruneOfAMissingFolderDoesNothingAndCreatesNothing() throws {
    let scratch = try ArchiveScratch()
    defer { scratch.remove() }
    let report = try BackupCatalog.prune(
      directory: AbsolutePath(scratch.path + "/none"), policy: .init(last: 1), dryRun: false,
      wait: 0,
      fileSystem: LiveFileSystem(), sleep: { _ in })
    #expect(report.backups.isEmpty)
    #expect(scratch.listing().isEmpty)
  }

  @Test func aFileReplacedSinceItWasReadIsLeftInPlace() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    let path = try folder.backup(at: Self.t0)
    let listing = try BackupCatalog.list(directory: folder.directory, fileSystem: folder.fs)
    let entry = try #require(listing.entries.first)
    // Replaced by another file under the same name: another inode.
    try FileManager.default.removeItem(atPath: path)
    try folder.scratch.write(
      "backups/" + entry.fileName, folder.scratch.read("data/tags.automerge") ?? [])
    #expect(BackupCatalog.remove(entry, fileSystem: folder.fs) == .changed)
    #expect(FileManager.default.fileExists(atPath: path))
    // Replaced by a link to a file: the link is not followed, nothing is removed.
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(
      atPath: path, withDestinationPath: folder.sample.root + "/tags.automerge")
    #expect(BackupCatalog.remove(entry, fileSystem: folder.fs) == .changed)
    #expect(FileManager.default.fileExists(atPath: folder.sample.root + "/tags.automerge"))
    // Gone already.
    try FileManager.default.removeItem(atPath: path)
    #expect(BackupCatalog.remove(entry, fileSystem: folder.fs) == .changed)
  }

  @Test func pruneWaitsForAnotherPrunesLock() throws {
    let folder = try Folder()
    defer { folder.scratch.remove() }
    try folder.backup(at: Self.t0)
    try folder.backup(at: Self.t0 + 60)
    let held = try FileLock.acquire(
      file: folder.directory.appending(BackupCatalog.lockFileName), timeout: 0,
      fileSystem: folder.fs, sleep: { _ in })
    var slept = 0.0
    let error = #expect(throws: BackupCatalogError.self) {
      try BackupCatalog.prune(
        directory: folder.directory, policy: .init(last: 1), dryRun: false, wait: 0.2,
        fileSystem: folder.fs, sleep: { slept += $0 })
    }
    if case .lock(.held)? = error {
    } else {
      Issue.record("not a held lock: \(String(describing: error))")
    }
    #expect(slept >= 0.2)
    #expect(folder.names().count == 3)
    held.release()
    let report = try BackupCatalog.prune(
      directory: folder.directory, policy: .init(last: 1), dryRun: false, wait: 0,
      fileSystem: folder.fs, sleep: { _ in })
    #expect(report.removed.count == 1)
  }
}
