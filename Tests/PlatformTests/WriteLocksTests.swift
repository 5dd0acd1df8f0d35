import Platform
import Testing

@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `WriteLocks`, the one API that takes data folders' write locks (mn.md §6).
@Suite struct WriteLocksTests {
  let fs = LiveFileSystem()

  func acquire(_ roots: [AbsolutePath]) throws(LockError) -> WriteLocks {
    try WriteLocks.acquire(roots, timeout: 0, fileSystem: fs, sleep: { _ in })
  }

  /// Whether the folder's lock can be taken now (released again at once).
  func isFree(_ root: AbsolutePath) -> Bool {
    guard let lock = try? acquire([root]) else { return false }
    lock.release()
    return true
  }

  /// A copy (`dup`) of this process's open descriptor of `file`, found in `/proc/self/fd`:
  /// what a child inherits.
  func descriptorCopy(of file: String) -> Int32? {
    guard let names = try? fs.contentsOfDirectory(AbsolutePath("/proc/self/fd")) else { return nil }
    for name in names {
      guard let fd = Int32(name),
        (try? fs.readLink(AbsolutePath("/proc/self/fd/" + name))) == file
      else { continue }
      return dup(fd)
    }
    return nil
  }

  /// A released lock is free at once, even while another descriptor of its open file is
  /// still open, as one is in a child that another thread is starting (it holds a copy until
  /// its `exec` closes it): `release()` unlocks before it closes. Closing alone left the lock
  /// held, and that failed tests on a loaded machine.
  @Test func aReleasedLockIsFreeWhileACopyOfItsDescriptorIsOpen() throws {
    let scratch = try ScratchFolder()
    let lockFile = scratch.path + "/" + FileLock.fileName
    let lock = try acquire([scratch.location()])
    let copy = try #require(descriptorCopy(of: lockFile))
    defer { close(copy) }
    #expect(!isFree(scratch.location()))
    lock.release()
    #expect(isFree(scratch.location()))
  }

  @Test func aSecondLockOfAHeldFolderIsRefusedUntilItIsReleased() throws {
    let scratch = try ScratchFolder()
    let held = try acquire([scratch.location()])
    #expect(throws: LockError.self) { try acquire([scratch.location()]) }
    do {
      _ = try acquire([scratch.location()])
    } catch .held(let path, _) {
      #expect(path == scratch.path + "/" + FileLock.fileName)
    } catch {
      Issue.record("unexpected error \(error)")
    }
    held.release()
    #expect(isFree(scratch.location()))
    held.release()  // twice does nothing
  }

  @Test func locksAreTakenOnceEachInTheOrderOfTheirBytes() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("b")
    try scratch.makeDirectory("a")
    let (a, b) = (scratch.location("a"), scratch.location("b"))
    let locks = try acquire([b, a, b])
    #expect(locks.roots == [a, b])
    #expect(locks.map(\.path) == [a, b].map { $0.appending(FileLock.fileName) })
    #expect(!isFree(a) && !isFree(b))
    locks.release()
    #expect(locks.roots.isEmpty)
    #expect(isFree(a) && isFree(b))
  }

  @Test func whatWasTakenIsReleasedWhenALaterLockIsHeld() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a")
    try scratch.makeDirectory("b")
    let (a, b) = (scratch.location("a"), scratch.location("b"))
    let other = try acquire([b])
    #expect(throws: LockError.self) { try acquire([a, b]) }
    #expect(isFree(a))
    other.release()
  }

  @Test func whatWasTakenIsReleasedWhenALockFileCannotBeOpened() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a")
    let a = scratch.location("a")
    do {
      _ = try acquire([a, scratch.location("b/missing")])
      Issue.record("a lock in a missing folder was taken")
    } catch .fileSystem(let error) {
      #expect(error.errno == .noSuchFileOrDirectory)
    } catch {
      Issue.record("unexpected error \(error)")
    }
    #expect(isFree(a))
  }

  @Test func addTakesOneMoreAndKeepsWhatIsHeldWhenItCannot() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a")
    try scratch.makeDirectory("b")
    let (a, b) = (scratch.location("a"), scratch.location("b"))
    let locks = try acquire([a])
    let other = try acquire([b])
    #expect(throws: LockError.self) { try locks.add(b) }
    #expect(locks.roots == [a])
    #expect(!isFree(a))
    other.release()
    #expect(isFree(b))
    try locks.add(b)
    try locks.add(b)  // held already: not locked again
    #expect(locks.roots == [a, b])
    #expect(!isFree(b))
    locks.release()
    #expect(isFree(a) && isFree(b))
  }

  @Test func aHeldLockIsWaitedForUpToTheTimeout() throws {
    let scratch = try ScratchFolder()
    let held = try acquire([scratch.location()])
    var slept = 0.0
    #expect(throws: LockError.self) {
      try WriteLocks.acquire(
        [scratch.location()], timeout: 0.2, fileSystem: fs, sleep: { slept += $0 })
    }
    #expect(slept >= 0.2 && slept < 0.3)
    held.release()
  }

  @Test func theLocksGoWithTheValue() throws {
    let scratch = try ScratchFolder()
    do {
      let locks = try acquire([scratch.location()])
      #expect(locks.roots == [scratch.location()])
    }
    #expect(isFree(scratch.location()))
  }
}
