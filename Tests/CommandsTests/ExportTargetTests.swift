import Foundation
import Platform
import Testing

@testable import Commands

/// `mn export` refuses an output inside the data folder, deciding "inside" component by
/// component, never by a string prefix.
@Suite struct ExportTargetTests {
  /// A fresh directory holding `a/b` (the data folder) and `a/bc` (a folder beside it whose
  /// name starts with the folder's), removed afterwards.
  func withFolders(_ body: (_ base: String) throws -> Void) throws {
    let base = NSTemporaryDirectory() + "mn-export-target-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: base) }
    for folder in ["a/b", "a/bc"] {
      try FileManager.default.createDirectory(
        atPath: base + "/" + folder, withIntermediateDirectories: true)
    }
    try body(base)
  }

  @Test func anOutputBesideTheFolderWhoseNameStartsWithItsIsAllowed() throws {
    try withFolders { base in
      try ExportTarget.refuseInside(
        root: AbsolutePath(base + "/a/b"), output: AbsolutePath(base + "/a/bc/out.tar.gz"),
        LiveFileSystem())
      try ExportTarget.refuseInside(
        root: AbsolutePath(base + "/a/b"), output: AbsolutePath(base + "/a/b.tar.gz"),
        LiveFileSystem())
    }
  }

  @Test func anOutputInsideTheFolderIsRefused() throws {
    try withFolders { base in
      for output in [base + "/a/b/out.tar.gz", base + "/a/bc/../b/out.tar.gz"] {
        #expect(throws: CommandError.self) {
          try ExportTarget.refuseInside(
            root: AbsolutePath(base + "/a/b"), output: AbsolutePath(output), LiveFileSystem())
        }
      }
    }
  }
}
