import Archive
import AutomergeCodec
import Foundation
import Platform
import Storage
import Testing

@testable import Commands
@testable import Operations

/// One error of each kind, the exit status it must get (mn.md §11), and what its message
/// starts with.
struct ReportCase: Sendable, CustomTestStringConvertible {
  var error: any Error
  var status: Commands.ExitStatus
  var message: String
  var testDescription: String { "\(error)" }

  init(_ error: any Error, _ status: Commands.ExitStatus, _ message: String = "") {
    self.error = error
    self.status = status
    self.message = message
  }
}

/// `ErrorReport` is the one place that maps errors to exit statuses: each kind of error,
/// once, with its status and message.
@Suite struct ErrorReportTests {
  static let denied = FileSystemError("open", "/d/x", .permissionDenied)
  static var jsonError: any Error {
    do {
      _ = try JSONParser.parse(Array("{".utf8))
      return CommandError.mergeIncomplete
    } catch {
      return error
    }
  }
  static let failed = FileSystemError("write", "/d/x", .ioError)

  static let commandErrors: [ReportCase] = [
    .init(CommandError.nothingToRun(verb: "doc"), .software, "'doc' has nothing to run"),
    .init(CommandError.noSuchDocument("09"), .noInput, "no such document '09'"),
    .init(CommandError.noSuchFile("a.automerge"), .noInput, "no such file 'a.automerge'"),
    .init(CommandError.noSuchArchive("b.tar"), .noInput, "no such archive 'b.tar'"),
    .init(
      CommandError.notAutomerge(name: "a", AutomergeDecodeError.badMagic(offset: 0)), .dataErr,
      "'a' is not a valid Automerge file: "),
    .init(
      CommandError.mergeIncomplete, .software,
      "the merge does not hold every input change; nothing written"),
    .init(CommandError.homeNotSet, .noInput, "HOME is not set"),
    .init(CommandError.dataFolderMissing("/m"), .noInput, "data folder '/m' does not exist"),
    .init(CommandError.noDataFolder, .noInput, "no data folder found"),
    .init(CommandError.noRestoreDestination, .noInput, "no data folder found"),
    .init(
      CommandError.confirmationUnavailable, .usage,
      "refusing to migrate without confirmation (standard input is not a terminal)"),
    .init(
      CommandError.noBackupDirectory, .cantCreate,
      "no backup directory: set MN_BACKUP_DIR or HOME"),
    .init(
      CommandError.incompleteFolder(["/r/x"]), .unavailable,
      "the data folder is incomplete: 1 file(s) not downloaded"),
    .init(
      CommandError.archiveToTerminal, .usage, "refusing to write an archive to a terminal"),
    .init(
      CommandError.archiveInsideDataFolder(root: "/r"), .cantCreate,
      "refusing to write the archive inside the data folder '/r'"),
    .init(
      CommandError.outputInsideDataFolder(path: "m.automerge", folder: "/r"), .cantCreate,
      "refusing to write 'm.automerge' inside the data folder '/r'"),
    .init(
      CommandError.outputNotWritten(FileSystemError("write", "standard output", .noSpace)),
      .ioErr, "cannot write 'standard output'"),
  ]

