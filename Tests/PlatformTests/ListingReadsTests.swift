import Foundation
import Testing

@testable import Platform
@testable import TestSupport

/// The directory calls: the live forms (directory entry types, `fstatat` and `openat`
/// relative to an open directory, `fstat`, `read`) give what the portable forms (`lstat` and
/// `readFile` of the joined path), which test doubles use, give.
@Suite struct ListingReadsTests {
  private func folder() throws -> ScratchFolder {
    let folder = try ScratchFolder()
    for size in [0, 1, 4095, 4096, 4097, 70_000] {
      _ = try folder.write(".s\(size).icloud", (0..<size).map { UInt8(truncatingIfNeeded: $0) })
    }
    _ = try folder.write("09.automerge", Array("doc".utf8))
    try folder.symlink(".link.icloud", to: folder.absolute("09.automerge"))
    try FileManager.default.createDirectory(
      atPath: folder.absolute(".dir.icloud"), withIntermediateDirectories: false)
    #expect(mkfifo(folder.absolute(".fifo.icloud"), 0o644) == 0)
    return folder
  }

  /// A listing gives each name with the kind `lstat` gives, without `.` and `..`.
  @Test func itemsHaveTheirKinds() throws {
    let folder = try folder()
    let fs = LiveFileSystem()
    let items = try fs.directoryItems(folder.location()).sorted {
      $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
    }
    #expect(items.map(\.name) == (try fs.contentsOfDirectory(folder.location())).sorted())
    for item in items {
      #expect(item.kind == (try fs.info(folder.location(item.name)))?.kind, "\(item.name)")
    }
    let portable = try FaultyFileSystem(faults: []).directoryItems(folder.location())
    #expect(Set(portable.map(\.name)) == Set(items.map(\.name)))
  }

  /// `info(_:in:)` and `readFile(_:in:limit:)` relative to an open directory agree with the
  /// portable forms for every kind of entry, and for a name that does not exist.
  @Test func relativeCallsAgreeWithThePortableForms() throws {
    let folder = try folder()
    let live = LiveFileSystem()
    let portable = FaultyFileSystem(faults: [])
    let opened = try live.openDirectory(folder.location())
    defer { live.closeDirectory(opened) }
    #expect(opened.descriptor != nil)
    let joined = try portable.openDirectory(folder.location())
    #expect(joined.descriptor == nil)
    let names = try live.contentsOfDirectory(folder.location()) + [".gone.icloud"]
    for name in names {
      #expect(try live.info(name, in: opened) == portable.info(name, in: joined), "\(name)")
      let read = try? live.readFile(name, in: opened, limit: 65_536)
      let expected = try portable.readFile(name, in: joined, limit: 65_536)
      if name == ".link.icloud" {
        // Never followed: the live form refuses to open it (the scan then `lstat`s it).
        #expect(read == nil)
        #expect(expected?.kind == .symlink && expected?.content == nil)
        continue
      }
      #expect(read == expected, "\(name)")
    }
    let read = names.compactMap { try? live.readFile($0, in: opened, limit: 65_536) }
    let byName = Dictionary(uniqueKeysWithValues: read.map { ($0.name, $0) })
    #expect(byName[".s4097.icloud"]?.content?.count == 4097)
    #expect(byName[".s0.icloud"]?.content == [])
    #expect(byName[".s70000.icloud"]?.content == nil)
    #expect(byName[".s70000.icloud"]?.readError == Errno(rawValue: EFBIG))
    #expect(byName[".s70000.icloud"]?.info?.size == 70_000)
    #expect(byName[".dir.icloud"]?.kind == .directory && byName[".dir.icloud"]?.content == nil)
    #expect(byName[".fifo.icloud"]?.kind == .other && byName[".fifo.icloud"]?.content == nil)
    #expect(byName[".gone.icloud"] == nil)
  }

  /// The plain listing examines every entry, as the portable form does.
  @Test func listingWithInfoExaminesEveryEntry() throws {
    let folder = try folder()
    let sorted = { (entries: [DirectoryEntry]) in
      entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
    let live = sorted(try LiveFileSystem().contentsOfDirectoryWithInfo(folder.location()))
    let portable = sorted(
      try FaultyFileSystem(faults: []).contentsOfDirectoryWithInfo(folder.location()))
    #expect(live.allSatisfy { $0.info != nil })
    #expect(live == portable)
  }
}
