import Platform
import Testing

@testable import Storage
@testable import TestSupport

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
    #expect(sep.path(root: AbsolutePath("/r")) == AbsolutePath("/r/records/2026/09.automerge"))
    #expect(sep.path(root: .root) == AbsolutePath("/records/2026/09.automerge"))
    #expect(DocumentName.month(year: 2026, month: 13) == nil)
    #expect(DocumentName.month(year: 10000, month: 1) == nil)
    #expect(DocumentName.tags.directory == "")
    let oct = try #require(DocumentName.month(year: 2026, month: 10))
    let jan = try #require(DocumentName.month(year: 2027, month: 1))
    #expect([DocumentName.tags, jan, oct, sep].sorted() == [sep, oct, jan, .tags])
  }

  /// The order is the byte order of the logical names, for every pair of a varied set.
  @Test func orderIsTheLogicalNamesByteOrder() throws {
    var names = [DocumentName.tags]
    for year in [0, 9, 10, 999, 1000, 2025, 2026, 9999] {
      for month in [1, 2, 9, 10, 12] {
        names.append(try #require(.month(year: year, month: month)))
      }
    }
    for a in names {
      for b in names {
        #expect((a < b) == a.logicalName.utf8.lexicographicallyPrecedes(b.logicalName.utf8))
      }
    }
  }
}

@Suite struct DocumentFolderTests {
  /// `DocumentFolder` answers as parsing the joined logical name does, for every pair.
  @Test func agreesWithTheLogicalNameParser() {
    let directories = [
      "", "records", "records/2026", "records/0000", "records/9999", "records/202", "records/20261",
      "records/20a6", "Records/2026", "records/2026/09", "x/records/2026", "tags",
    ]
    let names = [
      "tags.automerge", "09.automerge", "01.automerge", "12.automerge", "00.automerge",
      "13.automerge", "9.automerge", "009.automerge", "09.automerg", "09.automergE",
      "09.automerge.icloud", "09 2.automerge", "tags.automerge ", "TAGS.automerge", "",
      "records", "é9.automerge", "09.autómerge",
    ]
    for directory in directories {
      let folder = DocumentFolder(logicalPath: directory)
      for name in names {
        let joined = directory.isEmpty ? name : directory + "/" + name
        #expect(folder.document(named: name) == DocumentName(logicalName: joined), "\(joined)")
        #expect(
          DocumentName(directory: directory, fileName: name) == DocumentName(logicalName: joined))
      }
    }
  }

  /// The scan groups a folder's files by document index: each index in `0..<documentCount`
  /// is one document, whose file name gives that index back, and no other index has one.
  @Test func indicesNameEachDocumentOnce() throws {
    for folder in [DocumentFolder.root, .year(2026), .year(0), .none] {
      var seen: Set<DocumentName> = []
      for index in 0..<folder.documentCount {
        let document = try #require(folder.document(at: index))
        #expect(folder.documentIndex(named: document.fileName) == index)
        #expect(seen.insert(document).inserted)
      }
      #expect(folder.document(at: folder.documentCount) == nil)
      #expect(folder.document(at: -1) == nil)
    }
    #expect(DocumentFolder.year(2026).documentCount == 12)
    #expect(DocumentFolder.root.documentCount == 1)
    #expect(DocumentFolder.none.documentCount == 0)
  }

  /// A plain stub `.NAME.icloud` stands for the document NAME of its folder: the same answer
  /// as parsing the stub's name and asking for the real name's document, with the real name
  /// exactly the one between the dot and `.icloud` (the `..NAME` and `-tef` forms stand for
  /// none).
  @Test func stubIndicesAgreeWithParsedStubNames() {
    let inner = [
      "09.automerge", "tags.automerge", "13.automerge", "9.automerge", "09.automerge-tef",
      ".09.automerge", "09.Automerge", "", "x", "tags.automerge-tef", "01.automerge.icloud",
    ]
    var names = inner.flatMap { ["." + $0 + ".icloud", $0 + ".icloud", "." + $0, $0] }
    names += [".icloud", "..icloud", ".09.automerge.iCloud", ".09.automerge.icloud "]
    for folder in [DocumentFolder.root, .year(2026), .none] {
      for name in names {
        var expected: Int?
        if let (kind, realName) = Placeholder.parseFileName(name), kind == .icloud,
          name.utf8.count == realName.utf8.count + 8
        {
          expected = folder.documentIndex(named: realName)
        }
        #expect(folder.documentIndex(ofStub: name) == expected, "\(folder) \(name)")
      }
    }
    #expect(DocumentFolder.year(2026).documentIndex(ofStub: ".09.automerge.icloud") == 8)
    #expect(DocumentFolder.root.documentIndex(ofStub: ".tags.automerge.icloud") == 0)
    #expect(DocumentFolder.year(2026).documentIndex(ofStub: "..09.automerge.icloud") == nil)
    #expect(DocumentFolder.year(2026).documentIndex(ofStub: ".09.automerge-tef.icloud") == nil)
  }

  @Test func monthNamesAreSpelledInFull() throws {
    #expect(DocumentName.month(year: 7, month: 3)?.logicalName == "records/0007/03.automerge")
    #expect(DocumentName.month(year: 2026, month: 12)?.logicalName == "records/2026/12.automerge")
    #expect(DocumentName.month(year: 10000, month: 1) == nil)
    #expect(DocumentName.month(year: 2026, month: 0) == nil)
  }

  @Test func copyPrefilter() {
    #expect(DocumentFolder.root.mayHoldCopy(named: "tags 2.automerge"))
    #expect(!DocumentFolder.root.mayHoldCopy(named: "09 2.automerge"))
    #expect(DocumentFolder.year(2026).mayHoldCopy(named: "09 2.automerge"))
    #expect(!DocumentFolder.year(2026).mayHoldCopy(named: "13 2.automerge"))
    #expect(!DocumentFolder.year(2026).mayHoldCopy(named: "tags 2.automerge"))
    #expect(!DocumentFolder.none.mayHoldCopy(named: "09 2.automerge"))
  }
}
