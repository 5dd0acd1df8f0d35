import Foundation
import Testing

@testable import Archive
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct FetchTests {
  let fs = LiveFileSystem()

  /// A data folder and a second copy of it (`other`), both in one scratch folder.
  struct Folders {
    let scratch: ScratchFolder
    var root: String { scratch.absolute("data") }
    var other: String { scratch.absolute("other") }

    init() throws {
      scratch = try ScratchFolder()
      try scratch.makeDirectory("data")
      try scratch.makeDirectory("other")
    }

    func write(_ rel: String, _ bytes: [UInt8]) throws { try scratch.write("data/" + rel, bytes) }
    func writeOther(_ rel: String, _ bytes: [UInt8]) throws {
      try scratch.write("other/" + rel, bytes)
    }
    func exists(_ rel: String) -> Bool { FileManager.default.fileExists(atPath: root + "/" + rel) }
    func read(_ rel: String) throws -> [UInt8] {
      Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + rel)))
    }

    func plan(_ fs: FileSystem) throws -> FetchPlan {
      FetchOperation.plan(
        root: AbsolutePath(root),
        documents: try FolderScan.scan(
          root: AbsolutePath(root), fileSystem: fs, readingStaleStubs: true
        )
        .documents)
    }
  }

  /// Commands get the process's environment (`PATH=/bin`), never only the variables mn reads.
  func context(_ clock: FakeClock, runner: FakeProcessRunner = FakeProcessRunner()) -> FetchContext
  {
    FetchContext(
      system: SystemContext(
        variables: ["HOME": "/home/mn"], fileSystem: fs, now: clock.now, sleep: clock.sleep,
        processRunner: runner, processVariables: { ["PATH": "/bin"] }))
  }

  @Test func planHasEveryPlaceholderOfDocumentsAndCopies() throws {
    let f = try Folders()
    try f.write("tags.automerge", [1])
    try f.write(".tags.automerge.icloud", try StubBytes.stub(name: "tags.automerge", size: 7))
    try f.write("records/2026/09.automerge.nextcloud", [])
    try f.write(
      "records/2026/.09 2.automerge.icloud", try StubBytes.stub(name: "09 2.automerge", size: 5))
    try f.write("records/2026/10.automerge", [1])
    try f.write("records/2026/10 2.automerge", [1])
    let plan = try f.plan(fs)
    #expect(
      plan.items.map(\.logicalName) == [
        "records/2026/09 2.automerge", "records/2026/09.automerge", "tags.automerge",
      ])
    let copy = plan.items[0]
    #expect(copy.isCopy && !copy.fileExists && copy.declaredSize == 5)
    #expect(copy.path.string == f.root + "/records/2026/09 2.automerge")
    #expect(
      copy.placeholders.map(\.path.string) == [f.root + "/records/2026/.09 2.automerge.icloud"])
    let september = plan.items[1]
    #expect(!september.isCopy && !september.fileExists && september.declaredSize == nil)
    #expect(september.placeholders.map(\.kind) == [.nextcloud])
    let tags = plan.items[2]
    #expect(tags.fileExists && tags.declaredSize == 7)
  }

  @Test func directorySourceWritesVerifiesAndRemovesTheStub() throws {
    let f = try Folders()
    let september = try SampleDocuments.september
    try f.write(
      "records/2026/.09.automerge.icloud",
      try StubBytes.stub(name: "09.automerge", size: september.count))
    try f.write("tags.automerge.owncloud", [])
    try f.writeOther("records/2026/09.automerge", september)
    try f.writeOther("tags.automerge", try SampleDocuments.tags)
    let clock = FakeClock()
    var progress: [String] = []
    var context = context(clock)
    context.progress = { done, total, item in progress.append("\(done)/\(total) \(item)") }
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context)
    #expect(report.failed == [] && report.missing == [])
    #expect(report.fetched.map(\.action) == [.fetched, .fetched])
    let first = report.fetched[0]
    #expect(first.logicalName == "records/2026/09.automerge")
    #expect(first.sizeMatches && first.declaredSize == Int64(september.count))
    #expect(first.removedPlaceholders == [f.root + "/records/2026/.09.automerge.icloud"])
    #expect(try f.read("records/2026/09.automerge") == september)
    #expect(!f.exists("records/2026/.09.automerge.icloud") && !f.exists("tags.automerge.owncloud"))
    #expect(progress == ["1/2 records/2026/09.automerge", "2/2 tags.automerge"])
    #expect(clock.sleeps == [])
    #expect(
      try FolderScan.scan(root: AbsolutePath(f.root), fileSystem: fs).documents.allSatisfy {
        $0.state == .local
      })
  }

  @Test func missingFromTheSourceKeepsTheStub() throws {
    let f = try Folders()
    try f.write("records/2026/09.automerge.nextcloud", [])
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context(FakeClock())
    )
    #expect(report.fetched == [])
    #expect(report.missing.map(\.reason) == [.notInSource])
    #expect(f.exists("records/2026/09.automerge.nextcloud"))
  }

  @Test func contentThatDoesNotDecodeIsNeverWritten() throws {
    let f = try Folders()
    try f.write("records/2026/09.automerge.nextcloud", [])
    var corrupt = try SampleDocuments.september
    corrupt[corrupt.count / 2] ^= 0xff
    try f.writeOther("records/2026/09.automerge", corrupt)
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context(FakeClock())
    )
    #expect(report.fetched == [])
    guard case .invalidContent(let origin, _) = report.failed.first?.reason else {
      Issue.record("expected invalid content, got \(report.failed)")
      return
    }
    #expect(origin == f.other + "/records/2026/09.automerge")
    #expect(!f.exists("records/2026/09.automerge"))
    #expect(f.exists("records/2026/09.automerge.nextcloud"))
    let temporaries = try FolderScan.scan(root: AbsolutePath(f.root), fileSystem: fs).temporaries
    #expect(temporaries == [])
  }

  @Test func aStalePlaceholderIsMergedNeverOverwritten() throws {
    let f = try Folders()
    let mine = try SampleDocuments.tags
    let theirs = try SampleDocuments.tagsOther
    try f.write("tags.automerge", mine)
    try f.write(".tags.automerge.icloud", try StubBytes.stub(name: "tags.automerge", size: 1))
    try f.writeOther("tags.automerge", theirs)
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context(FakeClock())
    )
    #expect(report.fetched.map(\.action) == [.merged])
    #expect(report.fetched.first?.sizeMatches == false)
    let merged = try f.read("tags.automerge")
    // The input holding more changes comes first, unchanged (mn.md §6 "Merged output").
    #expect(merged.starts(with: mine) || merged.starts(with: theirs))
    let union = try SampleDocuments.hashes(mine).union(try SampleDocuments.hashes(theirs))
    #expect(try SampleDocuments.hashes(merged) == union)
    #expect(!f.exists(".tags.automerge.icloud"))
  }

  @Test func aFileThatAppearedAfterThePlanIsMerged() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    try f.writeOther("tags.automerge", try SampleDocuments.tagsOther)
    let plan = try f.plan(fs)
    #expect(plan.items.first?.fileExists == false)
    // The sync client delivers the file between plan and write.
    try f.write("tags.automerge", try SampleDocuments.tags)
    let report = try FetchOperation.run(
      plan, source: .directory(f.scratch.location("other")), context: context(FakeClock()))
    #expect(report.fetched.map(\.action) == [.merged])
    let union = try SampleDocuments.hashes(try SampleDocuments.tags)
      .union(try SampleDocuments.hashes(try SampleDocuments.tagsOther))
    #expect(try SampleDocuments.hashes(try f.read("tags.automerge")) == union)
  }

  @Test func aFileThatHasEveryChangeIsLeftAsItIs() throws {
    let f = try Folders()
    let tags = try SampleDocuments.tags
    try f.write("tags.automerge", tags)
    try f.write("tags.automerge.nextcloud", [])
    try f.writeOther("tags.automerge", tags)
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context(FakeClock())
    )
    #expect(report.fetched.map(\.action) == [.unchanged])
    #expect(try f.read("tags.automerge") == tags)
    #expect(!f.exists("tags.automerge.nextcloud"))
  }

  @Test func aPresentFileThatDoesNotDecodeIsNotTouched() throws {
    let f = try Folders()
    try f.write("tags.automerge", [1, 2, 3])
    try f.write("tags.automerge.nextcloud", [])
    try f.writeOther("tags.automerge", try SampleDocuments.tags)
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context(FakeClock())
    )
    guard case .invalidFile = report.failed.first?.reason else {
      Issue.record("expected an invalid present file, got \(report.failed)")
      return
    }
    #expect(try f.read("tags.automerge") == [1, 2, 3])
    #expect(f.exists("tags.automerge.nextcloud"))
  }

  @Test func aWriteFailureKeepsTheStubAndLeavesNoTemporary() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    try f.writeOther("tags.automerge", try SampleDocuments.tags)
    let faulty = FaultyFileSystem(failing: .write, onCall: 1, with: .noSpace)
    var context = context(FakeClock())
    context.system.fileSystem = faulty
    let report = try FetchOperation.run(
      try f.plan(fs), source: .directory(f.scratch.location("other")), context: context)
    #expect(report.failed.first?.reason.isIOError == true)
    #expect(!f.exists("tags.automerge") && f.exists("tags.automerge.nextcloud"))
    #expect(try FolderScan.scan(root: AbsolutePath(f.root), fileSystem: fs).temporaries == [])
  }

  @Test func archiveSourceIsCheckedAgainstItsManifest() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    try f.write(
      "records/2026/.09.automerge.icloud", try StubBytes.stub(name: "09.automerge", size: 1))
    let tags = try SampleDocuments.tags
    try f.writeOther("tags.automerge", tags)
    let archive = f.scratch.absolute("export.tar.gz")
    _ = try Exporter.export(
      root: f.other,
      files: [
        ExportFile(
          relativePath: "tags.automerge",
          absolutePath: AbsolutePath(f.other).appending("tags.automerge"), kind: .document
        )
      ],
      output: .file(AbsolutePath(archive)), options: ExportOptions(format: .tarGz, version: "1"),
      now: 0,
      fileSystem: fs, inspect: DocumentTools.inspect)
    let report = try FetchOperation.run(
      try f.plan(fs), source: .archive(AbsolutePath(archive)), context: context(FakeClock()))
    #expect(report.fetched.map(\.logicalName) == ["tags.automerge"])
    #expect(report.missing.map(\.logicalName) == ["records/2026/09.automerge"])
    #expect(try f.read("tags.automerge") == tags)

    // Flip a byte of the archive: the read or the manifest check refuses it.
    var damaged = Array(try Data(contentsOf: URL(fileURLWithPath: archive)))
    damaged[damaged.count / 2] ^= 0x01
    try f.scratch.write("damaged.tar.gz", damaged)
    try f.write("records/2026/10.automerge.nextcloud", [])
    #expect(throws: ArchiveError.self) {
      _ = try FetchOperation.run(
        try f.plan(fs), source: .archive(f.scratch.location("damaged.tar.gz")),
        context: context(FakeClock()))
    }
    #expect(f.exists("records/2026/10.automerge.nextcloud"))
  }

  @Test func sourceKinds() throws {
    let f = try Folders()
    try f.scratch.write("file.tar", [1])
    #expect(
      try FetchOperation.source(
        from: f.scratch.location("other"), root: AbsolutePath(f.root), fileSystem: fs)
        == .directory(f.scratch.location("other")))
    #expect(
      try FetchOperation.source(
        from: f.scratch.location("file.tar"), root: AbsolutePath(f.root), fileSystem: fs)
        == .archive(f.scratch.location("file.tar")))
    #expect(throws: FetchError.sourceNotFound(f.scratch.absolute("nope"))) {
      try FetchOperation.source(
        from: f.scratch.location("nope"), root: AbsolutePath(f.root), fileSystem: fs)
    }
    #expect(throws: FetchError.sourceIsDataFolder(f.root + "/.")) {
      try FetchOperation.source(
        from: AbsolutePath(f.root + "/."), root: AbsolutePath(f.root), fileSystem: fs)
    }
  }

  @Test func waitsForTheSyncClientPollingEveryHalfSecond() throws {
    let f = try Folders()
    let tags = try SampleDocuments.tags
    try f.write(
      ".tags.automerge.icloud", try StubBytes.stub(name: "tags.automerge", size: tags.count))
    let clock = FakeClock()
    clock.onSleep = { time in
      if time >= 1_002, !f.exists("tags.automerge") {
        try? f.write("tags.automerge", tags)
        try? FileManager.default.removeItem(atPath: f.root + "/.tags.automerge.icloud")
      }
    }
    var requested: [AbsolutePath] = []
    var context = context(clock)
    context.requestDownload = { requested.append($0) }
    let report = try FetchOperation.run(
      try f.plan(fs), source: .sync, options: FetchOptions(timeout: 10), context: context)
    #expect(report.fetched.map(\.action) == [.downloaded])
    #expect(report.fetched.first?.sizeMatches == true)
    #expect(report.fetched.first?.removedPlaceholders == [])
    #expect(clock.sleeps == [0.5, 0.5, 0.5, 0.5])
    #expect(requested == [AbsolutePath(f.root).appending("tags.automerge")])
  }

  @Test func theTimeoutBoundsTheWait() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    try f.write("records/2026/01.automerge.nextcloud", [])
    let clock = FakeClock()
    var context = context(clock)
    context.requestDownload = { _ in throw Errno.notPermitted }
    let report = try FetchOperation.run(
      try f.plan(fs), source: .sync, options: FetchOptions(timeout: 1.2), context: context)
    #expect(report.missing.map(\.logicalName) == ["records/2026/01.automerge", "tags.automerge"])
    #expect(report.missing.allSatisfy { $0.reason == .notDownloaded })
    #expect(clock.sleeps.count == 3 && abs(clock.slept - 1.2) < 1e-9)
    #expect(report.warnings.count == 2)
    #expect(f.exists("tags.automerge.nextcloud"))
  }

  @Test func zeroTimeoutLooksOnce() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    let clock = FakeClock()
    let report = try FetchOperation.run(
      try f.plan(fs), source: .sync, options: FetchOptions(timeout: 0), context: context(clock))
    #expect(report.missing.count == 1 && clock.sleeps == [])
  }

  @Test func aPlaceholderThatVanishesIsReported() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    let clock = FakeClock()
    clock.onSleep = { _ in
      try? FileManager.default.removeItem(atPath: f.root + "/tags.automerge.nextcloud")
    }
    let report = try FetchOperation.run(
      try f.plan(fs), source: .sync, options: FetchOptions(timeout: 1), context: context(clock))
    #expect(report.missing.map(\.reason) == [.vanished])
  }

  @Test func aFileBeingWrittenIsAwaitedAndOneThatStaysBadFails() throws {
    let f = try Folders()
    let tags = try SampleDocuments.tags
    try f.write("tags.automerge.nextcloud", [])
    try f.write("records/2026/01.automerge.nextcloud", [])
    let clock = FakeClock()
    clock.onSleep = { time in
      // Half a file first, the whole file a second later; the other stays half.
      try? f.write("tags.automerge", time >= 1_001.5 ? tags : Array(tags.prefix(40)))
      try? f.write("records/2026/01.automerge", Array(tags.prefix(40)))
    }
    let report = try FetchOperation.run(
      try f.plan(fs), source: .sync, options: FetchOptions(timeout: 3), context: context(clock))
    #expect(report.fetched.map(\.logicalName) == ["tags.automerge"])
    #expect(!f.exists("tags.automerge.nextcloud"), "the stub goes once the file is verified")
    #expect(report.failed.map(\.logicalName) == ["records/2026/01.automerge"])
    #expect(f.exists("records/2026/01.automerge.nextcloud"))
  }

  @Test func aStalePlaceholderWithoutSourceIsVerifiedAndItsStubRemoved() throws {
    let f = try Folders()
    try f.write("tags.automerge", try SampleDocuments.tags)
    try f.write("tags.automerge.nextcloud", [])
    try f.write("records/2026/01.automerge", [9, 9])
    try f.write("records/2026/01.automerge.nextcloud", [])
    let clock = FakeClock()
    let report = try FetchOperation.run(try f.plan(fs), source: .sync, context: context(clock))
    #expect(report.fetched.map(\.action) == [.verified])
    #expect(report.failed.map(\.logicalName) == ["records/2026/01.automerge"])
    #expect(
      !f.exists("tags.automerge.nextcloud") && f.exists("records/2026/01.automerge.nextcloud"))
    #expect(clock.sleeps == [], "nothing to wait for")
  }

  @Test func commandsRunPerPlaceholderWithQuotedPaths() throws {
    let f = try Folders()
    try f.write(
      "records/2026/.09 2.automerge.icloud", try StubBytes.stub(name: "09 2.automerge", size: 3))
    try f.write("records/2026/09.automerge", try SampleDocuments.september)
    try f.write("tags.automerge.nextcloud", [])
    try f.write("tags.automerge", try SampleDocuments.tags)  // stale: no command for it
    try f.write("records/2025/12.automerge.nextcloud", [])
    let september = try SampleDocuments.september
    let runner = FakeProcessRunner()
    runner.behaviour = { command in
      if command.contains("12.automerge") { try? f.write("records/2025/12.automerge", september) }
      if command.contains("09 2.automerge") {
        try? f.write("records/2026/09 2.automerge", september)
      }
      return .exited(0)
    }
    let report = try FetchOperation.run(
      try f.plan(fs), source: .command("get {rel} {} # {x}"),
      context: context(FakeClock(), runner: runner))
    #expect(
      runner.commands == [
        "get 'records/2025/12.automerge' '\(f.root)/records/2025/12.automerge' # {x}",
        "get 'records/2026/09 2.automerge' '\(f.root)/records/2026/09 2.automerge' # {x}",
      ])
    #expect(runner.environments.allSatisfy { $0 == ["PATH": "/bin"] })
    #expect(report.fetched.map(\.action) == [.downloaded, .downloaded, .verified])
    #expect(report.fetched[1].sizeMatches == false)
    #expect(
      try FolderScan.scan(root: AbsolutePath(f.root), fileSystem: fs).documents.allSatisfy {
        $0.placeholders.isEmpty
      })
  }

  @Test func expansion() {
    let item = FetchItem(
      logicalName: "a {}.automerge", path: "/d/it's {rel}", placeholders: [], isCopy: false,
      fileExists: false)
    #expect(FetchRun.expand("cp {rel} {}", item) == #"cp 'a {}.automerge' '/d/it'\''s {rel}'"#)
    #expect(FetchRun.expand("brctl download", item) == #"brctl download '/d/it'\''s {rel}'"#)
    #expect(FetchRun.expand("x {{}}", item) == #"x {'/d/it'\''s {rel}'}"#)
  }

  @Test func aFailingCommandLeavesTheFileMissing() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    let runner = FakeProcessRunner()
    runner.behaviour = { _ in .exited(3) }
    let clock = FakeClock()
    let report = try FetchOperation.run(
      try f.plan(fs), source: .command("false"), options: FetchOptions(timeout: 1),
      context: context(clock, runner: runner))
    #expect(report.missing.map(\.reason) == [.commandFailed(.exited(3))])
    #expect(abs(clock.slept - 1) < 1e-9, "the file may still come")
  }

  @Test func aCommandStillRunningAtTheTimeoutIsStopped() throws {
    let f = try Folders()
    try f.write("tags.automerge.nextcloud", [])
    try f.write("records/2026/01.automerge.nextcloud", [])
    let runner = FakeProcessRunner()
    runner.behaviour = { _ in nil }
    let clock = FakeClock()
    let report = try FetchOperation.run(
      try f.plan(fs), source: .command("sleep 1000"), options: FetchOptions(timeout: 0.2),
      context: context(clock, runner: runner))
    #expect(runner.commands.count == 1, "no command starts after the deadline")
    #expect(runner.terminated.map(\.1) == [false])
    #expect(report.missing.map(\.reason) == [.commandTimedOut, .commandTimedOut])
    #expect(clock.slept < 0.3)
  }
}
