import Foundation
import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct FolderScanTests {
  let fs = LiveFileSystem()

  /// A document's copies come out sorted by logical name (bytes), whatever order the directory
  /// lists them in: they are inserted in order as they are found.
  @Test func copiesAreSortedByLogicalName() throws {
    let s = try ScratchFolder()
    try s.write("records/2026/09.automerge")
    let copies = [
      "09 2.automerge", "09 3.automerge", "09 12.automerge", "09 (1).automerge",
      "09 (Ada's conflicted copy).automerge", "09.sync-conflict-20260906-154512-ABCDEFG.automerge",
      "09.sync-conflict-20260101-000000.automerge", "09.Conflict.automerge",
      "09.automerge (Conflict a4ab3033)", "09-DESKTOP-AB12CDE.automerge",
      "09 [conflicted].automerge",
      "09 (conflicted copy 2026-09-06 154512).automerge",
    ]
    for name in copies.reversed() { try s.write("records/2026/" + name) }
    let expected = copies.map { "records/2026/" + $0 }.sorted {
      Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
    }
    for fileSystem in [fs, FaultyFileSystem(failingPaths: [])] as [any FileSystem] {
      let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fileSystem)
      #expect(listing.problems == [])
      #expect(listing.documents.map(\.logicalName) == ["records/2026/09.automerge"])
      #expect(listing.documents.first?.copies.map(\.logicalName) == expected)
    }
  }

  @Test func everyState() throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge", [1, 2, 3])
    try s.write("records/2026/01.automerge", [1])
    try s.write(
      "records/2026/.01.automerge.icloud", try StubBytes.stub(name: "01.automerge", size: 1))
    try s.write("records/2026/02.automerge.nextcloud", [])
    try s.write(
      "records/2026/.03.automerge.icloud", try StubBytes.stub(name: "03.automerge", size: 4242))
    try s.write("records/2026/04.automerge", [4, 4])
    try s.write("records/2026/04 2.automerge", [4])
    try s.write("records/2026/04.sync-conflict-20260906-154512-ABCDEFG.automerge", [4, 4, 4])
    try s.write("records/2026/05 (Ada's conflicted copy 2026-09-06).automerge", [5])
    try s.write("records/2026/06.automerge", [6])
    try s.write(
      "records/2026/.06 2.automerge.icloud", try StubBytes.stub(name: "06 2.automerge", size: 66))
    try s.write("records/2025/12.automerge.owncloud", [])
    try s.write("records/2025/12.automerge (Conflict a4ab3033)", [12])

    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    #expect(listing.problems == [])
    #expect(listing.others == [])
    let names = listing.documents.map(\.logicalName)
    #expect(
      names == [
        "records/2025/12.automerge", "records/2026/01.automerge", "records/2026/02.automerge",
        "records/2026/03.automerge", "records/2026/04.automerge", "records/2026/05.automerge",
        "records/2026/06.automerge", "tags.automerge",
      ])
    func entry(_ name: String) throws -> DocumentEntry {
      let document = try #require(DocumentName(logicalName: name))
      return try #require(listing.document(document))
    }

    let tags = try entry("tags.automerge")
    #expect(tags.state == .local)
    #expect(tags.path == s.location("tags.automerge"))
    #expect(tags.size == 3)
    #expect(tags.modificationSeconds ?? 0 > 1_000_000_000)
    #expect(tags.placeholder == nil && tags.copies.isEmpty && tags.isDownloaded)

    let jan = try entry("records/2026/01.automerge")
    #expect(jan.state == .stalePlaceholder)
    #expect(jan.path == s.location("records/2026/01.automerge"))
    #expect(jan.placeholder?.path.string == s.absolute("records/2026/.01.automerge.icloud"))
    #expect(jan.isDownloaded)

    let feb = try entry("records/2026/02.automerge")
    #expect(feb.state == .placeholder)
    #expect(feb.path == s.location("records/2026/02.automerge.nextcloud"))
    #expect(feb.placeholder?.kind == .nextcloud)
    #expect(feb.size == nil)
    #expect(feb.isNotDownloaded)

    let mar = try entry("records/2026/03.automerge")
    #expect(mar.state == .placeholder)
    #expect(mar.size == 4242)
    #expect(
      mar.placeholder
        == Placeholder(
          kind: .icloud, path: AbsolutePath(s.absolute("records/2026/.03.automerge.icloud")),
          realName: "03.automerge", declaredSize: 4242))

    let apr = try entry("records/2026/04.automerge")
    #expect(apr.state == .conflicted)
    #expect(apr.size == 2)
    #expect(
      apr.copies.map(\.logicalName) == [
        "records/2026/04 2.automerge",
        "records/2026/04.sync-conflict-20260906-154512-ABCDEFG.automerge",
      ])
    #expect(apr.copies.map(\.service) == [.icloud, .syncthing])
    #expect(apr.copies[1].device == "ABCDEFG")
    #expect(apr.copies[1].date == "2026-09-06T15:45:12")
    #expect(
      apr.copies[1].path
        == s.location("records/2026/04.sync-conflict-20260906-154512-ABCDEFG.automerge"))

    let may = try entry("records/2026/05.automerge")
    #expect(may.state == .copiesOnly)
    #expect(may.path == s.location("records/2026/05.automerge"))
    #expect(may.size == nil && may.modificationSeconds == nil)
    #expect(may.copies.first?.device == "Ada")
    #expect(may.copies.first?.date == "2026-09-06")

    let jun = try entry("records/2026/06.automerge")
    #expect(jun.state == .conflicted)
    #expect(jun.copies.count == 1)
    #expect(jun.copies.first?.placeholder?.kind == .icloud)
    #expect(jun.copies.first?.placeholder?.declaredSize == 66)
    #expect(jun.copies.first?.logicalName == "records/2026/06 2.automerge")
    #expect(jun.copies.first?.path == s.location("records/2026/.06 2.automerge.icloud"))

    let dec = try entry("records/2025/12.automerge")
    #expect(dec.state == .placeholder)
    #expect(dec.placeholder?.kind == .owncloud)
    #expect(dec.copies.first?.service == .googleDrive)
    #expect(dec.hasCopies && !dec.isDownloaded)

    #expect(
      listing.notDownloaded.map(\.logicalName) == [
        "records/2025/12.automerge", "records/2026/02.automerge", "records/2026/03.automerge",
      ])
    #expect(listing.withCopies.count == 4)

    let all = listing.select([])
    #expect(all.documents.count == 8 && all.unmatched.isEmpty)
    let some = listing.select(
      [
        "records/2025", "records/2026/04 2.automerge", "records/2026/.03.automerge.icloud",
        "tags.automerge",
        "records/2027", "records/2026/0",
      ].compactMap { LogicalName($0) })
    #expect(
      some.documents.map(\.logicalName) == [
        "records/2025/12.automerge", "records/2026/03.automerge", "records/2026/04.automerge",
        "tags.automerge",
      ])
    #expect(some.unmatched.map(\.string) == ["records/2027", "records/2026/0"])
    #expect(listing.select([.root]).documents.count == 8)
  }

  /// A name that may be a conflict copy is listed by its kind only (no lstat); one that is no
  /// copy after all is examined then, so that as an other file it still has size and time.
  @Test func namesLikeCopiesThatAreNoCopiesKeepTheirSizeAndTime() throws {
    let s = try ScratchFolder()
    try s.write("records/2026/09.automerge")
    try s.write("records/2026/09 2.automerge")
    try s.write("records/2026/09 draft.automerge", Array("draft".utf8))
    try s.write("tags 2026 notes.txt", Array("abc".utf8))
    try s.write("tags.automerge.bak", Array("abcd".utf8))
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    #expect(listing.problems == [])
    #expect(listing.documents.map(\.logicalName) == ["records/2026/09.automerge"])
    #expect(listing.documents[0].copies.map(\.logicalName) == ["records/2026/09 2.automerge"])
    let others = Dictionary(uniqueKeysWithValues: listing.others.map { ($0.logicalName, $0) })
    #expect(others.count == 3)
    #expect(others["records/2026/09 draft.automerge"]?.size == 5)
    #expect(others["tags 2026 notes.txt"]?.size == 3)
    #expect(others["tags.automerge.bak"]?.size == 4)
    let now = Int64(Date().timeIntervalSince1970)
    #expect(listing.others.allSatisfy { abs($0.modificationSeconds - now) < 600 })
  }

  /// A document's stub `.NAME.icloud` is read only when the document's file is not beside it:
  /// a stale one is kept unread (real name from its file name, size unknown). Other forms of
  /// stub are read while listing, and `readingStaleStubs` reads every stub.
  @Test func staleStubsAreNotRead() throws {
    let s = try ScratchFolder()
    try s.write("records/2026/09.automerge")
    try s.write("records/2026/.09.automerge.icloud", Array("not a property list".utf8))
    try s.write(
      "records/2026/.10.automerge.icloud", try StubBytes.stub(name: "10.automerge", size: 5))
    try s.write("records/2026/11.automerge")
    try s.write(
      "records/2026/..11.automerge.icloud", try StubBytes.stub(name: "11.automerge", size: 6))
    try s.write("tags.automerge")
    try s.write(".tags.automerge.icloud", try StubBytes.stub(name: "tags.automerge", size: 7))
    // The portable form reads through readFile: a stale stub that it read would fail.
    let failing = FaultyFileSystem(failingPaths: [
      .init(
        operation: .readFile, path: s.absolute("records/2026/.09.automerge.icloud"),
        errno: .ioError),
      .init(operation: .readFile, path: s.absolute(".tags.automerge.icloud"), errno: .ioError),
    ])
    for fileSystem in [fs, failing] as [any FileSystem] {
      let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fileSystem)
      #expect(listing.problems == [])
      func entry(_ name: String) throws -> DocumentEntry {
        try #require(listing.documents.first { $0.logicalName == name })
      }
      let sep = try entry("records/2026/09.automerge")
      #expect(sep.state == .stalePlaceholder)
      #expect(
        sep.placeholder
          == Placeholder(
            kind: .icloud, path: AbsolutePath(s.absolute("records/2026/.09.automerge.icloud")),
            realName: "09.automerge"))
      let oct = try entry("records/2026/10.automerge")
      #expect(oct.state == .placeholder)
      #expect(oct.size == 5 && oct.placeholder?.declaredSize == 5)
      #expect(oct.modificationSeconds != nil)
      let nov = try entry("records/2026/11.automerge")
      #expect(nov.state == .stalePlaceholder && nov.placeholder?.declaredSize == 6)
      let tags = try entry("tags.automerge")
      #expect(tags.state == .stalePlaceholder && tags.placeholder?.declaredSize == nil)
    }
    let all = try FolderScan.scan(
      root: AbsolutePath(s.path), fileSystem: fs, readingStaleStubs: true)
    let sep = try #require(all.documents.first { $0.logicalName == "records/2026/09.automerge" })
    #expect(sep.placeholder?.stubProblem != nil, "read, and found not to be a property list")
    #expect(
      all.documents.first { $0.logicalName == "tags.automerge" }?.placeholder?.declaredSize == 7)
  }

  @Test func othersNoSyncAndTemporaries() throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge")
    try s.write(".minuta-version", Array("1\n".utf8))
    try s.write(".minuta.writelock.nosync", [])
    try s.write("notes.txt")
    try s.write(".DS_Store")
    try s.write(".photo.jpg.icloud", try StubBytes.stub(name: "photo.jpg", size: 9))
    try s.write("records/2026/13.automerge")
    try s.write("records/2026/13 2.automerge")
    try s.write("records/26/01.automerge")
    try s.write("records/2026/sub/01.automerge")
    try s.write("records/2026/local.nosync")
    try s.write(".other.nosync.icloud", try StubBytes.stub(name: "other.nosync", size: 1))
    try s.write("cache.nosync/inside.txt")
    try s.write("records/2026/.07.automerge.mn-Ab12Cd.nosync", [1, 2])
    try s.write(".tags.automerge.mn-XyZ789.nosync", [])

    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    #expect(listing.problems == [])
    #expect(listing.documents.map(\.logicalName) == ["tags.automerge"])
    #expect(
      listing.others.map(\.logicalName) == [
        ".DS_Store", ".minuta-version", "notes.txt", "photo.jpg", "records/2026/13 2.automerge",
        "records/2026/13.automerge", "records/2026/sub/01.automerge", "records/26/01.automerge",
      ])
    let photo = try #require(listing.others.first { $0.logicalName == "photo.jpg" })
    #expect(photo.path == s.location(".photo.jpg.icloud"))
    #expect(photo.placeholder?.kind == .icloud)
    #expect(photo.size == 9)
    #expect(listing.others.first { $0.logicalName == ".minuta-version" }?.size == 2)
    #expect(
      listing.temporaries == [
        TemporaryFile(
          logicalName: ".tags.automerge.mn-XyZ789.nosync",
          path: s.location(".tags.automerge.mn-XyZ789.nosync"),
          targetLogicalName: "tags.automerge", size: 0,
          modificationSeconds: listing.temporaries[0].modificationSeconds),
        TemporaryFile(
          logicalName: "records/2026/.07.automerge.mn-Ab12Cd.nosync",
          path: s.location("records/2026/.07.automerge.mn-Ab12Cd.nosync"),
          targetLogicalName: "records/2026/07.automerge",
          size: 2, modificationSeconds: listing.temporaries[1].modificationSeconds),
      ])
  }

  @Test func symbolicLinksAreReportedNotFollowed() throws {
    let outside = try ScratchFolder()
    try outside.write("secret/01.automerge")
    let s = try ScratchFolder()
    try s.write("tags.automerge")
    try s.makeDirectory("records/2026")
    try s.symlink("records/2026/08.automerge", to: "/etc/passwd")
    try s.symlink("records/2027", to: outside.absolute("secret"))
    try s.symlink("alias", to: "tags.automerge")
    try s.symlink("records/2026/up", to: "../../..")
    try s.symlink("records/2026/back", to: "../../tags.automerge")
    try s.symlink("absolute-inside", to: s.absolute("tags.automerge"))
    try s.symlink("dangling", to: "nowhere")

    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    #expect(listing.documents.map(\.logicalName) == ["tags.automerge"])
    #expect(listing.others == [])
    #expect(
      listing.problems == [
        .symbolicLink("absolute-inside", target: s.absolute("tags.automerge"), outsideRoot: false),
        .symbolicLink("alias", target: "tags.automerge", outsideRoot: false),
        .symbolicLink("dangling", target: "nowhere", outsideRoot: false),
        .symbolicLink("records/2026/08.automerge", target: "/etc/passwd", outsideRoot: true),
        .symbolicLink("records/2026/back", target: "../../tags.automerge", outsideRoot: false),
        .symbolicLink("records/2026/up", target: "../../..", outsideRoot: true),
        .symbolicLink("records/2027", target: outside.absolute("secret"), outsideRoot: true),
      ])
  }

  @Test func rootThroughASymbolicLink() throws {
    let s = try ScratchFolder()
    try s.write("data/tags.automerge")
    try s.symlink("link", to: s.absolute("data"))
    try s.symlink("data/self", to: s.absolute("link") + "/tags.automerge")
    let listing = try FolderScan.scan(root: AbsolutePath(s.absolute("link")), fileSystem: fs)
    #expect(listing.documents.map(\.path) == [s.location("link/tags.automerge")])
    #expect(
      listing.problems == [
        .symbolicLink("self", target: s.absolute("link") + "/tags.automerge", outsideRoot: false)
      ])
  }

  @Test func documentThatIsADirectory() throws {
    let s = try ScratchFolder()
    try s.write("records/2026/09.automerge/inside.bin")
    try s.makeDirectory("tags.automerge")
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    #expect(listing.documents == [])
    #expect(listing.others.map(\.logicalName) == ["records/2026/09.automerge/inside.bin"])
    #expect(
      listing.problems == [
        .documentIsDirectory("records/2026/09.automerge"), .documentIsDirectory("tags.automerge"),
      ])
  }

  @Test func unreadableDirectory() throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge")
    try s.write("records/2025/01.automerge")
    try s.write("records/2026/01.automerge")
    s.lockOut("records/2025")
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    if runningAsRoot {
      // Permission bits do not bind root: the directory is read like any other.
      #expect(listing.problems == [])
      #expect(listing.documents.count == 3)
    } else {
      #expect(listing.problems == [.cannotReadDirectory("records/2025", .permissionDenied)])
      #expect(
        listing.problems.first?.description
          == "cannot read directory 'records/2025': permission denied")
      #expect(
        listing.documents.map(\.logicalName) == ["records/2026/01.automerge", "tags.automerge"])
    }
  }

  @Test func injectedFailures() throws {
    let s = try ScratchFolder()
    try s.write("tags.automerge")
    try s.write("records/2025/01.automerge")
    try s.write("records/2026/01.automerge")
    let failing = FaultyFileSystem(failingPaths: [
      .init(
        operation: .contentsOfDirectory, path: s.absolute("records/2025"), errno: .permissionDenied),
      .init(operation: .info, path: s.absolute("records/2026/01.automerge"), errno: .ioError),
    ])
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: failing)
    #expect(
      listing.problems == [
        .cannotReadDirectory("records/2025", .permissionDenied),
        .cannotReadEntry("records/2026/01.automerge", .ioError),
      ])
    #expect(listing.documents.map(\.logicalName) == ["tags.automerge"])

    let rootFails = FaultyFileSystem(failingPaths: [
      .init(operation: .contentsOfDirectory, path: s.path, errno: .permissionDenied)
    ])
    #expect(throws: StorageError.cannotReadDirectory(s.path, .permissionDenied)) {
      try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: rootFails)
    }
  }

  @Test func rootErrors() throws {
    let s = try ScratchFolder()
    try s.write("file")
    #expect(throws: StorageError.noSuchFolder(s.absolute("missing"))) {
      try FolderScan.scan(root: AbsolutePath(s.absolute("missing")), fileSystem: fs)
    }
    #expect(throws: StorageError.notADirectory(s.absolute("file"))) {
      try FolderScan.scan(root: AbsolutePath(s.absolute("file")), fileSystem: fs)
    }
    let empty = try FolderScan.scan(root: AbsolutePath(s.path + "/"), fileSystem: fs)
    #expect(empty.others.map(\.path) == [s.location("file")])
  }

  @Test func specialFilesAndDepth() throws {
    let s = try ScratchFolder()
    #expect(mkfifo(s.absolute("pipe"), 0o600) == 0)
    let deep = (0..<(FolderScan.maxDepth + 3)).map { "d\($0)" }.joined(separator: "/")
    try s.write(deep + "/f")
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    let tooDeep = (0...FolderScan.maxDepth).map { "d\($0)" }.joined(separator: "/")
    #expect(listing.problems == [.tooDeep(tooDeep), .unsupportedFileType("pipe")])
    #expect(listing.others == [])
  }

  @Test func decomposedNames() throws {
    let s = try ScratchFolder()
    let nfc = "caf\u{E9}.txt"
    let nfd = "cafe\u{301}.txt"
    try s.write(nfc)
    try s.write(nfd)
    try s.write("records/2026/09.automerge")
    try s.write("records/2026/09 (Zoe\u{308}'s conflicted copy 2026-09-06).automerge")
    try s.write(".Zoe\u{308}.txt.icloud", try StubBytes.stub(name: "Zo\u{EB}.txt", size: 1))
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    // Both spellings are kept (Linux can hold both), sorted by bytes (NFD "e" < NFC "é"),
    // and reported since a Mac cannot hold both.
    let others = listing.others.map(\.logicalName)
    #expect(
      others.map { Array($0.utf8) }
        == [Array("Zo\u{EB}.txt".utf8), Array(nfd.utf8), Array(nfc.utf8)].sorted {
          $0.lexicographicallyPrecedes($1)
        })
    #expect(listing.problems.count == 1)
    if case .equivalentNames(let a, let b) = listing.problems.first {
      #expect(Array(a.utf8) == Array(nfd.utf8))
      #expect(Array(b.utf8) == Array(nfc.utf8))
      #expect(a == b)  // canonically equivalent
    } else {
      Issue.record("expected equivalentNames, got \(listing.problems)")
    }
    let sep = try #require(listing.documents.first)
    #expect(sep.state == .conflicted)
    #expect(sep.copies.first?.device == "Zo\u{EB}")
  }

  @Test func theSampleFolder() throws {
    // examples/sample, next to Tests/ (see examples/README.md).
    let here = URL(fileURLWithPath: #filePath)
    let sample = here.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("examples/sample").path
    let listing = try FolderScan.scan(root: AbsolutePath(sample), fileSystem: fs)
    #expect(listing.problems == [])
    #expect(
      listing.documents.map {
        "\($0.logicalName) \($0.state.rawValue) \($0.copies.map(\.service.rawValue))"
      } == [
        "records/2026/09.automerge conflicted [\"dropbox\", \"syncthing\"]",
        "records/2026/10.automerge local []",
        "tags.automerge conflicted [\"icloud\"]",
      ])
    #expect(listing.others.map(\.logicalName) == [".minuta-version"])
  }

  /// A large folder lists correctly (its speed is measured by `make bench`, not here).
  @Test func tenThousandFiles() throws {
    let s = try ScratchFolder()
    var stubs: [String: [UInt8]] = [:]
    for month in 1...12 {
      let m = month < 10 ? "0\(month)" : "\(month)"
      stubs[m] = try StubBytes.stub(name: "\(m).automerge", size: 10)
    }
    var count = 0
    for year in 1800..<2009 {
      for month in 1...12 {
        let m = month < 10 ? "0\(month)" : "\(month)"
        let dir = "records/\(year)"
        if month == 1 { try s.makeDirectory(dir) }
        try s.writeQuickly("\(dir)/\(m).automerge", [1])
        try s.writeQuickly("\(dir)/\(m) 2.automerge", [2])
        try s.writeQuickly("\(dir)/\(m).sync-conflict-20260906-154512-ABCDEFG.automerge", [3])
        try s.writeQuickly("\(dir)/.\(m).automerge.icloud", stubs[m] ?? [])
        count += 4
      }
    }
    #expect(count >= 10_000)
    let listing = try FolderScan.scan(root: AbsolutePath(s.path), fileSystem: fs)
    #expect(listing.documents.count == count / 4)
    #expect(
      listing.documents.allSatisfy {
        $0.state == .conflicted && $0.copies.count == 2 && $0.placeholder != nil
      })
    #expect(listing.problems == [])
    // The stubs are stale (every file is there): left unread unless asked for.
    #expect(listing.documents.allSatisfy { $0.placeholder?.declaredSize == nil })
    let read = try FolderScan.scan(
      root: AbsolutePath(s.path), fileSystem: fs, readingStaleStubs: true)
    #expect(read.documents.allSatisfy { $0.placeholder?.declaredSize == 10 })
    #expect(read.documents.map(\.name) == listing.documents.map(\.name))
  }
}
