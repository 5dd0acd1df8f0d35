import Testing

@testable import Core

@Suite struct DocumentNameTests {
  @Test(arguments: [
    "tags.automerge", "records/2026/09.automerge", "records/0000/01.automerge",
    "records/9999/12.automerge",
  ])
  func valid(_ name: String) throws {
    let parsed = try #require(DocumentName(logicalName: name))
    #expect(parsed.logicalName == name)
    #expect(DocumentName(directory: parsed.directory, fileName: parsed.fileName) == parsed)
  }

  @Test(arguments: [
    "", "tags", "Tags.automerge", "tags.automerge/", "./tags.automerge", "/tags.automerge",
    "records/2026/13.automerge",
    "records/2026/00.automerge", "records/2026/9.automerge", "records/26/09.automerge",
    "records/20266/09.automerge",
    "records/2026/09.automerge.icloud", "records/2026/sub/09.automerge",
    "records//2026/09.automerge",
    "Records/2026/09.automerge", "records/2026/09.Automerge", "records/2O26/09.automerge",
    "records/２０２６/09.automerge",
    "records/2026/09 2.automerge", "09.automerge", "records/2026/09.automerge ",
  ])
  func invalid(_ name: String) {
    #expect(DocumentName(logicalName: name) == nil)
  }

  @Test func monthsAndOrder() throws {
    let sep = try #require(DocumentName.month(year: 2026, month: 9))
    #expect(sep.logicalName == "records/2026/09.automerge")
    #expect(sep.kind == .month(year: 2026, month: 9))
    #expect(sep.directory == "records/2026")
    #expect(sep.fileName == "09.automerge")
    #expect(sep.path(root: "/r") == "/r/records/2026/09.automerge")
    #expect(sep.path(root: "/") == "/records/2026/09.automerge")
    #expect(DocumentName.month(year: 2026, month: 13) == nil)
    #expect(DocumentName.month(year: 10000, month: 1) == nil)
    #expect(DocumentName.tags.directory == "")
    let oct = try #require(DocumentName.month(year: 2026, month: 10))
    let jan = try #require(DocumentName.month(year: 2027, month: 1))
    #expect([DocumentName.tags, jan, oct, sep].sorted() == [sep, oct, jan, .tags])
  }
}