  static let coreErrors: [ReportCase] = [
    .init(LockError.held(path: "/r/.minuta.writelock.nosync", waited: 10), .tempFail),
    .init(LockError.fileSystem(failed), .ioErr, "cannot write '/d/x'"),
    .init(FileSystemError("open", "/x", .noSuchFileOrDirectory), .noInput),
    .init(FileSystemError("read", "/x", .notDirectory), .noInput),
    .init(FileSystemError("read", "/x", .deadlock), .unavailable),
    .init(denied, .noInput),
    .init(FileSystemError("rename", "/x", .permissionDenied), .cantCreate),
    .init(FileSystemError("create", "/x", .readOnlyFileSystem), .cantCreate),
    .init(failed, .ioErr),
    .init(BackupCatalogError.cannotList(failed), .ioErr),
    .init(BackupCatalogError.lock(.held(path: "/b/.lock", waited: 1)), .tempFail),
    .init(AutomergeDecodeError.badMagic(offset: 0), .dataErr, "invalid Automerge data: "),
    .init(AutomergeMergeError.invalidInput(index: 0, .badMagic(offset: 0)), .dataErr),
    .init(ConflictMergeError.verificationFailed(path: "/r/x"), .ioErr),
    .init(FileSystemError("read", "/r/big.automerge", .fileTooLarge), .dataErr),
    .init(FileSystemError("write", "/r/x", .fileTooLarge), .ioErr),
    .init(Errno.ioError, .ioErr),
    .init(ChangeNotifierError.systemCall("inotify_init1", .noSpace), .ioErr),
    .init(ChangeNotifierError.unsupported, .unavailable),
    .init(RepairError.verificationFailed(path: "/r/x"), .ioErr, "'/r/x' does not read back"),
    .init(ReplaceError.notRegularFile(path: "/r/x", kind: .directory), .dataErr),
    .init(ReplaceError.keepsChanging(path: "/r/x"), .tempFail),
    .init(ReplaceError.arrivalNotMergeable(path: "/r/x"), .dataErr),
    .init(SyncProviderError.failed(operation: "resolve", path: "/r/x", detail: "no"), .ioErr),
    .init(SyncProviderError.unavailable(operation: "resolve", path: "/r/x"), .unavailable),
    .init(DocumentToolsError.verificationFailed, .software),
    .init(Self.jsonError, .dataErr, "invalid JSON at byte "),
    .init(BinaryPlistError.notBinaryPlist, .dataErr, "not a binary property list"),
    .init(BinaryPlistError.truncated(offset: 9), .dataErr),
    .init(ConflictCopyProblem.notDownloaded, .unavailable),
    .init(ConflictCopyProblem.notAutomerge(.badMagic(offset: 0)), .dataErr),
    .init(ConflictCopyProblem.cannotRead(failed), .ioErr),
    .init(ConflictCopyProblem.cannotRemove(denied), .noInput),
    .init(ConflictCopyProblem.changedDuringRun, .tempFail),
    .init(VersionProblem.notAutomerge(.badMagic(offset: 0)), .dataErr),
    .init(VersionProblem.cannotRead(.unavailable(operation: "read", path: "x")), .ioErr),
    .init(VersionProblem.cannotResolve(.unavailable(operation: "resolve", path: "x")), .ioErr),
    .init(DocumentReplace.ReadFailure.absent, .noInput),
    .init(DocumentReplace.ReadFailure.notRegularFile(.directory), .dataErr),
    .init(DocumentReplace.ReadFailure.notDownloaded(failed), .unavailable),
    .init(DocumentReplace.ReadFailure.cannotRead(failed), .ioErr),
    .init(DocumentReplace.ReadFailure.notAutomerge(.badMagic(offset: 0)), .dataErr),
    .init(MaterializeError.tooManyOps(9), .dataErr, "cannot materialize the document: "),
    .init(StorageError.outsideRoot("/o"), .usage),
    .init(StorageError.invalidPath("a//b"), .usage),
    .init(StorageError.noSuchFolder("/n"), .noInput),
    .init(StorageError.notADirectory("/n"), .dataErr),
    .init(StorageError.cannotReadDirectory("/n", .permissionDenied), .dataErr),
    .init(StorageError.tooDeep("/n"), .dataErr),
    .init(FetchError.sourceNotFound("/s"), .noInput),
    .init(FetchError.sourceNotUsable("/s", "a socket"), .noInput),
    .init(FetchError.sourceIsDataFolder("/s"), .usage),
    .init(ProcessError("start", "false", .noSuchFileOrDirectory), .unavailable),
    .init(MigrationError.noDefaultFolder, .usage, "HOME is not set"),
    .init(MigrationError.nested(source: "/a", destination: "/a/b"), .usage),
    .init(MigrationError.unfinishedMigration(journal: "/j", source: "/a", requested: "/b"), .usage),
    .init(MigrationError.noSuchSource("/a"), .noInput),
    .init(MigrationError.noSuchDestination("/b"), .noInput),
    .init(MigrationError.placeholders(["/a/x"]), .unavailable),
    .init(MigrationError.unreadable([]), .dataErr),
    .init(MigrationError.conflictsRefused(["x"]), .dataErr),
    .init(MigrationError.destinationNotWritable("/b", denied), .cantCreate),
    .init(MigrationError.stepFailed(name: "x", done: 1, total: 2, underlying: failed), .ioErr),
    .init(
      MigrationError.stepFailed(
        name: "x", done: 1, total: 2, underlying: ConflictMergeError.verificationFailed(path: "x")),
      .ioErr),
    .init(MigrationError.stepFailed(name: "x", done: 0, total: 2, underlying: denied), .noInput),
    .init(MigrationError.verificationFailed("x"), .ioErr),
    .init(MigrationError.sourceChanging("x"), .tempFail),
  ]

