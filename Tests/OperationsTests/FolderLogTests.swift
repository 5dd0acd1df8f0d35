import Testing

@testable import AutomergeCodec
@testable import Operations
@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct FolderLogTests {
  let fs = LiveFileSystem()

  /// A folder with what `read` meets: documents, a copy with changes of its own, a copy that
  /// adds nothing, a copy and a document not downloaded, a file that is not Automerge.
  func folder() throws -> ScratchFolder {
    let s = try ScratchFolder()
    try s.write("tags.automerge", try SampleDocuments.tags)
    try s.write("tags 2.automerge", try SampleDocuments.tagsOther)
    try s.write("tags 3.automerge", try SampleDocuments.tags)
    try s.write("records/2026/09.automerge", try SampleDocuments.september)
    try s.write(
      "records/2026/.09 2.automerge.icloud", try StubBytes.stub(name: "09 2.automerge", size: 9))
    try s.write("records/2026/10.automerge", [1, 2, 3])
    try s.write(
      "records/2026/.11.automerge.icloud", try StubBytes.stub(name: "11.automerge", size: 9))
    return s
  }

  func read(_ s: ScratchFolder, threads: Int) throws -> FolderLog.Listing {
    let listing = try FolderScan.scan(root: s.location(), fileSystem: fs)
    return FolderLog.read(
      listing.documents, root: s.location(), fileSystem: fs, threads: threads)
  }

  @Test func eachCopyAddsOnlyWhatItsDocumentLacksAndProblemsAreNamed() throws {
    let s = try folder()
    let log = try read(s, threads: 1)
    let tags = Set(try AutomergeFile.decode(try SampleDocuments.tags).changes.map(\.hash))
    let other = try AutomergeFile.decode(try SampleDocuments.tagsOther).changes
    let onlyInCopy = other.filter { !tags.contains($0.hash) }
    #expect(!onlyInCopy.isEmpty)
    let fromCopy = log.entries.filter { $0.copy != nil }
    #expect(fromCopy.map(\.copy) == onlyInCopy.map { _ in "tags 2.automerge" })
    #expect(Set(fromCopy.map(\.change.hash)) == Set(onlyInCopy.map(\.hash)))
    #expect(
      log.entries.filter { $0.document == "tags.automerge" && $0.copy == nil }.count == tags.count)
    #expect(
      log.problems.map(\.file) == [
        "records/2026/09 2.automerge", "records/2026/10.automerge", "records/2026/11.automerge",
      ])
    #expect(log.problems.map(\.reason.isNotDownloaded) == [true, false, true])
  }

  @Test func theListingIsTheSameOnAnyNumberOfThreads() throws {
    let s = try folder()
    let one = try read(s, threads: 1)
    for threads in [2, 3, 8] {
      let many = try read(s, threads: threads)
      #expect(many.entries.map(\.change.hash) == one.entries.map(\.change.hash))
      #expect(many.entries.map(\.document) == one.entries.map(\.document))
      #expect(many.entries.map(\.copy) == one.entries.map(\.copy))
      #expect(many.problems == one.problems)
    }
  }

  @Test func filesAreReadInOrderWhateverTheThreads() throws {
    let s = try folder()
    let listing = try FolderScan.scan(root: s.location(), fileSystem: fs)
    // Reads: 09, 10, tags, tags 2, tags 3 (the placeholders are not read). The third fails.
    for threads in [1, 4] {
      let faulty = FaultyFileSystem(failing: .readFile, onCall: 3, with: .ioError)
      let log = FolderLog.read(
        listing.documents, root: s.location(), fileSystem: faulty, threads: threads)
      #expect(faulty.calls(.readFile) == 5)
      let failed = log.problems.filter {
        if case .cannotRead = $0.reason { return true }
        return false
      }
      #expect(failed.map(\.file) == ["tags.automerge"])
      #expect(
        log.entries.contains { $0.document == "tags.automerge" && $0.copy == "tags 2.automerge" })
    }
  }
}

extension FolderLog.Problem.Reason {
  fileprivate var isNotDownloaded: Bool {
    if case .notDownloaded = self { return true }
    return false
  }
}
