import Foundation
import Testing

@testable import Archive
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// `merge-conflicts` as one workflow (the verb's, `watch`'s and `migrate`'s): copies and
/// iCloud versions planned together, one backup of both before the first change.
@Suite struct MergeConflictsOperationTests {
  /// The month document (device 0) with a conflict copy (device 1) and an iCloud version
  /// (device 2), in a simulated iCloud Drive container.
  func folder() throws -> (SimulatedFolder, copy: String, version: SyncVersion) {
    let sim = try SimulatedFolder()
    let month = try sim.write(SimulatedFolder.month, device: 0)
    let copy = try sim.write(SimulatedFolder.copy, device: 1)
    let version = try sim.provider.addVersion(of: month, bytes: try SimulatedFolder.device(2))
    return (sim, copy, version)
  }

  func plan(_ sim: SimulatedFolder, inputs: MergeConflictsOperation.Inputs = .all) throws
    -> MergeConflictsOperation.Plan
  {
    let listing = try sim.scan()
    return try MergeConflictsOperation.plan(
      listing.documents, listing: listing, inputs: inputs, provider: sim.provider,
      fileSystem: sim.fileSystem)
  }

  /// A target that records each backup instead of writing it.
  final class Backups {
    var made: [(files: [ExportFile], reason: String)] = []
    var target: BackupTarget {
      BackupTarget { [unowned self] files, reason in
        made.append((files, reason))
        return AbsolutePath("/backups/\(made.count)-\(reason)")
      }
    }
  }

  @Test func oneBackupHoldsTheCopyAndTheVersionBeforeEitherIsMerged() throws {
    let (sim, copy, version) = try folder()
    let month = sim.path(SimulatedFolder.month)
    let plan = try plan(sim)
    #expect(plan.copies.documents.count == 1)
    #expect(plan.versions.documents.count == 1)
    let backups = Backups()
    var told: [String] = []
    var copiesDone = false
    let report = try MergeConflictsOperation.execute(
      plan, backup: .make(backups.target, reason: "merge-conflicts"), provider: sim.provider,
      fileSystem: sim.fileSystem,
      progress: { step in
        if case .backedUp(let path) = step { told.append(path.string) }
      },
      copiesMerged: { copies in
        copiesDone = true
        #expect(copies.documents.first?.copies.first?.removed == true)
      })
    #expect(copiesDone)
    #expect(backups.made.count == 1)
    #expect(backups.made.first?.reason == "merge-conflicts")
    let saved = Set(backups.made.first?.files.map(\.absolutePath.string) ?? [])
    #expect(saved == [month, copy, version.path.string])
    #expect(told == ["/backups/1-merge-conflicts"])
    #expect(report.backupPath == "/backups/1-merge-conflicts")
    #expect(report.copies.backupPath == report.versions.backupPath)
    #expect(!FileManager.default.fileExists(atPath: copy))
    #expect(report.versions.documents.first?.versions.allSatisfy(\.resolved) == true)
    #expect(sim.provider.unresolved(month).isEmpty)
    let all = try [0, 1, 2].map { try SimulatedFolder.hashes(try SimulatedFolder.device($0)) }
    #expect(try sim.hashesOnDisk(SimulatedFolder.month) == all.reduce(Set(), { $0.union($1) }))
  }

  @Test func aBackupMadeAlreadyIsUsedAndNoneIsMade() throws {
    let (sim, copy, _) = try folder()
    let report = try MergeConflictsOperation.execute(
      try plan(sim), backup: .made("/backups/both-folders"), provider: sim.provider,
      fileSystem: sim.fileSystem)
    #expect(report.copies.backupPath == "/backups/both-folders")
    #expect(report.versions.backupPath == "/backups/both-folders")
    #expect(!FileManager.default.fileExists(atPath: copy))
  }

  @Test func keepingTheCopiesBacksUpOnlyTheVersionsAndResolvesNothing() throws {
    let (sim, copy, version) = try folder()
    let month = sim.path(SimulatedFolder.month)
    let backups = Backups()
    let report = try MergeConflictsOperation.execute(
      try plan(sim), keepCopies: true, backup: .make(backups.target, reason: "merge-conflicts"),
      provider: sim.provider, fileSystem: sim.fileSystem)
    #expect(backups.made.count == 1)
    #expect(
      Set(backups.made.first?.files.map(\.absolutePath.string) ?? []) == [
        month, version.path.string,
      ])
    #expect(report.copies.backupPath == nil)
    #expect(FileManager.default.fileExists(atPath: copy))
    #expect(sim.provider.unresolved(month).count == 1)
  }

  @Test func onlyTheInputsAskedForArePlanned() throws {
    let (sim, _, _) = try folder()
    let copies = try plan(sim, inputs: .copies)
    #expect(copies.copies.documents.count == 1)
    #expect(copies.versions.documents.isEmpty)
    let versions = try plan(sim, inputs: .versions)
    #expect(versions.copies.documents.isEmpty)
    #expect(versions.versions.documents.count == 1)
  }

  @Test func anInterruptionBeforeTheFirstDocumentLeavesTheVersionsUntouched() throws {
    let (sim, copy, _) = try folder()
    let month = sim.path(SimulatedFolder.month)
    let backups = Backups()
    let report = try MergeConflictsOperation.execute(
      try plan(sim), backup: .make(backups.target, reason: "merge-conflicts"),
      provider: sim.provider, fileSystem: sim.fileSystem, isCancelled: { true })
    #expect(report.copies.interrupted)
    #expect(backups.made.isEmpty)
    #expect(report.versions.documents.first?.versions.contains(where: \.resolved) == false)
    #expect(FileManager.default.fileExists(atPath: copy))
    #expect(sim.provider.unresolved(month).count == 1)
  }
}