  static let archiveErrors: [ReportCase] = [
    .init(ArchiveError.placeholdersPresent(["x"]), .unavailable),
    .init(
      ArchiveError.libraryUnavailable(library: "libarchive.so.13", detail: "gone"), .unavailable),
    .init(ArchiveError.cannotCreateOutput(path: "/o", denied), .cantCreate),
    .init(ArchiveError.backupInsideDataFolder(backupDirectory: "/r/b", root: "/r"), .cantCreate),
    .init(ArchiveError.destinationConflict(path: "x", reason: "a directory"), .cantCreate),
    .init(ArchiveError.io(failed), .ioErr),
    .init(ArchiveError.sourceChanged(path: "x"), .ioErr),
    .init(ArchiveError.writeFailed(path: "/o", detail: "full"), .ioErr),
    .init(ArchiveError.invalidExportPath("../x"), .software),
    .init(ArchiveError.unreadableDocument(path: "x", reason: "bad"), .dataErr),
    .init(ArchiveError.corruptArchive(detail: "truncated"), .dataErr),
    .init(ArchiveError.absolutePath("/x"), .dataErr),
    .init(ArchiveError.parentComponent("../x"), .dataErr),
    .init(ArchiveError.invalidPath(""), .dataErr),
    .init(ArchiveError.symbolicLink(path: "x", target: "/etc"), .dataErr),
    .init(ArchiveError.hardLink(path: "x", target: "y"), .dataErr),
    .init(ArchiveError.specialFile(path: "x"), .dataErr),
    .init(ArchiveError.duplicateEntry("x"), .dataErr),
    .init(ArchiveError.entryTooLarge(path: "x", limit: 1), .dataErr),
    .init(ArchiveError.archiveTooLarge(limit: 1), .dataErr),
    .init(ArchiveError.notUnderTopFolder("x"), .dataErr),
    .init(ArchiveError.emptyArchive, .dataErr),
    .init(ArchiveError.invalidManifest(reason: "not JSON"), .dataErr),
    .init(ArchiveError.missingManifest, .dataErr),
    .init(ArchiveError.manifestMismatch(path: "x", .missingEntry), .dataErr),
    .init(ArchiveError.mergeFailed(path: "x", reason: "bad"), .dataErr),
  ]

  @Test(arguments: commandErrors + coreErrors + archiveErrors)
  func eachKindOfErrorHasItsStatusAndAMessage(_ item: ReportCase) {
    let (status, message, _) = ErrorReport.describe(item.error)
    #expect(status == item.status)
    #expect(!message.isEmpty)
    #expect(message.hasPrefix(item.message))
  }

