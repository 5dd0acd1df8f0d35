import Archive
import AutomergeCodec
import Operations
import Platform
import Storage
import Testing

@testable import Commands

/// A verb's `exits:` lists every status it can return (mn.md §11): the statuses are taken
/// from the error types and reports its code paths surface (each type declares its own,
/// `ReportableError.statuses`; each report's order of statuses is the one `ErrorReport`
/// decides with), never written out here by hand.
@Suite struct VerbExitsTests {
  /// The writing verbs' code paths: the error types their operations throw and the reports
  /// whose statuses they return.
  static let surfaces:
    [(verb: String, errors: [any ReportableError.Type], reports: [Commands.ExitStatus])] =
      [
        (
          "watch",
          [
            ChangeNotifierError.self, LockError.self, FileSystemError.self, StorageError.self,
            ArchiveError.self, ReplaceError.self, ConflictMergeError.self, SyncProviderError.self,
            FetchError.self, ProcessError.self, BackupCatalogError.self,
          ],
          ErrorReport.conflictMergeOrder + ErrorReport.versionMergeOrder
            + [
              CommandError.noDataFolder.described.status,
              CommandError.noBackupDirectory.described.status,
            ]
        ),
        (
          "repair",
          [
            LockError.self, FileSystemError.self, StorageError.self, ArchiveError.self,
            ReplaceError.self, RepairError.self, FetchError.self,
          ],
          ErrorReport.repairOrder + [
            CommandError.noSuchDocument("").described.status,
            CommandError.noBackupDirectory.described.status,
          ]
        ),
        (
          "merge-conflicts",
          [
            LockError.self, FileSystemError.self, StorageError.self, ArchiveError.self,
            ReplaceError.self, ConflictMergeError.self, SyncProviderError.self,
          ],
          ErrorReport.conflictMergeOrder + ErrorReport.versionMergeOrder + [
            .interrupted, CommandError.noSuchDocument("").described.status,
            CommandError.noBackupDirectory.described.status,
          ]
        ),
        (
          "fetch",
          [
            LockError.self, FileSystemError.self, StorageError.self, ReplaceError.self,
            FetchError.self, ProcessError.self,
          ],
          ErrorReport.fetchOrder
        ),
        ("migrate", [LockError.self, FileSystemError.self, MigrationError.self], []),
        (
          "restore",
          [LockError.self, FileSystemError.self, ArchiveError.self, ReplaceError.self],
          [CommandError.noRestoreDestination.described.status]
        ),
      ]

  @Test(arguments: surfaces.map { $0.verb })
  func aVerbListsEveryStatusItsCodePathsCanReturn(_ verb: String) throws {
    let spec = try #require(CommandTable.commands.first { $0.name == verb })
    let surface = try #require(Self.surfaces.first { $0.verb == verb })
    var reachable: Set<Commands.ExitStatus> = [.ok, .usage]
    for type in surface.errors { reachable.formUnion(type.statuses) }
    reachable.formUnion(surface.reports)
    // The dispatcher's own: no data folder (66), and the lock held (75) for a writer.
    if spec.flags.contains(.writesStore) { reachable.formUnion([.noInput, .tempFail]) }
    let missing = reachable.subtracting(spec.exits).sorted { $0.rawValue < $1.rawValue }
    #expect(missing.isEmpty, "'\(verb)' can return \(missing.map(\.rawValue)) but does not list it")
  }

  /// Every status a verb lists is documented on its man page, with its meaning.
  @Test(arguments: surfaces.map { $0.verb })
  func everyListedStatusIsOnTheManPage(_ verb: String) throws {
    let spec = try #require(CommandTable.commands.first { $0.name == verb })
    let page = ManPageRenderer.page(for: spec, commands: CommandTable.commands)
    let exits = try #require(page.split(separator: ".Sh EXIT STATUS").last)
    for status in spec.exits {
      #expect(exits.contains(".It \(status.rawValue)\n\(status.meaning)"), "\(verb): \(status)")
    }
  }
}
