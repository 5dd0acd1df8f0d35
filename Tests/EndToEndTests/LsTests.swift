import Foundation
import Testing

/// `mn ls` run as a user runs it (mn.md §3).
@Suite struct LsTests {
  /// A data folder `data` with one document in every state, other files and a local-only one.
  static func folder() throws -> Sandbox {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    try box.write("data/tags.automerge", try Sandbox.tags)
    try box.write("data/records/2026/01.automerge", try Sandbox.september)
    try box.writeICloudStub(for: "data/records/2026/01.automerge", size: 1)
    try box.write("data/records/2026/02.automerge.nextcloud", Data())
    try box.writeICloudStub(for: "data/records/2026/03.automerge", size: 4242)
    try box.write("data/records/2026/04.automerge", try Sandbox.september)
    try box.write("data/records/2026/04 2.automerge", try Sandbox.september)
    try box.write(
      "data/records/2026/04.sync-conflict-20260906-154512-ABCDEFG.automerge", Data([4, 4, 4]))
    try box.write("data/records/2026/05 (Ada's conflicted copy 2026-09-06).automerge", Data([5]))
    try box.write("data/records/2026/06.automerge.owncloud", Data())
    try box.write("data/.minuta-version", "1\n")
    try box.write("data/notes.txt", "hello\n")
    try box.write("data/local.nosync", "mine\n")
    try box.write("data/records/2026/.04.automerge.mn-abc123.nosync", Data([1]))
    return box
  }

  static let allNames = [
    "records/2026/01.automerge", "records/2026/02.automerge", "records/2026/03.automerge",
    "records/2026/04.automerge", "records/2026/05.automerge", "records/2026/06.automerge",
    "tags.automerge",
  ]

  func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

  @Test func plainListsEveryDocumentSorted() throws {
    let box = try Self.folder()
    let r = try box.run(["ls"])
    #expect(r.status == 0)
    #expect(lines(r.stdout) == Self.allNames)
    #expect(r.stderr.isEmpty)
  }

