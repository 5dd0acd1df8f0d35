import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct DataFolderTests {
  let fs = LiveFileSystem()

  func resolve(_ argument: String, _ scratch: ScratchFolder, cwd: String) throws -> String {
    try DataFolder.logicalName(
      for: argument, root: AbsolutePath(scratch.absolute("root")),
      currentDirectory: AbsolutePath(cwd), fileSystem: fs
    ).string
  }

  func setUp() throws -> ScratchFolder {
    let s = try ScratchFolder()
    try s.write("root/tags.automerge")
    try s.write("root/records/2026/09.automerge")
    try s.write("root/records/2026/notes.txt")
    try s.makeDirectory("elsewhere")
    return s
  }

  @Test func logicalNamesFromOutside() throws {
    let s = try setUp()
    let cwd = s.absolute("elsewhere")
    #expect(try resolve("records/2026/09.automerge", s, cwd: cwd) == "records/2026/09.automerge")
    #expect(try resolve("records/2026/10.automerge", s, cwd: cwd) == "records/2026/10.automerge")
    #expect(
      try resolve("records//2026/./09.automerge/", s, cwd: cwd) == "records/2026/09.automerge")
    #expect(
      try resolve("records/2027/../2026/09.automerge", s, cwd: cwd) == "records/2026/09.automerge")
  }

  @Test func relativeToTheCurrentDirectory() throws {
    let s = try setUp()
    let year = s.absolute("root/records/2026")
    #expect(try resolve("09.automerge", s, cwd: year) == "records/2026/09.automerge")
    #expect(try resolve("notes.txt", s, cwd: year) == "records/2026/notes.txt")
    #expect(try resolve("./09.automerge", s, cwd: year) == "records/2026/09.automerge")
    #expect(try resolve("../../tags.automerge", s, cwd: year) == "tags.automerge")
    #expect(try resolve("..", s, cwd: year) == "records")
    #expect(try resolve(".", s, cwd: s.absolute("root")) == "")
    // Not under the current directory, but a document: the logical name wins.
    #expect(try resolve("tags.automerge", s, cwd: year) == "tags.automerge")
    #expect(try resolve("records/2026/09.automerge", s, cwd: year) == "records/2026/09.automerge")
    // Neither exists: relative to the current directory.
    #expect(try resolve("new.txt", s, cwd: year) == "records/2026/new.txt")
    #expect(
      try resolve("records/2026/09.automerge", s, cwd: s.absolute("root"))
        == "records/2026/09.automerge")
  }

  @Test func absolutePaths() throws {
    let s = try setUp()
    let cwd = s.absolute("elsewhere")
    #expect(
      try resolve(s.absolute("root/records/2026/09.automerge"), s, cwd: cwd)
        == "records/2026/09.automerge")
    #expect(try resolve(s.absolute("root"), s, cwd: cwd) == "")
    #expect(try resolve(s.absolute("root/x/../tags.automerge"), s, cwd: cwd) == "tags.automerge")
    #expect(throws: StorageError.outsideRoot("/etc/passwd")) {
      try resolve("/etc/passwd", s, cwd: cwd)
    }
    #expect(throws: StorageError.outsideRoot(s.absolute("rootx/a"))) {
      try resolve(s.absolute("rootx/a"), s, cwd: cwd)
    }
    #expect(throws: StorageError.outsideRoot(s.absolute("root/../elsewhere"))) {
      try resolve(s.absolute("root/../elsewhere"), s, cwd: cwd)
    }
  }

  @Test func outsideTheRoot() throws {
    let s = try setUp()
    #expect(throws: StorageError.outsideRoot("../x")) {
      try resolve("../x", s, cwd: s.absolute("root"))
    }
    #expect(throws: StorageError.outsideRoot("./x")) {
      try resolve("./x", s, cwd: s.absolute("elsewhere"))
    }
    #expect(throws: StorageError.outsideRoot("records/../../x")) {
      try resolve("records/../../x", s, cwd: s.absolute("elsewhere"))
    }
    #expect(throws: StorageError.invalidPath("")) { try resolve("", s, cwd: s.absolute("root")) }
    #expect(throws: StorageError.invalidPath("a\u{0}b")) {
      try resolve("a\u{0}b", s, cwd: s.absolute("root"))
    }
  }

  @Test func throughSymbolicLinks() throws {
    let s = try setUp()
    try s.symlink("link", to: s.absolute("root"))
    let viaLink = { (arg: String, cwd: String) in
      try DataFolder.logicalName(
        for: arg, root: AbsolutePath(s.absolute("link")), currentDirectory: AbsolutePath(cwd),
        fileSystem: self.fs
      ).string
    }
    // The root named through a link, the argument through the real path, and back.
    #expect(try viaLink(s.absolute("root/tags.automerge"), "/") == "tags.automerge")
    #expect(
      try resolve(s.absolute("link/records/2026/09.automerge"), s, cwd: "/")
        == "records/2026/09.automerge")
    // getcwd returns the real path.
    #expect(
      try viaLink("09.automerge", s.absolute("root/records/2026")) == "records/2026/09.automerge")
  }

  @Test func decomposedRootComponents() throws {
    let s = try ScratchFolder()
    try s.write("Zo\u{EB}/tags.automerge")
    let root = s.absolute("Zo\u{EB}")
    let nfdArgument = s.absolute("Zoe\u{308}/tags.automerge")
    let logical = try DataFolder.logicalName(
      for: nfdArgument, root: AbsolutePath(root), currentDirectory: .root, fileSystem: fs)
    #expect(logical.string == "tags.automerge")
  }

  @Test func manyArguments() throws {
    let s = try setUp()
    let out = try DataFolder.logicalNames(
      for: ["tags.automerge", s.absolute("root/records")], root: AbsolutePath(s.absolute("root")),
      currentDirectory: .root, fileSystem: fs)
    #expect(out.map(\.string) == ["tags.automerge", "records"])
  }

  @Test func anOutputIsInsideADataFolderByRealPathOrByItsMarkers() throws {
    let s = try setUp()
    try s.write("plain/records/x.automerge")
    try s.write("lookalike/.minuta-version")
    try s.write("root-test/x")
    try s.symlink("link", to: s.absolute("root"))
    let root = AbsolutePath(s.absolute("root"))
    func inside(_ rel: String, lookAlikes: Bool = true) -> String? {
      DataFolder.enclosingFolder(
        of: AbsolutePath(s.absolute(rel)), roots: [root], lookAlikes: lookAlikes, fileSystem: fs
      )?.string
    }
    #expect(inside("root/records/2026/09.automerge") == root.string)
    #expect(inside("root/records/2031/01.automerge") == root.string, "not created yet")
    #expect(inside("link/tags.automerge") == root.string, "through a link")
    #expect(inside("root") == root.string)
    #expect(inside("root-test/x") == nil, "components, not a prefix")
    #expect(inside("lookalike/records/2026/09.automerge") == s.absolute("lookalike"))
    #expect(inside("lookalike/records/2026/09.automerge", lookAlikes: false) == nil)
    #expect(inside("plain/records/y.automerge") == nil)
  }
}
