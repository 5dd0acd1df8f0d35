import Foundation
import Testing

/// Exit statuses of known failures on the built binary (mn.md §11): none is a 70.
@Suite struct ExitsTests {
  /// A document over the size limit (2 GiB; a sparse file, nothing is read) is refused as
  /// malformed input, 65, not as an I/O error.
  @Test func aDocumentOverTheSizeLimitIsADataError() throws {
    let box = try Sandbox()
    try box.write("big.automerge", Data())
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: box.path("big.automerge")))
    try handle.truncate(atOffset: (1 << 31) + 1)
    try handle.close()
    let r = try box.run(["doc", "info", box.path("big.automerge")])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.contains("file too large"), "\(r.stderr)")
    #expect(!r.stderr.contains("bug"), "\(r.stderr)")
  }
}
