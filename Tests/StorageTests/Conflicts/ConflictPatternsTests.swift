import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

/// Every example of every row, as a flat list of (row index, example) for `arguments:`.
private let allExamples: [(Int, ConflictPattern.Example)] = ConflictPatterns.all.enumerated()
  .flatMap { i, row in
    row.examples.map { (i, $0) }
  }

private let allCounterexamples: [String] = ConflictPatterns.all.flatMap(\.counterexamples)

@Suite struct ConflictPatternsTests {
  @Test(arguments: allExamples)
  func rowExampleParses(_ row: Int, _ example: ConflictPattern.Example) throws {
    let pattern = ConflictPatterns.all[row]
    let parsed = try #require(ConflictCopy.parse(fileName: example.fileName), "\(example.fileName)")
    #expect(parsed.canonicalName == example.canonicalName)
    #expect(parsed.markers.count == 1, "\(parsed.markers)")
    #expect(
      parsed.service == pattern.service,
      "\(example.fileName) matched \(parsed.service), row is \(pattern.form)")
    #expect(parsed.device == example.device)
    #expect(parsed.date == example.date)
    #expect(parsed.fileName == example.fileName)
  }

  @Test(arguments: allCounterexamples)
  func rowCounterexampleDoesNotMatch(_ name: String) {
    #expect(
      ConflictCopy.parse(fileName: name) == nil,
      "\(String(describing: ConflictCopy.parse(fileName: name)))")
  }

  @Test(arguments: [
    "09 draft.automerge", "2026 report.automerge", "tags.automerge", "09.automerge", "hello",
    "random words",
    "notes.txt", "", ".", "..", ".minuta-version", "records", "09", "(1)", " 2", " (1).automerge",
    "-DESKTOP-AB12CDE",
    ".sync-conflict-20260906-154512-ABCDEFG.automerge", "2026-09.automerge", "09.automerge.icloud",
    ".09.automerge.icloud", "09.automerge.nextcloud", "README.md", "09 (draft).automerge",
    "09 [draft].automerge", "09 (conflicted copy).automerge", "09.automerge.path3",
    "09_conflict.automerge", "09 (SFConflict ada 2026-Sept-6-15-45-12).automerge",
    "09.automerge.pathname", "09 (case clash).automerge",
  ])
  func ordinaryNamesAreNotCopies(_ name: String) {
    #expect(
      ConflictCopy.parse(fileName: name) == nil,
      "\(String(describing: ConflictCopy.parse(fileName: name)))")
  }

  @Test func everyServiceHasARowAndEveryRowHasExamples() {
    for service in ConflictService.allCases {
      #expect(ConflictPatterns.all.contains { $0.service == service }, "\(service)")
    }
    for row in ConflictPatterns.all {
      #expect(!row.examples.isEmpty, "\(row.form)")
      #expect(!row.counterexamples.isEmpty, "\(row.form)")
    }
  }

  @Test func stackedSyncthingCopies() throws {
    let name =
      "09.sync-conflict-20260906-154512-AAAAAAA.sync-conflict-20260907-101010-BBBBBBB.automerge"
    let parsed = try #require(ConflictCopy.parse(fileName: name))
    #expect(parsed.canonicalName == "09.automerge")
    #expect(parsed.markers.map(\.device) == ["BBBBBBB", "AAAAAAA"])
    #expect(parsed.markers.map(\.date) == ["2026-09-07T10:10:10", "2026-09-06T15:45:12"])
    #expect(parsed.device == "BBBBBBB")
    #expect(parsed.date == "2026-09-07T10:10:10")
  }

  @Test func stackedAcrossServices() throws {
    let a = try #require(
      ConflictCopy.parse(fileName: "09 (Ada's conflicted copy 2026-09-06) 2.automerge"))
    #expect(a.canonicalName == "09.automerge")
    #expect(a.markers.map(\.service) == [.icloud, .dropbox])
    #expect(a.service == .icloud)
    #expect(a.device == "Ada")  // the outermost marker that names one
    #expect(a.date == "2026-09-06")

    let b = try #require(ConflictCopy.parse(fileName: "tags 2.automerge.conflict1"))
    #expect(b.canonicalName == "tags.automerge")
    #expect(b.markers.map(\.service) == [.rclone, .icloud])

    let c = try #require(
      ConflictCopy.parse(fileName: "09 (1).sync-conflict-20260906-154512.automerge (Conflict ab12)")
    )
    #expect(c.canonicalName == "09.automerge")
    #expect(c.markers.map(\.service) == [.googleDrive, .syncthing, .googleDrive])

    let d = try #require(ConflictCopy.parse(fileName: "09 2 3.automerge"))
    #expect(d.canonicalName == "09.automerge")
    #expect(d.markers.count == 2)
  }

  /// bisync's pathname suffixes stack when a copy conflicts again (its documentation:
  /// `file.txt.path1.path1`, `file.txt.path1.path2`), with `--suffix-keep-extension` too.
  @Test func stackedRclonePathnames() throws {
    for (name, count) in [
      ("09.automerge.path1.path2", 2), ("09.automerge.path1.path1", 2),
      ("09.automerge..path1.path2", 2), ("09.path1.path2.automerge", 2),
      ("09.automerge.conflict1.path2", 2), ("tags.path2.automerge.path1", 2),
    ] {
      let parsed = try #require(ConflictCopy.parse(fileName: name), "\(name)")
      #expect(parsed.canonicalName == (name.hasPrefix("tags") ? "tags.automerge" : "09.automerge"))
      #expect(parsed.markers.map(\.service) == Array(repeating: .rclone, count: count), "\(name)")
    }
  }

  /// A month-name date (Seafile's Go file server) comes out in the ISO form every other row
  /// gives, the same as the numeric date of the C writer for the same moment.
  @Test func seafileMonthNameDatesAreISO() throws {
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    for (i, month) in months.enumerated() {
      for day in [1, 9, 10, 28] {
        let go = "09.automerge (SFConflict ada@example.com 2026-\(month)-\(day)-07-08-09).automerge"
        let mm = i + 1 < 10 ? "0\(i + 1)" : "\(i + 1)"
        let dd = day < 10 ? "0\(day)" : "\(day)"
        let c = "09 (SFConflict ada@example.com 2026-\(mm)-\(dd)-07-08-09).automerge"
        let a = try #require(ConflictCopy.parse(fileName: go), "\(go)")
        let b = try #require(ConflictCopy.parse(fileName: c), "\(c)")
        #expect(a.date == "2026-\(mm)-\(dd)T07:08:09")
        #expect(a.date == b.date)
        #expect(a.canonicalName == "09.automerge" && b.canonicalName == "09.automerge")
        #expect(a.service == .seafile && a.device == "ada@example.com")
      }
    }
  }

  @Test func dropboxCounterSuffixBelongsToDropbox() throws {
    let parsed = try #require(ConflictCopy.parse(fileName: "09 (Case Conflict) (1).automerge"))
    #expect(parsed.markers.map(\.service) == [.dropbox])
  }

  @Test func namesWithoutExtension() throws {
    let parsed = try #require(ConflictCopy.parse(fileName: "notes 2"))
    #expect(parsed.canonicalName == "notes")
    #expect(ConflictCopy.parse(fileName: "notes") == nil)
  }

  @Test func decomposedNamesKeepTheirBytes() throws {
    // "Zoë" decomposed (e + U+0308), as macOS may spell a Dropbox user.
    let nfd = "09 (Zoe\u{308}'s conflicted copy 2026-09-06).automerge"
    let parsed = try #require(ConflictCopy.parse(fileName: nfd))
    #expect(parsed.canonicalName == "09.automerge")
    #expect(parsed.device == "Zo\u{EB}")  // String == is canonical equivalence
    #expect(Array(parsed.device?.utf8 ?? "".utf8) == Array("Zoe\u{308}".utf8))  // bytes kept
    let nfdStem = try #require(ConflictCopy.parse(fileName: "cafe\u{301} 2.txt"))
    #expect(nfdStem.canonicalName == "caf\u{E9}.txt")
  }

  @Test func hostileNamesDoNotCrash() {
    var generator = NameGenerator(seed: 0x6d6e)
    let alphabet = Array(" ().-_[]#'’0123456789ABCDEFGconflictedcopySFsync@é".unicodeScalars)
    for _ in 0..<3000 {
      var name = ""
      for _ in 0..<Int(generator.next() % 60) {
        name.unicodeScalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
      }
      if let parsed = ConflictCopy.parse(fileName: name) {
        #expect(!parsed.canonicalName.isEmpty)
        #expect(parsed.canonicalName.utf8.count < name.utf8.count)
      }
    }
    #expect(ConflictCopy.parse(fileName: String(repeating: "(", count: 5000) + ")") == nil)
    _ = ConflictCopy.parse(fileName: String(repeating: "a-", count: 127) + "PC.automerge")
    _ = ConflictCopy.parse(fileName: "x" + String(repeating: " (1)", count: 60))
  }

  /// Many names in a row parse as they do alone (speed is for `make bench`, not a test).
  @Test func manyNames() {
    let names = (0..<10_000).map { i in
      switch i % 4 {
      case 0: return "\(i % 12 + 10).automerge"
      case 1: return "\(i % 12 + 10) 2.automerge"
      case 2: return "\(i % 12 + 10).sync-conflict-20260906-154512-ABCDEFG.automerge"
      default: return "notes_\(i).txt"
      }
    }
    let parsed = names.compactMap { ConflictCopy.parse(fileName: $0) }
    #expect(parsed.count == 5000)
    #expect(parsed.filter { $0.service == .syncthing }.count == 2500)
    #expect(parsed.allSatisfy { $0.canonicalName.hasSuffix(".automerge") && $0.markers.count == 1 })
  }
}

