import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct PlaceholderTests {
  @Test(arguments: [
    (".09.automerge.icloud", PlaceholderKind.icloud, "09.automerge"),
    ("..09.automerge.icloud", .icloud, "09.automerge"),
    (".09.automerge-tef.icloud", .icloud, "09.automerge"),
    (".tags.automerge.icloud", .icloud, "tags.automerge"),
    (".Zoe\u{308}.txt.icloud", .icloud, "Zoe\u{308}.txt"),
    ("09.automerge.nextcloud", .nextcloud, "09.automerge"),
    ("09.automerge.owncloud", .owncloud, "09.automerge"),
  ])
  func fileNames(_ fileName: String, _ kind: PlaceholderKind, _ realName: String) throws {
    let parsed = try #require(Placeholder.parseFileName(fileName))
    #expect(parsed.kind == kind)
    #expect(parsed.realName == realName)
  }

  @Test(arguments: [
    "09.automerge", "09.automerge.icloud", ".icloud", "..icloud", "...icloud", ".nextcloud",
    "x.ICLOUD",
    "09.automerge.nextcloud.txt", ".nosync",
  ])
  func notPlaceholderNames(_ fileName: String) {
    #expect(Placeholder.parseFileName(fileName) == nil)
  }

  @Test func readsTheStub() throws {
    let scratch = try ScratchFolder()
    let path = AbsolutePath(
      try scratch.write(".09.automerge.icloud", try StubBytes.stub(name: "09.automerge", size: 777))
    )
    let p = try #require(
      Placeholder.read(path: path, fileName: ".09.automerge.icloud", fileSystem: LiveFileSystem()))
    #expect(
      p == Placeholder(kind: .icloud, path: path, realName: "09.automerge", declaredSize: 777))
  }

  @Test func theStubNameWins() throws {
    let scratch = try ScratchFolder()
    let path = AbsolutePath(
      try scratch.write(
        ".a very long na.icloud", try StubBytes.stub(name: "a very long name.txt", size: 1)))
    let p = try #require(
      Placeholder.read(path: path, fileName: ".a very long na.icloud", fileSystem: LiveFileSystem())
    )
    #expect(p.realName == "a very long name.txt")
    #expect(p.stubProblem == nil)
  }

  @Test func unreadableStubsStillCount() throws {
    let scratch = try ScratchFolder()
    let fs = LiveFileSystem()
    let garbage = try scratch.write(".09.automerge.icloud", Array("not a plist".utf8))
    let g = try #require(
      Placeholder.read(
        path: AbsolutePath(garbage), fileName: ".09.automerge.icloud", fileSystem: fs))
    #expect(g.realName == "09.automerge")
    #expect(g.declaredSize == nil)
    #expect(g.stubProblem == "not a binary property list")

    let empty = try scratch.write("..10.automerge.icloud", [])
    let e = try #require(
      Placeholder.read(path: AbsolutePath(empty), fileName: "..10.automerge.icloud", fileSystem: fs)
    )
    #expect(e.realName == "10.automerge")
    #expect(e.stubProblem != nil)

    let hostile = try scratch.write(
      ".11.automerge.icloud", try StubBytes.stub(name: "../../etc/passwd", size: 5))
    let h = try #require(
      Placeholder.read(
        path: AbsolutePath(hostile), fileName: ".11.automerge.icloud", fileSystem: fs))
    #expect(h.realName == "11.automerge")
    #expect(h.declaredSize == 5)
    #expect(h.stubProblem == "invalid name in stub")

    let big = try scratch.write(
      ".12.automerge.icloud", [UInt8](repeating: 0x41, count: ICloudStub.maxSize + 1))
    let b = try #require(
      Placeholder.read(path: AbsolutePath(big), fileName: ".12.automerge.icloud", fileSystem: fs))
    #expect(b.realName == "12.automerge")
    #expect(b.stubProblem != nil)

    let missing = scratch.absolute(".13.automerge.icloud")
    let m = try #require(
      Placeholder.read(
        path: AbsolutePath(missing), fileName: ".13.automerge.icloud", fileSystem: fs))
    #expect(m.stubProblem == "no such file or directory")
  }

  @Test func virtualFilesAreNotRead() throws {
    let p = try #require(
      Placeholder.read(
        path: AbsolutePath("/nonexistent/09.automerge.nextcloud"),
        fileName: "09.automerge.nextcloud",
        fileSystem: LiveFileSystem()))
    #expect(
      p
        == Placeholder(
          kind: .nextcloud, path: AbsolutePath("/nonexistent/09.automerge.nextcloud"),
          realName: "09.automerge"))
  }

  @Test func datalessFlag() throws {
    // SF_DATALESS is told on every system, so that a simulated File Provider can set it.
    #expect(DatalessFiles.isDataless(FileInfo(kind: .regular, size: 10, flags: 0x4000_0000)))
    #expect(DatalessFiles.isDataless(FileInfo(kind: .directory, size: 0, flags: 0x4000_0001)))
    #expect(!DatalessFiles.isDataless(FileInfo(kind: .regular, size: 10)))
    #expect(!DatalessFiles.isDataless(FileInfo(kind: .regular, size: 10, flags: 0x2000_0000)))
  }
}

/// Names of any bytes: the byte-level name readers never trap, and what they return holds.
@Suite struct NameReadersOnAnyNameTests {
  @Test func randomNames() {
    var generator = SystemRandomNumberGenerator()
    let alphabet: [String] = [
      ".", "..", "icloud", "-tef", ".icloud", ".nextcloud", ".owncloud", "d", "09", "tags",
      ".automerge", " ", "(", ")", "/", "\u{0}", "é", "\u{301}", "\u{FFFD}", "x", "1",
    ]
    for _ in 0..<20_000 {
      let name = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
        alphabet.randomElement(using: &generator) ?? ""
      }.joined()
      if let (kind, realName) = Placeholder.parseFileName(name) {
        #expect(NameBytes.isValidComponent(realName), "\(name)")
        #expect(name.hasSuffix(kind == .icloud ? ".icloud" : "." + kind.rawValue), "\(name)")
      }
      for folder in [DocumentFolder.root, .year(2026), .none] {
        if let document = folder.document(named: name) {
          #expect(document.fileName == name, "\(name)")
          #expect(folder.mayHoldCopy(named: name), "\(name)")
        }
      }
      if let copy = ConflictCopy.parse(fileName: name) {
        #expect(name.utf8.starts(with: copy.canonicalName.utf8.prefix(1)), "\(name)")
      }
    }
  }
}
