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

  func acquire(_ roots: [String]) throws(LockError) -> WriteLocks {
    try WriteLocks.acquire(roots, timeout: 0, fileSystem: fs, sleep: { _ in })
  }

  /// Waits up to 5 s for the folder's lock to be free. A lock released by this process can
  /// stay held for a moment: a `flock` belongs to the open file, and a process that another
  /// test spawns at that moment holds a copy of the descriptor until its `exec` closes it
  /// (`O_CLOEXEC`); on a loaded machine that moment was long enough to fail a test.
  func waitUntilFree(_ root: String) -> Bool {
    for _ in 0..<500 {
      if isFree(root) { return true }
      usleep(10_000)
    }
    return false
  }

  /// Whether the folder's lock can be taken now (released again at once).
  func isFree(_ root: String) -> Bool {
    guard let lock = try? acquire([root]) else { return false }
    lock.release()
    return true
  }

  @Test func aSecondLockOfAHeldFolderIsRefusedUntilItIsReleased() throws {
    let scratch = try ScratchFolder()
    let held = try acquire([scratch.path])
    #expect(throws: LockError.self) { try acquire([scratch.path]) }
    do {
      _ = try acquire([scratch.path])
    } catch .held(let path, _) {
      #expect(path == scratch.path + "/" + FileLock.fileName)
    } catch {
      Issue.record("unexpected error \(error)")
    }
    held.release()
    #expect(waitUntilFree(scratch.path))
    held.release()  // twice does nothing
  }

  @Test func locksAreTakenOnceEachInTheOrderOfTheirBytes() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("b")
    try scratch.makeDirectory("a")
    let (a, b) = (scratch.absolute("a"), scratch.absolute("b"))
    let locks = try acquire([b, a, b])
    #expect(locks.roots == [a, b])
    #expect(locks.map(\.path) == [a, b].map { $0 + "/" + FileLock.fileName })
    #expect(!isFree(a) && !isFree(b))
    locks.release()
    #expect(locks.roots.isEmpty)
    #expect(waitUntilFree(a) && waitUntilFree(b))
  }

  @Test func whatWasTakenIsReleasedWhenALaterLockIsHeld() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a")
    try scratch.makeDirectory("b")
    let (a, b) = (scratch.absolute("a"), scratch.absolute("b"))
    let other = try acquire([b])
    #expect(throws: LockError.self) { try acquire([a, b]) }
    #expect(waitUntilFree(a))
    other.release()
  }

  @Test func whatWasTakenIsReleasedWhenALockFileCannotBeOpened() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a")
    let a = scratch.absolute("a")
    do {
      _ = try acquire([a, scratch.absolute("b/missing")])
      Issue.record("a lock in a missing folder was taken")
    } catch .fileSystem(let error) {
      #expect(error.errno == .noSuchFileOrDirectory)
    } catch {
      Issue.record("unexpected error \(error)")
    }
    #expect(waitUntilFree(a))
  }

  @Test func addTakesOneMoreAndKeepsWhatIsHeldWhenItCannot() throws {
    let scratch = try ScratchFolder()
    try scratch.makeDirectory("a")
    try scratch.makeDirectory("b")
    let (a, b) = (scratch.absolute("a"), scratch.absolute("b"))
    let locks = try acquire([a])
    let other = try acquire([b])
    #expect(throws: LockError.self) { try locks.add(b) }
    #expect(locks.roots == [a])
    #expect(!isFree(a))
    other.release()
    #expect(waitUntilFree(b))
    try locks.add(b)
    try locks.add(b)  // held already: not locked again
    #expect(locks.roots == [a, b])
    #expect(!isFree(b))
    locks.release()
    #expect(waitUntilFree(a) && waitUntilFree(b))
  }

  @Test func aHeldLockIsWaitedForUpToTheTimeout() throws {
    let scratch = try ScratchFolder()
    let held = try acquire([scratch.path])
    var slept = 0.0
    #expect(throws: LockError.self) {
      try WriteLocks.acquire([scratch.path], timeout: 0.2, fileSystem: fs, sleep: { slept += $0 })
    }
    #expect(slept >= 0.2 && slept < 0.3)
    held.release()
  }

  @Test func theLocksGoWithTheValue() throws {
    let scratch = try ScratchFolder()
    do {
      let locks = try acquire([scratch.path])
      #expect(locks.roots == [scratch.path])
    }
    #expect(waitUntilFree(scratch.path))
  }
}