/// A small seeded generator (SplitMix64), so failures reproduce.
private struct NameGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The one fast reject in front of the table: the scan's (and the watcher's) check that a
/// name can be a copy of one of its folder's documents.
@Suite struct ConflictPrefilterTests {
  /// Every example that is a copy of a document passes the scan's pre-filter of its folder.
  @Test(arguments: allExamples)
  func copiesOfDocumentsPassThePrefilter(_ row: Int, _ example: ConflictPattern.Example) {
    for folder in [DocumentFolder.root, .year(2026)] {
      guard folder.document(named: example.canonicalName) != nil else { continue }
      #expect(folder.mayHoldCopy(named: example.fileName), "\(example.fileName)")
    }
  }
}

@Suite struct NameBytesTests {
  /// The one-string date and time of Syncthing and older ownCloud names: fields in range are
  /// written zero-padded; a field out of range or not digits gives nil.
  /// The word-at-a-time test finds a byte of 0x80 or more at any position, in names of every
  /// length up to 19 bytes, and none in ASCII names.
  @Test func isASCIIFindsEveryHighByte() {
    #expect(NameBytes.isASCII(""))
    for length in 1...19 {
      let plain = String(repeating: "a", count: length)
      #expect(NameBytes.isASCII(plain))
      #expect(NameBytes.isASCII(String(repeating: "\u{7F}", count: length)))
      for position in 0..<length {
        var bytes = Array(plain.utf8)
        bytes[position] = 0x80
        #expect(
          !NameBytes.isASCII(String(decoding: bytes, as: UTF8.self)), "\(position) of \(length)")
        bytes[position] = 0xC3
        bytes.insert(0xA9, at: position + 1)
        #expect(!NameBytes.isASCII(String(decoding: bytes, as: UTF8.self)), "é at \(position)")
      }
    }
  }

  /// Byte order in place is the order of the UTF-8 bytes: prefixes first, then the first
  /// differing byte, non-ASCII (NFC and NFD spellings differ) after ASCII.
  @Test func precedesByBytesIsTheOrderOfTheBytes() {
    let names = [
      "", "a", "ab", "abc", "b", "B", "records/2026/09.automerge", "records/2026/09 2.automerge",
      "records/2026/09.automerge (Conflict 1)", "caf\u{E9}", "cafe\u{301}", "\u{7F}", "\u{80}",
      "tags.automerge", "z\u{10FFFF}",
    ]
    for a in names {
      for b in names {
        #expect(
          a.precedesByBytes(b) == Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)),
          "\(a) \(b)")
      }
    }
  }

  @Test func compactDateTimeChecksEveryField() {
    func parse(_ text: String) -> String? {
      NameBytes.compactDateTime(Array(text.utf8), date: 0, time: 9)
    }
    #expect(parse("20260906-154512") == "2026-09-06T15:45:12")
    #expect(parse("00010101-000000") == "0001-01-01T00:00:00")
    #expect(parse("99991231-235960") == "9999-12-31T23:59:60")
    for bad in [
      "20261306-154512", "20260006-154512", "20260900-154512", "20260932-154512",
      "20260906-244512", "20260906-156012", "20260906-154561", "2026090x-154512",
      "20260906-15451", "2026",
    ] {
      #expect(parse(bad) == nil, "\(bad)")
    }
  }
}
