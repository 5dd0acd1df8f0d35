import Testing

@testable import Platform
@testable import TestSupport

/// The rules of `LogicalName` and `AbsolutePath`, tested here once.
@Suite struct LogicalNameTests {
  @Test(arguments: [
    "", "tags.automerge", "records/2026/03.automerge", "records", ".minuta-version",
    "a/.hidden", "...", "a/..b", "09 2.automerge", "Zo\u{EB}/\u{FFFD}",
  ])
  func normalNamesAreTaken(_ name: String) {
    #expect(LogicalName(name)?.string == name)
    #expect(LogicalName(normalizing: name)?.string == name)
  }

  @Test(arguments: [
    "/records", "records/", "records//2026", "./tags.automerge", "records/.", "..",
    "records/../tags.automerge", "a\u{0}b", "/", "//", ".", "a/./b",
  ])
  func otherNamesAreRefused(_ name: String) {
    #expect(LogicalName(name) == nil)
  }

  @Test(arguments: [
    ("records//2026/./09.automerge/", "records/2026/09.automerge"),
    ("records/2027/../2026/09.automerge", "records/2026/09.automerge"),
    ("./tags.automerge", "tags.automerge"), ("a/..", ""), (".", ""), ("a//", "a"),
    ("a/b/../../c", "c"),
  ])
  func normalizing(_ path: String, _ expected: String) {
    #expect(LogicalName(normalizing: path)?.string == expected)
  }

  @Test(arguments: ["..", "../x", "a/../../x", "records/../../x", "/etc", "/", "a\u{0}b"])
  func normalizingRefusesClimbingAbsoluteAndNUL(_ path: String) {
    #expect(LogicalName(normalizing: path) == nil)
  }

  @Test func partsOfAName() throws {
    let name = try #require(LogicalName("records/2026/03.automerge"))
    #expect(name.components == ["records", "2026", "03.automerge"])
    #expect(name.lastComponent == "03.automerge")
    #expect(name.parent?.string == "records/2026")
    #expect(name.parent?.parent?.string == "records")
    #expect(name.parent?.parent?.parent == .root)
    #expect(LogicalName.root.parent == nil)
    #expect(LogicalName.root.components.isEmpty)
    #expect(LogicalName.root.lastComponent == "")
    #expect(LogicalName.root.isRoot && !name.isRoot)
  }

  @Test func appending() {
    let year = LogicalName.root.appending("records").appending("2026")
    #expect(year.string == "records/2026")
    #expect(year.appending("09 2.automerge").string == "records/2026/09 2.automerge")
    #expect(LogicalName.root.appending("tags.automerge").string == "tags.automerge")
    // Built in one allocation, equal to the concatenation for any text (long, non-ASCII).
    let parts = ["a", "records/2026", "\u{E9}/\u{FC}", "0123456789abcdef0123", "09 2.automerge"]
    for a in parts {
      for b in parts {
        #expect(LogicalName.concatenate(a, b) == a + "/" + b)
      }
    }
  }

  @Test func resolvingALinksTarget() throws {
    let year = try #require(LogicalName("records/2026"))
    #expect(year.resolving("09.automerge")?.string == "records/2026/09.automerge")
    #expect(year.resolving("../2025/./01.automerge")?.string == "records/2025/01.automerge")
    #expect(year.resolving("../..")?.string == "")
    #expect(year.resolving("../../..") == nil)
    #expect(LogicalName.root.resolving("..") == nil)
    #expect(LogicalName.root.resolving("tags.automerge")?.string == "tags.automerge")
  }

  @Test(arguments: [
    ("tags.automerge", true), ("...", true), (".hidden", true), ("\u{FFFD}", true),
    ("", false), (".", false), ("..", false), ("a/b", false), ("/", false), ("a\u{0}", false),
  ])
  func components(_ name: String, _ isComponent: Bool) {
    #expect(LogicalName.isComponent(name) == isComponent)
  }

  @Test func insideAnotherNameComponentByComponent() throws {
    let records = try #require(LogicalName("records"))
    #expect(try #require(LogicalName("records/2026/09.automerge")).isInside(records))
    #expect(records.isInside(records))
    #expect(try !#require(LogicalName("records2/a")).isInside(records))
    #expect(try !#require(LogicalName("rec")).isInside(records))
    #expect(try #require(LogicalName("tags.automerge")).isInside(.root))
    #expect(!LogicalName.root.isInside(records))
  }

  @Test func canonicallyEquivalentSpellingsAreEqual() throws {
    // Names are compared as Strings: NFC and NFD spellings name the same thing.
    #expect(LogicalName("Zo\u{EB}/a") == LogicalName("Zoe\u{308}/a"))
  }

  @Test func invalidUTF8IsRepairedBeforeItIsAName() throws {
    // The file system wrappers make names with String(decoding:), as here.
    let repaired = String(decoding: [0x61, 0xFF, 0x62] as [UInt8], as: UTF8.self)
    #expect(LogicalName(repaired)?.string == "a\u{FFFD}b")
    #expect(LogicalName.isComponent(repaired))
  }
}

