import Foundation
import Testing

@testable import Core

/// `contentsOfDirectory(_:detail:limit:)`: the live form (directory entry types, openat,
/// fstat, read) gives what the portable form (lstat, then readFile) gives, less the
/// information it was not asked for.
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
    _ = try folder.write("09 2.automerge", Array("copy".utf8))
    let wanted = { (name: String) -> ListingDetail in
      name.hasSuffix(".icloud") ? .content : name.hasPrefix("09 ") ? .kind : .info
    }
    let live = sorted(
      try LiveFileSystem().contentsOfDirectory(folder.path, detail: wanted, limit: 65_536))
    // A wrapper without faults uses the protocol's portable form, which examines everything.
    let portable = sorted(
      try FaultyFileSystem(faults: []).contentsOfDirectory(
        folder.path, detail: wanted, limit: 65_536))
    #expect(live.map(\.name) == portable.map(\.name))
    #expect(live.map(\.kind) == portable.map(\.kind))
    #expect(live.map(\.content) == portable.map(\.content))
    #expect(live.map(\.readError) == portable.map(\.readError))
    // What the live form was not asked for, it did not look up.
    let examined = live.filter { $0.info != nil }.map(\.name)
    #expect(
      examined == [
        ".s0.icloud", ".s1.icloud", ".s4095.icloud", ".s4096.icloud",
        ".s4097.icloud", ".s70000.icloud", "09.automerge",
      ])
    for (a, b) in zip(live, portable) where a.info != nil { #expect(a.info == b.info) }
    let byName = Dictionary(uniqueKeysWithValues: live.map { ($0.name, $0) })
    #expect(byName[".s4097.icloud"]?.content?.count == 4097)
    #expect(byName[".s0.icloud"]?.content == [])
    #expect(byName[".s70000.icloud"]?.content == nil)
    #expect(byName[".s70000.icloud"]?.readError == Errno(rawValue: EFBIG))
    #expect(byName[".s70000.icloud"]?.info?.size == 70_000)
    #expect(byName["09.automerge"]?.content == nil)
    #expect(byName["09 2.automerge"]?.kind == .regular)
    #expect(byName[".link.icloud"]?.kind == .symlink)
    #expect(byName[".link.icloud"]?.content == nil)
    #expect(byName[".dir.icloud"]?.kind == .directory)
    #expect(byName[".fifo.icloud"]?.kind == .other)
    #expect(byName[".fifo.icloud"]?.content == nil)
    // The information of a file read while listing is its lstat information, and the plain
    // listing examines every entry.
    let plain = sorted(try LiveFileSystem().contentsOfDirectoryWithInfo(folder.path))
    #expect(plain.allSatisfy { $0.info != nil })
    #expect(plain == portable.map { DirectoryEntry(name: $0.name, info: $0.info) })
  }

  /// `entries(_:in:limit:)` gives each name as the listing gives an entry to read; a name that
  /// does not exist is left out.
  @Test func entriesOfNamesAgree() throws {
    let folder = try ScratchFolder()
    _ = try folder.write(".s.icloud", [1, 2, 3])
    _ = try folder.write(".big.icloud", [UInt8](repeating: 7, count: 20))
    try folder.symlink(".link.icloud", to: folder.absolute(".s.icloud"))
    try FileManager.default.createDirectory(
      atPath: folder.absolute(".dir.icloud"), withIntermediateDirectories: false)
    let names = [".s.icloud", ".gone.icloud", ".link.icloud", ".dir.icloud", ".big.icloud"]
    let live = try LiveFileSystem().entries(names, in: folder.path, limit: 10)
    let portable = try FaultyFileSystem(faults: []).entries(names, in: folder.path, limit: 10)
    #expect(live == portable)
    #expect(live.map(\.name) == [".s.icloud", ".link.icloud", ".dir.icloud", ".big.icloud"])
    #expect(live.map(\.kind) == [.regular, .symlink, .directory, .regular])
    #expect(live[0].content == [1, 2, 3])
    #expect(live[1].content == nil && live[2].content == nil)
    #expect(live[3].content == nil && live[3].readError == Errno(rawValue: EFBIG))
  }
}
