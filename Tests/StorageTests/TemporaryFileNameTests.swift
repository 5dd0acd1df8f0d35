import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct TemporaryFileNameTests {
  @Test func roundTrip() {
    let name = TemporaryFileName.make(for: "09.automerge", token: "Ab12Cd")
    #expect(name == ".09.automerge.mn-Ab12Cd.nosync")
    #expect(TemporaryFileName.target(of: name) == "09.automerge")
    #expect(DataFolder.isNoSync(name))
  }

  @Test(arguments: [
    ".09.automerge.mn-Ab12C.nosync", ".09.automerge.mn-Ab12Cde.nosync",
    ".09.automerge.mn-Ab-2Cd.nosync",
    "09.automerge.mn-Ab12Cd.nosync", "..mn-Ab12Cd.nosync", ".09.automerge.mn-Ab12Cd",
    ".minuta.writelock.nosync",
    ".mn-Ab12Cd.nosync",
  ])
  func notTemporaries(_ name: String) {
    #expect(TemporaryFileName.target(of: name) == nil)
  }

  @Test func layout() {
    #expect(DataFolder.isNoSync(DataFolder.lockFileName))
    #expect(!DataFolder.isNoSync(DataFolder.versionFileName))
    #expect(DataFolder.lockPath(root: AbsolutePath("/r")).string == "/r/.minuta.writelock.nosync")
  }
}
