import Foundation
import Testing

@testable import Core

/// `contentsOfDirectoryWithInfo(_:reading:limit:)`: the live form (openat, fstat, read) gives
/// what the portable form (lstat, then readFile) gives.
@Suite struct ListingReadsTests {
  private func sorted(_ entries: [DirectoryEntry]) -> [DirectoryEntry] {
    entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
  }

  @Test func liveAndPortableFormsAgree() throws {
    let folder = try ScratchFolder()
    for size in [0, 1, 4095, 4096, 4097, 70_000] {
      _ = try folder.write(".s\(size).icloud", (0..<size).map { UInt8(truncatingIfNeeded: $0) })
    }
    _ = try folder.write("09.automerge", Array("doc".utf8))
    try folder.symlink(".link.icloud", to: folder.absolute("09.automerge"))
    try FileManager.default.createDirectory(
      atPath: folder.absolute(".dir.icloud"), withIntermediateDirectories: false)
    #expect(mkfifo(folder.absolute(".fifo.icloud"), 0o644) == 0)
    let wanted = { (name: String) in name.hasSuffix(".icloud") }
    let live = sorted(
      try LiveFileSystem().contentsOfDirectoryWithInfo(folder.path, reading: wanted, limit: 65_536))
    // A wrapper without faults uses the protocol's portable form.
    let portable = sorted(
      try FaultyFileSystem(faults: []).contentsOfDirectoryWithInfo(
        folder.path, reading: wanted, limit: 65_536))
    #expect(live == portable)
    let byName = Dictionary(uniqueKeysWithValues: live.map { ($0.name, $0) })
    #expect(byName[".s4097.icloud"]?.content?.count == 4097)
    #expect(byName[".s0.icloud"]?.content == [])
    #expect(byName[".s70000.icloud"]?.content == nil)
    #expect(byName[".s70000.icloud"]?.readError == Errno(rawValue: EFBIG))
    #expect(byName[".s70000.icloud"]?.info?.size == 70_000)
    #expect(byName["09.automerge"]?.content == nil)
    #expect(byName[".link.icloud"]?.info?.kind == .symlink)
    #expect(byName[".link.icloud"]?.content == nil)
    #expect(byName[".dir.icloud"]?.info?.kind == .directory)
    #expect(byName[".fifo.icloud"]?.info?.kind == .other)
    #expect(byName[".fifo.icloud"]?.content == nil)
    // The information of a file read while listing is its lstat information.
    let plain = sorted(try LiveFileSystem().contentsOfDirectoryWithInfo(folder.path))
    #expect(plain.map(\.info) == live.map(\.info))
  }
}
