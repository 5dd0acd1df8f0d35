import Testing

@testable import Platform

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The decisions of `LiveFileSystem`'s Darwin lines, run here on their portable parts.
@Suite struct LiveFileSystemDarwinTests {
  /// Darwin's `dev_t` is an `Int32`; a negative one is kept bit for bit, never a trap.
  @Test func aNegativeDeviceNumberIsKeptBitForBit() {
    #expect(LiveFileSystem.deviceNumber(Int32(-1)) == UInt64.max)
    #expect(LiveFileSystem.deviceNumber(Int32(-2)) != LiveFileSystem.deviceNumber(Int32(-1)))
    #expect(LiveFileSystem.deviceNumber(Int32(0x0100_0004)) == 0x0100_0004)
    #expect(LiveFileSystem.deviceNumber(UInt64.max) == UInt64.max)
  }

  /// Runs `durableSync` with a full sync that fails `fullFailures` (errno values, in order)
  /// then succeeds, and a plain one that succeeds; returns the calls made.
  func durableSync(fullFailures: [Int32]) -> (calls: [String], error: FileSystemError?) {
    var calls: [String] = []
    var failures = fullFailures
    // `durableSync` throws `FileSystemError` only, so the catch needs no cast.
    do throws(FileSystemError) {
      try LiveFileSystem.durableSync(
        AbsolutePath("/x"),
        full: {
          calls.append("full")
          guard !failures.isEmpty else { return 0 }
          errno = failures.removeFirst()
          return -1
        },
        plain: {
          calls.append("plain")
          return 0
        })
      return (calls, nil)
    } catch {
      return (calls, error)
    }
  }

  @Test func fullSyncIsUsedWhereItWorks() {
    #expect(durableSync(fullFailures: []).calls == ["full"])
    #expect(durableSync(fullFailures: [EINTR]).calls == ["full", "full"])
  }

  @Test func plainSyncOnlyWhereFullSyncIsRefused() {
    for refused in [ENOTSUP, EINVAL, ENOTTY] {
      let result = durableSync(fullFailures: [refused])
      #expect(result.calls == ["full", "plain"])
      #expect(result.error == nil)
    }
  }

  /// An I/O error of the full sync is not papered over by a plain one that may succeed.
  @Test func anIOErrorIsThrown() {
    let result = durableSync(fullFailures: [EIO])
    #expect(result.calls == ["full"])
    #expect(result.error?.errno == .ioError)
  }
}
