import Foundation
import Testing

@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

/// macOS's privacy controls refuse a folder with `EPERM` (~/Documents, iCloud Drive, mn.md
/// §15): `watch` says which permission to grant, once, and never takes the folder for gone.
@Suite struct WatchPermissionTests {
  func reports(denying operation: FaultyFileSystem.Operation, once: Bool) throws -> [WatchReport] {
    let run = try WatchRunnerTests.Run([[], [.woken]])
    try WatchRunnerTests().fill(run.folder)
    let denied = FaultyFileSystem(failingPaths: [
      .init(operation: operation, path: run.folder.path, errno: .notPermitted)
    ])
    try run.run(WatchPolicy(quietFor: 5), once: once, fileSystem: denied)
    return run.reports
  }

  static func permissionLines(_ reports: [WatchReport]) -> [String] {
    reports.compactMap {
      if case .failed(_, let error) = $0 { return "\(error)" } else { return nil }
    }.filter { $0.contains("Privacy & Security > Files and Folders") }
  }

  static func saysGone(_ reports: [WatchReport]) -> Bool {
    reports.contains { if case .folderGone = $0 { true } else { false } }
  }

  @Test(arguments: [false, true])
  func aListingRefusedWithEPERMIsAPermissionToGrant(once: Bool) throws {
    let reports = try reports(denying: .contentsOfDirectory, once: once)
    #expect(Self.permissionLines(reports).count == 1)
    #expect(!Self.saysGone(reports))
  }

  @Test func aStatRefusedWithEPERMIsNotAFolderGone() throws {
    let reports = try reports(denying: .infoFollowingLinks, once: false)
    #expect(!Self.saysGone(reports))
    #expect(Self.permissionLines(reports).count == 1)
  }

  @Test func theMessageNamesTheSettingAndAPlainDenialDoesNot() throws {
    let denied = StorageError.privacyDenial(
      FileSystemError("open directory", "/Users/ada/Documents/Minuta", .notPermitted),
      root: AbsolutePath("/Users/ada/Documents/Minuta"))
    #expect("\(try #require(denied))".contains("Full Disk Access"))
    #expect(
      StorageError.privacyDenial(
        StorageError.cannotReadDirectory("/x", .permissionDenied), root: AbsolutePath("/x"))
        == nil)
  }
}
