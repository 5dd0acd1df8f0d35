import Foundation
import Testing

@Suite struct ExportTests {
  /// The sample folder's files, sorted by bytes, as they must appear under `Minuta/`.
  static let sampleFiles = [
    ".minuta-version",
    "records/2026/09 (Ada's conflicted copy 2026-09-06).automerge",
    "records/2026/09.automerge",
    "records/2026/09.sync-conflict-20260906-154512-ABCDEFG.automerge",
    "records/2026/10.automerge",
    "tags 2.automerge",
    "tags.automerge",
  ]

  static func sandbox() throws -> Sandbox {
    let box = try Sandbox()
    try box.copyFromPackage("examples/sample", to: "Documents/Minuta")
    try box.mkdir("out")
    return box
  }

  static func manifest(_ box: Sandbox, _ archive: String) throws -> [String: Any] {
    let data = try box.archiveEntry(archive, "Minuta/.mn-manifest.json")
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  @Test(arguments: ["tar", "tar.gz", "tar.xz", "tar.zst", "zip"])
  func everyFormatReadsBackWithBsdtar(format: String) throws {
    let box = try Self.sandbox()
    let r = try box.run(["export", "-o", "out/a.\(format)"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(r.stderr.hasPrefix("mn: wrote 'out/a.\(format)': 7 files, "))
    #expect(r.stderr.contains(", verified, sha256 \(try box.sha256("out/a.\(format)"))\n"))
    let entries = try box.archiveEntries("out/a.\(format)")
    #expect(entries == Self.sampleFiles.map { "Minuta/" + $0 } + ["Minuta/.mn-manifest.json"])
    for file in Self.sampleFiles {
      #expect(
        try box.archiveEntry("out/a.\(format)", "Minuta/" + file)
          == box.read("Documents/Minuta/" + file))
    }
    let manifest = try Self.manifest(box, "out/a.\(format)")
    #expect(manifest["tool"] as? String == "mn")
    #expect(manifest["source"] as? String == box.path("Documents/Minuta"))
    let listed = try #require(manifest["files"] as? [[String: Any]])
    #expect(listed.compactMap { $0["path"] as? String } == Self.sampleFiles)
    for entry in listed {
      let path = try #require(entry["path"] as? String)
      #expect(entry["sha256"] as? String == (try box.sha256("Documents/Minuta/" + path)))
      guard path.hasSuffix(".automerge") else {
        #expect(entry["kind"] as? String == "other")
        continue
      }
      #expect(entry["kind"] as? String == "document")
      let heads = try box.run(["doc", "heads", box.path("Documents/Minuta/" + path)]).stdout
      #expect(entry["heads"] as? [String] == heads.split(separator: "\n").map(String.init))
      let changes = try box.run(["doc", "changes", box.path("Documents/Minuta/" + path)]).stdout
      #expect(entry["changes"] as? Int == changes.split(separator: "\n").count)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: box.path("out")) == ["a.\(format)"])
  }

  @Test func defaultNameInTheCurrentDirectory() throws {
    let box = try Self.sandbox()
    #expect(try box.run(["export"], in: box.path("out")).status == 0)
    #expect(try box.run(["export", "--format", "zip"], in: box.path("out")).status == 0)
    let names = try FileManager.default.contentsOfDirectory(atPath: box.path("out")).sorted()
    #expect(names.count == 2)
    let pattern = #/minuta-\d{8}-\d{6}\.(tar\.gz|zip)/#
    #expect(names.allSatisfy { $0.wholeMatch(of: pattern) != nil }, "\(names)")
    #expect(names.contains { $0.hasSuffix(".zip") })
  }

  @Test func reproducibleArchivesAreIdentical() throws {
    let box = try Self.sandbox()
    #expect(try box.run(["export", "--reproducible", "-o", "out/a.tar.xz"]).status == 0)
    // A newer modification time must not change the bytes.
    try FileManager.default.setAttributes(
      [.modificationDate: Date()], ofItemAtPath: box.path("Documents/Minuta/tags.automerge"))
    #expect(try box.run(["export", "--reproducible", "-o", "out/b.tar.xz"]).status == 0)
    #expect(try box.read("out/a.tar.xz") == box.read("out/b.tar.xz"))
    #expect(try Self.manifest(box, "out/a.tar.xz")["created"] as? String == "1980-01-02T00:00:00Z")
  }

  /// A zip stores local times: a reproducible one must not depend on the time zone.
  @Test func reproducibleZipsDoNotDependOnTheTimeZone() throws {
    let box = try Self.sandbox()
    let tokyo = try box.run(
      ["export", "--reproducible", "-o", "out/a.zip"], environment: ["TZ": "Asia/Tokyo"])
    let newYork = try box.run(
      ["export", "--reproducible", "-o", "out/b.zip"], environment: ["TZ": "America/New_York"])
    #expect(tokyo.status == 0 && newYork.status == 0)
    #expect(try box.read("out/a.zip") == box.read("out/b.zip"))
  }

  @Test func placeholdersAreRefusedUnlessAllowed() throws {
    let box = try Self.sandbox()
    try box.write("Documents/Minuta/records/2026/.11.automerge.icloud", "")
    let refused = try box.run(["export", "-o", "out/a.tar.gz"])
    #expect(refused.status == 69)
    #expect(
      refused.stderr.hasPrefix(
        "mn: error: the data folder is incomplete: 1 file(s) not downloaded\n"))
    #expect(refused.stderr.contains("  records/2026/.11.automerge.icloud\n"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: box.path("out")).isEmpty)

    let allowed = try box.run(["export", "--allow-placeholders", "-o", "out/a.tar.gz"])
    #expect(allowed.status == 0)
    #expect(allowed.stderr.contains("mn: warning: 1 file(s) not downloaded are listed as missing"))
    let listed = try #require(Self.manifest(box, "out/a.tar.gz")["files"] as? [[String: Any]])
    let placeholder = listed.first { $0["kind"] as? String == "placeholder" }
    #expect(placeholder?["path"] as? String == "records/2026/.11.automerge.icloud")
    #expect(!(try box.archiveEntries("out/a.tar.gz")).contains { $0.contains("11.automerge") })
  }

  @Test func streamsToStandardOutput() throws {
    let box = try Self.sandbox()
    let r = try box.run(["export", "-o", "-"])
    #expect(r.status == 0)
    #expect(r.stderr.hasPrefix("mn: wrote 'standard output': 7 files, "))
    try box.write("out/piped.tar.gz", r.stdoutBytes)
    #expect(r.stdoutBytes.prefix(2) == Data([0x1f, 0x8b]))
    #expect(try box.archiveEntries("out/piped.tar.gz").count == 8)
    let zip = try box.run(["export", "-o", "-", "--format", "zip", "-q"])
    #expect(zip.status == 0 && zip.stderr.isEmpty)
    #expect(zip.stdoutBytes.prefix(2) == Data("PK".utf8))
  }

  @Test func outputThatCannotBeCreatedIs73AndLeavesNothing() throws {
    let box = try Self.sandbox()
    try box.write("out/file", "not a directory")
    let below = try box.run(["export", "-o", "out/file/a.tar.gz"])
    #expect(below.status == 73)
    #expect(below.stderr.hasPrefix("mn: error: cannot create "))
    // The archive is written and verified beside a directory in the way; the rename fails.
    try box.mkdir("out/taken.tar.gz")
    let taken = try box.run(["export", "-o", "out/taken.tar.gz"])
    #expect(taken.status == 73)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: box.path("out")).sorted() == [
        "file", "taken.tar.gz",
      ])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: box.path("out/taken.tar.gz")).isEmpty)
  }

  @Test func usageErrors() throws {
    let box = try Self.sandbox()
    let unknown = try box.run(["export", "-o", "out/a.bin"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.hasPrefix("mn: error: cannot tell the archive format from 'out/a.bin'"))
    #expect(try box.run(["export", "-o", "out/a.bin", "--format", "tar"]).status == 0)
    let mismatch = try box.run(["export", "-o", "out/a.zip", "--format", "tar.gz"])
    #expect(mismatch.status == 64)
    #expect(
      mismatch.stderr.hasPrefix(
        "mn: error: --format tar.gz does not match the extension of 'out/a.zip'\n"))
    #expect(try box.run(["export", "-o", "-", "--json"]).status == 64)
    let inside = try box.run(["export", "-o", "Documents/Minuta/a.tar.gz"])
    #expect(inside.status == 73)
    #expect(inside.stderr.contains("refusing to write the archive inside the data folder"))
    #expect(!box.exists("Documents/Minuta/a.tar.gz"))
    #expect(try box.run(["export"], environment: ["MINUTA_STORAGE": box.path("gone")]).status == 66)
  }

  @Test func jsonSummary() throws {
    let box = try Self.sandbox()
    let r = try box.run(["export", "--json", "-o", "out/a.tar.zst"])
    #expect(r.status == 0 && r.stderr.isEmpty)
    let summary = try #require(
      JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
    #expect(summary["path"] as? String == box.path("out/a.tar.zst"))
    #expect(summary["format"] as? String == "tar.zst")
    #expect(summary["files"] as? Int == 7)
    #expect(summary["documents"] as? Int == 6)
    #expect(summary["verified"] as? Bool == true)
    #expect(summary["sha256"] as? String == (try box.sha256("out/a.tar.zst")))
    let size = try FileManager.default.attributesOfItem(atPath: box.path("out/a.tar.zst"))[.size]
    #expect(summary["bytes"] as? Int == size as? Int)
  }
}