  @Test func longShowsStateSizeTimeAndCopies() throws {
    let box = try Self.folder()
    try box.touch("data/tags.automerge", 1_788_336_607)
    try box.touch("data/records/2026/04.automerge", 1_788_336_607)
    try box.touch("data/records/2026/.03.automerge.icloud", 1_788_000_000)
    let r = try box.run(["ls", "--long"])
    #expect(r.status == 0)
    let out = lines(r.stdout)
    let size = try Sandbox.september.count
    let tagsSize = try Sandbox.tags.count
    #expect(out.count == 7)
    #expect(
      out[2] == "placeholder             4242  2026-08-29 10:40   -  records/2026/03.automerge")
    #expect(
      out[3] == "conflicted" + String(repeating: " ", count: 18 - 10 + 10 - String(size).count)
        + "\(size)  2026-09-02 08:10   2  records/2026/04.automerge")
    #expect(
      out[6] == "local" + String(repeating: " ", count: 18 - 5 + 10 - String(tagsSize).count)
        + "\(tagsSize)  2026-09-02 08:10   -  tags.automerge")
    let states = out.map { String($0.prefix(18)).trimmingCharacters(in: .whitespaces) }
    #expect(
      states == [
        "stale-placeholder", "placeholder", "placeholder", "conflicted", "copies-only",
        "placeholder", "local",
      ])
    #expect(out[1].contains("         -  "), "a nextcloud placeholder declares no size")
    #expect(out[4].hasSuffix("         -  -                  1  records/2026/05.automerge"))
  }

  @Test func jsonHasEveryField() throws {
    let box = try Self.folder()
    let r = try box.run(["ls", "--json"])
    #expect(r.status == 0)
    let entries = try #require(try Sandbox.json(r) as? [[String: Any]])
    #expect(entries.map { $0["name"] as? String } == Self.allNames)
    func entry(_ name: String) throws -> [String: Any] {
      try #require(entries.first { $0["name"] as? String == name })
    }
    let data = box.path("data")

    let stale = try entry("records/2026/01.automerge")
    #expect(stale["state"] as? String == "stale-placeholder")
    #expect(stale["path"] as? String == data + "/records/2026/01.automerge")
    #expect(stale["size"] as? Int == (try Sandbox.september.count))
    let stalePlaceholder = try #require(stale["placeholder"] as? [String: Any])
    #expect(stalePlaceholder["kind"] as? String == "icloud")
    #expect(stalePlaceholder["path"] as? String == data + "/records/2026/.01.automerge.icloud")
    // A stale stub is not read: the size it declares is not known (the file's is).
    #expect(stalePlaceholder["declaredSize"] == nil)

    let nextcloud = try entry("records/2026/02.automerge")
    #expect(nextcloud["state"] as? String == "placeholder")
    #expect(nextcloud["path"] as? String == data + "/records/2026/02.automerge.nextcloud")
    #expect(nextcloud["size"] is NSNull)
    let nextcloudPlaceholder = try #require(nextcloud["placeholder"] as? [String: Any])
    #expect(nextcloudPlaceholder["kind"] as? String == "nextcloud")
    #expect(nextcloudPlaceholder["declaredSize"] == nil)

    let icloud = try entry("records/2026/03.automerge")
    #expect(icloud["size"] as? Int == 4242)
    #expect((icloud["placeholder"] as? [String: Any])?["declaredSize"] as? Int == 4242)
    #expect(icloud["copies"] == nil)

    let conflicted = try entry("records/2026/04.automerge")
    #expect(conflicted["state"] as? String == "conflicted")
    #expect(conflicted["placeholder"] == nil)
    let copies = try #require(conflicted["copies"] as? [[String: Any]])
    #expect(copies.count == 2)
    #expect(copies[0]["path"] as? String == data + "/records/2026/04 2.automerge")
    #expect(copies[0]["service"] as? String == "icloud")
    #expect(copies[0]["device"] == nil && copies[0]["date"] == nil)
    #expect(copies[1]["service"] as? String == "syncthing")
    #expect(copies[1]["device"] as? String == "ABCDEFG")
    #expect(copies[1]["date"] as? String == "2026-09-06T15:45:12")

    let copiesOnly = try entry("records/2026/05.automerge")
    #expect(copiesOnly["state"] as? String == "copies-only")
    #expect(copiesOnly["path"] as? String == data + "/records/2026/05.automerge")
    let dropbox = try #require((copiesOnly["copies"] as? [[String: Any]])?.first)
    #expect(dropbox["service"] as? String == "dropbox")
    #expect(dropbox["device"] as? String == "Ada")
    #expect(dropbox["date"] as? String == "2026-09-06")

    #expect(
      (try entry("records/2026/06.automerge")["placeholder"] as? [String: Any])?["kind"] as? String
        == "owncloud")
    #expect(try entry("tags.automerge")["state"] as? String == "local")
  }

  /// Copies named as Nextcloud, Seafile and rclone bisync name them are listed with what
  /// their names say; look-alikes beside them are other files (mn.md §3).
  @Test func jsonSaysWhatEachServicesNameSays() throws {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    let copies: [(name: String, service: String, device: String?, date: String?)] = [
      (
        "07 (conflicted copy Grace Hopper 2026-09-06 154512).automerge", "nextcloud",
        "Grace Hopper", "2026-09-06T15:45:12"
      ),
      ("07 (case clash from 2026-09-06 154512).automerge", "nextcloud", nil, "2026-09-06T15:45:12"),
      ("07_conflict-20260906-154512.automerge", "nextcloud", nil, "2026-09-06T15:45:12"),
      (
        "08.automerge (SFConflict ada@example.com 2026-Sep-6-15-45-12).automerge", "seafile",
        "ada@example.com", "2026-09-06T15:45:12"
      ),
      (
        "08 (SFConflict Ada Lovelace 2026-09-07-08-09-10).automerge", "seafile", "Ada Lovelace",
        "2026-09-07T08:09:10"
      ),
      ("09.automerge.path1", "rclone", nil, nil),
      ("09.automerge.path1.path2", "rclone", nil, nil),
      ("09.path2.automerge", "rclone", nil, nil),
    ]
    try box.write("data/records/2026/07.automerge", try Sandbox.september)
    for copy in copies {
      try box.write("data/records/2026/\(copy.name)", try Sandbox.september)
    }
    let lookAlikes = [
      "07 (conflicted copy).automerge", "08 (SFConflict ada 2026-Sept-6-15-45-12).automerge",
      "09.automerge.path3", "09_conflict.automerge",
    ]
    for name in lookAlikes { try box.write("data/records/2026/\(name)", Data([1])) }

    let r = try box.run(["ls", "--json"])
    #expect(r.status == 0)
    let entries = try #require(try Sandbox.json(r) as? [[String: Any]])
    #expect(
      entries.map { $0["name"] as? String }
        == ["records/2026/07.automerge", "records/2026/08.automerge", "records/2026/09.automerge"])
    #expect(entries.map { $0["state"] as? String } == ["conflicted", "copies-only", "copies-only"])
    let listed = entries.flatMap { ($0["copies"] as? [[String: Any]]) ?? [] }
    #expect(listed.count == copies.count)
    let records = box.path("data") + "/records/2026/"
    for copy in copies {
      let found = try #require(
        listed.first { $0["path"] as? String == records + copy.name }, "\(copy.name)")
      #expect(found["service"] as? String == copy.service, "\(copy.name)")
      #expect(found["device"] as? String == copy.device, "\(copy.name)")
      #expect(found["date"] as? String == copy.date, "\(copy.name)")
    }
    let others = try box.run(["ls", "--all", "-0"]).stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(Set(others).isSuperset(of: lookAlikes.map { "records/2026/" + $0 }), "\(others)")
    #expect(!others.contains { $0.contains("path1") || $0.contains("SFConflict ada@") })
  }

  @Test func nulTerminatedNames() throws {
    let box = try Self.folder()
    let r = try box.run(["ls", "-0", "--conflicts"])
    #expect(r.status == 0)
    #expect(
      r.stdoutBytes == Data("records/2026/04.automerge\u{0}records/2026/05.automerge\u{0}".utf8))
  }

  @Test func filters() throws {
    let box = try Self.folder()
    #expect(
      lines(try box.run(["ls", "--placeholders"]).stdout) == [
        "records/2026/02.automerge", "records/2026/03.automerge", "records/2026/06.automerge",
      ])
    #expect(
      lines(try box.run(["ls", "--conflicts"]).stdout) == [
        "records/2026/04.automerge", "records/2026/05.automerge",
      ])
    let all = try box.run(["ls", "--all", "--long"])
    #expect(all.status == 0)
    let names = lines(all.stdout).map { $0.split(separator: " ").last.map(String.init) ?? "" }
    #expect(names == [".minuta-version", "notes.txt"] + Self.allNames)
    #expect(lines(all.stdout)[0].hasPrefix("other "))
    #expect(!all.stdout.contains("nosync"), "local-only files and temporaries are never listed")
    for pair in [["--all", "--conflicts"], ["--placeholders", "--all"]] {
      let r = try box.run(["ls"] + pair)
      #expect(r.status == 64)
      #expect(r.stderr.contains("cannot be used together"))
    }
    #expect(try box.run(["ls", "--json", "-l"]).status == 64)
  }

  @Test func pathArguments() throws {
    let box = try Self.folder()
    let data = box.path("data")
    #expect(lines(try box.run(["ls", "tags.automerge"]).stdout) == ["tags.automerge"])
    #expect(try box.run(["ls", "records/2026"]).stdout.split(separator: "\n").count == 6)
    #expect(
      lines(
        try box.run(["ls", "2026/04.automerge", "./2026/05.automerge"], in: data + "/records")
          .stdout)
        == ["records/2026/04.automerge", "records/2026/05.automerge"])
    #expect(lines(try box.run(["ls", "."], in: data + "/records/2026").stdout).count == 6)
    #expect(
      lines(try box.run(["ls", "../tags.automerge"], in: data + "/records").stdout) == [
        "tags.automerge"
      ])
    #expect(
      lines(try box.run(["ls", data + "/records/2026/03.automerge"]).stdout) == [
        "records/2026/03.automerge"
      ])
    // A placeholder's or a copy's own path names its document.
    #expect(
      lines(try box.run(["ls", data + "/records/2026/02.automerge.nextcloud"]).stdout)
        == ["records/2026/02.automerge"])
    #expect(
      lines(try box.run(["ls", "records/2026/04 2.automerge"]).stdout) == [
        "records/2026/04.automerge"
      ])

    let outside = try box.run(["ls", box.path("elsewhere/x.automerge")])
    #expect(outside.status == 64)
    #expect(outside.stderr.contains("outside the data folder"))
    #expect(try box.run(["ls", "../../../x"], in: data + "/records").status == 64)
    let unknown = try box.run(["ls", "records/2027/01.automerge"])
    #expect(unknown.status == 66)
    #expect(unknown.stderr == "mn: error: no such document 'records/2027/01.automerge'\n")
  }

  @Test func namesInNFDKeepTheirBytes() throws {
    let box = try Sandbox()
    // "Zoë" and "Ünterlagen" spelled decomposed (NFD), as macOS file systems may return them.
    let zoe = "Zoe\u{308}"
    let folder = "U\u{308}nterlagen"
    box.extraEnvironment["MINUTA_STORAGE"] = box.path(folder)
    try box.write("\(folder)/records/2026/09.automerge", try Sandbox.september)
    try box.write(
      "\(folder)/records/2026/09 (\(zoe)'s conflicted copy).automerge", try Sandbox.september)
    try box.write("\(folder)/notes/caf\u{65}\u{301}.txt", "x")
    let r = try box.run(["ls", "--json", "--conflicts"])
    #expect(r.status == 0)
    let entries = try #require(try Sandbox.json(r) as? [[String: Any]])
    let copy = try #require((entries.first?["copies"] as? [[String: Any]])?.first)
    let device = try #require(copy["device"] as? String)
    #expect(Array(device.utf8) == Array(zoe.utf8))
    let all = try box.run(["ls", "--all", "-0"])
    #expect(
      all.stdoutBytes.split(separator: 0).map { Array($0) }.contains(
        Array("notes/caf\u{65}\u{301}.txt".utf8)))
    // An absolute path typed in NFC still lies inside the NFD-named root.
    let nfc = box.path("\u{DC}nterlagen") + "/records/2026/09.automerge"
    #expect(lines(try box.run(["ls", nfc]).stdout) == ["records/2026/09.automerge"])
  }

  @Test func aLinkOutOfTheRootIsReportedNotFollowed() throws {
    let box = try Self.folder()
    try box.write("outside/2025/01.automerge", try Sandbox.september)
    try FileManager.default.createSymbolicLink(
      atPath: box.path("data/records/2025"), withDestinationPath: box.path("outside/2025"))
    let r = try box.run(["ls"])
    #expect(r.status == 0)
    #expect(lines(r.stdout) == Self.allNames)
    #expect(
      r.stderr
        == "mn: warning: 'records/2025' is a symbolic link to '\(box.path("outside/2025"))', "
        + "outside the data folder; not followed\n")
    #expect(try box.run(["ls", "-q"]).stderr.isEmpty)
  }

  @Test func emptyAndMissingFolders() throws {
    let box = try Sandbox()
    try box.mkdir("Documents/Minuta")
    let empty = try box.run(["ls"])
    #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr.isEmpty)
    #expect(try box.run(["ls", "--json"]).stdout == "[]\n")
    let missing = try box.run(["ls", "--root", box.path("nope")])
    #expect(missing.status == 66)
  }
}