  @Test func aUsageErrorPointsToTheVerbsHelp() {
    #expect(
      ErrorReport.describe(UsageError(message: "unknown option '--x'", path: ["doc", "info"]))
        == (.usage, "unknown option '--x'", ["see 'mn doc info --help'"]))
    #expect(
      ErrorReport.describe(UsageError(message: "no such verb 'x'", path: [])).2 == [
        "see 'mn --help'"
      ])
  }

  /// Each error type says which statuses it gives (what a verb surfacing it lists in
  /// `exits:`): every case above gets one of them, and only a genuine bug is a 70.
  @Test(arguments: commandErrors + coreErrors + archiveErrors)
  func eachErrorTypeDeclaresTheStatusesItGives(_ item: ReportCase) throws {
    let known = try #require(item.error as? any ReportableError, "\(type(of: item.error))")
    #expect(type(of: known).statuses.contains(known.described.status))
  }

  /// Every error type declared in mn's sources conforms to `ReportableError`, so that none
  /// reaches `describe`'s "this is a bug" unmapped: a new type without a conformance fails
  /// here.
  @Test func everyErrorTypeOfMnIsReportable() throws {
    let sources = Self.packageRoot + "/Sources"
    let declared = try Self.errorTypes(under: sources)
    #expect(declared.count >= 25, "\(declared)")
    let conformances = try String(
      contentsOfFile: sources + "/Commands/Dispatch/ErrorReport+Conformances.swift",
      encoding: .utf8)
    // `CommandExit` is no failure: it carries the status of the command `mn lock` ran, and
    // the dispatcher returns it before `describe` is reached (CLI.run).
    for name in declared where name != "CommandExit" {
      #expect(
        conformances.contains("extension \(name): ReportableError")
          || conformances.contains(".\(name): ReportableError"),
        "\(name) does not conform to ReportableError")
    }
  }

  /// This package's root (Tests/CommandsTests/ErrorReportTests.swift is two levels down).
  static var packageRoot: String {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
  }

  /// The names of the types declared as `Error` in the Swift files under `directory`.
  static func errorTypes(under directory: String) throws -> [String] {
    var names: [String] = []
    let manager = FileManager.default
    guard let files = manager.enumerator(atPath: directory) else { return [] }
    for case let file as String in files where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
      for line in text.split(separator: "\n") {
        let words = line.split(whereSeparator: { " :,{".contains($0) })
        guard let kind = words.firstIndex(where: { ["enum", "struct", "class"].contains($0) }),
          kind + 1 < words.count, words[(kind + 2)...].contains("Error"),
          words[..<kind].allSatisfy({ ["public", "final", "internal"].contains($0) })
        else { continue }
        names.append(String(words[kind + 1]))
      }
    }
    return names.sorted()
  }

  @Test func anErrorOfNoKnownKindIsABug() {
    struct Unknown: Error {}
    let (status, _, details) = ErrorReport.describe(Unknown())
    #expect(status == .software)
    #expect(details == ["this is a bug in mn; please report it"])
  }

  @Test func aHeldLockSaysHowToWaitLonger() {
    let (_, message, details) = ErrorReport.describe(
      LockError.held(path: "/r/.minuta.writelock.nosync", waited: 10))
    #expect(message.hasPrefix("the data folder is locked by another writer"))
    #expect(details == ["hint: retry later, or wait longer with --wait SECONDS"])
  }

  @Test func theHintsOfVerbErrorsAreKept() {
    #expect(
      ErrorReport.describe(CommandError.noDataFolder).2 == [
        "hint: use --root PATH or MINUTA_STORAGE, or see 'mn resolve --explain'"
      ])
    #expect(
      ErrorReport.describe(MigrationError.noDefaultFolder).2 == ["hint: give --from and --to"])
    #expect(
      ErrorReport.describe(CommandError.incompleteFolder(["/r/a", "/r/b"])).2 == [
        "  /r/a", "  /r/b",
        "hint: download them first, or use --allow-placeholders to export without them",
      ])
  }

  static let fetchFailures: [(FetchFailure.Reason, Commands.ExitStatus)] = [
    (.invalidContent(origin: "/s/x", detail: "bad magic"), .dataErr),
    (.invalidFile(detail: "bad magic"), .dataErr),
    (.inTheWay("a directory"), .dataErr),
    (.ioFailed(failed), .ioErr),
    (.verificationFailed, .dataErr),
    (.changedDuringRun("replaced"), .tempFail),
  ]

  @Test(arguments: fetchFailures)
  func eachFetchFailureHasItsStatus(_ reason: FetchFailure.Reason, _ status: Commands.ExitStatus) {
    #expect(ErrorReport.status(of: reason) == status)
    var report = FetchReport()
    report.failed = [FetchFailure(logicalName: "tags.automerge", path: "/r/t", reason: reason)]
    #expect(ErrorReport.status(of: report) == status)
  }

  @Test func aDamagedBackupOrAnInvalidFileIsADataError() {
    #expect(ErrorReport.status(ofVerified: []) == .ok)
    #expect(ErrorReport.status(ofVerified: [.failure(.emptyArchive)]) == .dataErr)
    #expect(ErrorReport.status(ofVerified: [.failure(.io(Self.failed))]) == .dataErr)
    #expect(ErrorReport.status(ofCheckedFiles: 0) == .ok)
    #expect(ErrorReport.status(ofCheckedFiles: 2) == .dataErr)
  }

  @Test func aFetchIsAsBadAsItsWorstFile() {
    var report = FetchReport()
    #expect(ErrorReport.status(of: report) == .ok)
    report.missing = [FetchMissing(logicalName: "a", path: "/r/a", reason: .notDownloaded)]
    #expect(ErrorReport.status(of: report) == .unavailable)
    report.failed = [FetchFailure(logicalName: "b", path: "/r/b", reason: .verificationFailed)]
    #expect(ErrorReport.status(of: report) == .dataErr)
    report.failed.append(
      FetchFailure(logicalName: "c", path: "/r/c", reason: .ioFailed(Self.failed)))
    #expect(ErrorReport.status(of: report) == .ioErr)
  }
}
