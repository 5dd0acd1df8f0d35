import Foundation
import Testing

/// `mn __complete document PREFIX`, which the completion scripts call (style.md (b)).
@Suite struct CompleteTests {
  @Test func documentNamesStartingWithThePrefix() throws {
    let box = try Sandbox()
    try box.write("Documents/Minuta/tags.automerge", try Sandbox.tags)
    try box.write("Documents/Minuta/records/2026/09.automerge", try Sandbox.september)
    try box.write("Documents/Minuta/records/2026/10.automerge.nextcloud", Data())
    try box.write("Documents/Minuta/records/2025/12 2.automerge", try Sandbox.september)
    try box.write("Documents/Minuta/notes.txt", "x")
    let all = try box.run(["__complete", "document", "--", ""])
    #expect(all.status == 0)
    #expect(
      all.stdout
        == "records/2025/12.automerge\nrecords/2026/09.automerge\nrecords/2026/10.automerge\n"
        + "tags.automerge\n")
    #expect(all.stderr.isEmpty)
    #expect(
      try box.run(["__complete", "document", "--", "records/2026/"]).stdout
        == "records/2026/09.automerge\nrecords/2026/10.automerge\n")
    #expect(try box.run(["__complete", "document", "t"]).stdout == "tags.automerge\n")
    #expect(try box.run(["__complete", "document", "--", "x"]).stdout.isEmpty)
    let other = box.path("other")
    try box.write("other/tags.automerge", try Sandbox.tags)
    #expect(
      try box.run(["--root", other, "__complete", "document", "--", ""]).stdout
        == "tags.automerge\n")
  }

  @Test func quietlyNothingWithoutADataFolder() throws {
    let box = try Sandbox()
    let r = try box.run(["__complete", "document", "--", "rec"])
    #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty)
    let missing = try box.run(["--root", box.path("nope"), "__complete", "document", "--", ""])
    #expect(missing.status == 0 && missing.stdout.isEmpty && missing.stderr.isEmpty)
  }
}
