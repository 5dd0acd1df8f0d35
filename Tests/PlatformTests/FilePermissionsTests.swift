import Testing

@testable import Platform
@testable import TestSupport

/// `FilePermissions`: the mode bits as a set, written as the octal literal they are.
@Suite struct FilePermissionsTests {
  @Test func anOctalLiteralIsTheModeItReads() {
    let mode: FilePermissions = 0o644
    #expect(mode == [.ownerReadWrite, .groupRead, .otherRead])
    #expect(mode.rawValue == 0o644)
    #expect(mode.contains(.ownerWrite))
    #expect(!mode.contains(.groupWrite))
    #expect(FilePermissions.ownerReadWriteExecute == [.ownerRead, .ownerWrite, .ownerExecute])
  }

  @Test func itPrintsInOctalAsChmodTakesIt() {
    #expect(FilePermissions(rawValue: 0o600).description == "600")
    #expect((FilePermissions.setUserID.union(0o755)).description == "4755")
  }

  @Test func theAccessBitsLeaveOutSetIDAndSticky() {
    #expect(FilePermissions(rawValue: 0o7755).intersection(.accessBits) == 0o755)
  }

  /// The live file system reads back the mode it was given.
  @Test func theLiveFileSystemKeepsTheMode() throws {
    let scratch = try ScratchFolder()
    let fs = LiveFileSystem()
    let path = AbsolutePath(scratch.absolute("file"))
    let fd = try fs.createExclusive(path, permissions: 0o600)
    try fs.close(fd, path: path)
    try fs.setPermissions(path, [.ownerReadWrite, .groupRead])
    #expect(try fs.info(path)?.permissions == 0o640)
  }
}
