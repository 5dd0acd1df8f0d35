import Foundation
import Testing

/// `mn doc merge -o PATH` never writes into a data folder (mn.md §6, §9): plumbing takes no
/// lock and makes no exchange.
@Suite struct DocMergeTests {
  static let month = "records/2026/09.automerge"

  @Test func anOutputInsideADataFolderIsRefused() throws {
    let box = try Sandbox()
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    let a = try ConflictFolder.fixture("seed-01/device-0/records/2026/09.automerge")
    let b = try ConflictFolder.fixture("seed-01/device-1/records/2026/09.automerge")
    try box.write("a.automerge", a)
    try box.write("b.automerge", b)
    try box.write("data/" + Self.month, a)
    try box.write("data/tags.automerge", try Sandbox.tags)
    try FileManager.default.createSymbolicLink(
      atPath: box.path("link"), withDestinationPath: box.path("data"))
    // Not the resolved folder, but one that looks like one.
    try box.write("other/.minuta-version", "1\n")
    try box.mkdir("other/records/2026")

    for output in [
      box.path("data/" + Self.month), "data/records/2026/10.automerge",
      box.path("link/records/2026/11.automerge"), "other/records/2026/09.automerge",
      "other/merged.automerge",
    ] {
      let r = try box.run(["doc", "merge", "-o", output, "a.automerge", "b.automerge"])
      #expect(r.status == 73, "\(output): \(r.stderr)")
      #expect(r.stderr.hasPrefix("mn: error: refusing to write '\(output)' inside the data folder"))
      #expect(r.stderr.contains("'mn merge-conflicts'") && r.stderr.contains("'mn restore'"))
    }
    #expect(try box.read("data/" + Self.month) == a, "the document is untouched")
    #expect(!box.exists("data/records/2026/10.automerge"))
    #expect(!box.exists("data/records/2026/11.automerge"))
    #expect(try box.files("other") == [".minuta-version"])

    // A folder whose name only begins like the data folder's is not inside it.
    try box.mkdir("data-test")
    let r = try box.run([
      "doc", "merge", "-o", "data-test/merged.automerge", "a.automerge", "b.automerge",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try box.run(["doc", "check", "data-test/merged.automerge"]).status == 0)
  }
}
