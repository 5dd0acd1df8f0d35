import Testing

@testable import Storage
@testable import TestSupport

@Suite struct StorageErrorTests {
  @Test func messages() {
    #expect(
      StorageError.cannotReadDirectory("records/2026", .permissionDenied).description
        == "cannot read directory 'records/2026': permission denied")
    #expect(
      StorageError.outsideRoot("/etc/passwd").description
        == "'/etc/passwd' is outside the data folder")
    #expect(StorageError.noSuchFolder("/x").description == "no such data folder '/x'")
    #expect(
      StorageError.documentIsDirectory("tags.automerge").description
        == "document 'tags.automerge' is a directory")
    #expect(
      StorageError.symbolicLink("a", target: "/etc", outsideRoot: true).description
        == "'a' is a symbolic link to '/etc', outside the data folder; not followed")
    let all: [StorageError] = [
      .noSuchFolder("p"), .notADirectory("p"), .cannotReadDirectory("p", .ioError),
      .cannotReadEntry("p", .ioError),
      .documentIsDirectory("p"), .symbolicLink("p", target: "t", outsideRoot: false),
      .unsupportedFileType("p"),
      .tooDeep("p"), .equivalentNames("p", "q"), .outsideRoot("p"), .invalidPath("p"),
    ]
    for error in all {
      let text = error.description
      #expect(error.subject == "p")
      #expect(text.contains("'p'"))
      #expect(!text.hasSuffix("."))
      #expect(text.first?.isLowercase == true || text.first == "'", "\(text)")
    }
  }
}