@Suite struct AbsolutePathTests {
  @Test(arguments: [
    ("a/b/../c", "/x", "/x/a/c"), ("/a//b/./c/", "/x", "/a/b/c"), ("..", "/", "/"),
    ("../../..", "/x/y", "/"), ("", "/x/", "/x"), (".", "/x", "/x"), ("b", "/x/", "/x/b"),
    ("/", "/x", "/"), ("//a///", "/x", "/a"),
  ])
  func normalizing(path: String, base: String, expected: String) {
    #expect(AbsolutePath(normalizing: path, relativeTo: AbsolutePath(base)).string == expected)
  }

  @Test func keptAsGiven() {
    #expect(AbsolutePath("/a//b/").string == "/a//b/")
    #expect(AbsolutePath("/a//b/./c/../d").normalized.string == "/a/b/d")
    #expect(AbsolutePath("/a//b/./c/../d").components == ["a", "b", "d"])
    #expect(AbsolutePath.root.components.isEmpty)
    #expect(AbsolutePath.root.normalized == .root)
  }

  @Test func appendingALogicalName() throws {
    let name = try #require(LogicalName("records/2026/09.automerge"))
    #expect(AbsolutePath("/r").appending(name).string == "/r/records/2026/09.automerge")
    #expect(AbsolutePath("/r/").appending(name).string == "/r/records/2026/09.automerge")
    #expect(AbsolutePath("/").appending(name).string == "/records/2026/09.automerge")
    #expect(AbsolutePath("/r").appending(LogicalName.root).string == "/r")
  }

  @Test func appendingARelativePath() {
    let home = AbsolutePath("/home/ada")
    #expect(home.appending("Documents/Minuta").string == "/home/ada/Documents/Minuta")
    #expect(home.appending("").string == "/home/ada")
    #expect(home.appending("/etc").string == "/etc")
    #expect(AbsolutePath("/home/ada/").appending("x").string == "/home/ada/x")
  }

  @Test(arguments: [
    ("/a/b/c", "/a/b", "c"), ("/a", "/", "a"), ("/", "/", ""), ("/a/b/", "/a/b", ""),
  ])
  func parentAndLastComponent(_ path: String, _ parent: String, _ last: String) {
    #expect(AbsolutePath(path).parent.string == parent)
    #expect(AbsolutePath(path).lastComponent == last)
  }

  @Test func logicalNamesInsideARoot() {
    let root = AbsolutePath("/r")
    #expect(
      AbsolutePath("/r/records/2026/09.automerge").logicalName(in: root)?.string
        == "records/2026/09.automerge")
    #expect(AbsolutePath("/r").logicalName(in: root) == .root)
    #expect(AbsolutePath("/rx/a").logicalName(in: root) == nil)
    #expect(AbsolutePath("/").logicalName(in: root) == nil)
    #expect(AbsolutePath("/a").logicalName(in: .root)?.string == "a")
    // Lexically, component by component.
    #expect(
      AbsolutePath("/r//x/../tags.automerge").logicalName(in: AbsolutePath("/r/"))?.string
        == "tags.automerge")
    #expect(AbsolutePath("/r/../elsewhere").logicalName(in: root) == nil)
    #expect(AbsolutePath("/Zoe\u{308}/a").logicalName(in: AbsolutePath("/Zo\u{EB}"))?.string == "a")
  }

  @Test func inside() {
    #expect(AbsolutePath("/a/b").isInside(AbsolutePath("/a")))
    #expect(AbsolutePath("/a").isInside(AbsolutePath("/a/")))
    #expect(AbsolutePath("/a").isInside(.root))
    #expect(!AbsolutePath("/ab").isInside(AbsolutePath("/a")))
    #expect(!AbsolutePath("/a").isInside(AbsolutePath("/a/b")))
  }

  @Test func componentsNotPrefixes() {
    #expect(!AbsolutePath("/a/bc").isInside(AbsolutePath("/a/b")))
    #expect(AbsolutePath("/a/b/c").isInside(AbsolutePath("/a/b")))
  }

  @Test func resolvingLinksAsFarAsThePathExists() throws {
    let scratch = try ScratchFolder()
    let fs = LiveFileSystem()
    try scratch.makeDirectory("real/sub")
    try scratch.symlink("link", to: scratch.absolute("real"))
    let real = try fs.realPath(scratch.location("real"))
    #expect(scratch.location("link/sub").resolvingLinks(fs) == real.appending("sub"))
    #expect(
      scratch.location("link/new/./deeper/").resolvingLinks(fs) == real.appending("new/deeper"))
    #expect(AbsolutePath("/").resolvingLinks(fs) == .root)
  }

  @Test func makingDirectories() throws {
    let scratch = try ScratchFolder()
    let fs = LiveFileSystem()
    let deep = AbsolutePath(scratch.absolute("a/b/c"))
    try fs.makeDirectories(deep, permissions: 0o755)
    #expect(try fs.infoFollowingLinks(deep)?.kind == .directory)
    try fs.makeDirectories(deep, permissions: 0o755)  // present: fine
    try scratch.write("file")
    #expect(throws: FileSystemError.self) {
      try fs.makeDirectories(AbsolutePath(scratch.absolute("file/x")), permissions: 0o755)
    }
  }
}
