import Testing

@testable import AutomergeCodec
@testable import TestSupport
@testable import Threads

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A decode spreads over the processors `Processors.available` gives its thread: all of them
/// on a command's own thread (`doc check`, `doc merge`), one on a thread of an `OrderedWork`
/// loop (`doctor` and `log` decode one file per processor there), and its result is the same
/// either way.
@Suite struct AvailableProcessorsTests {
  /// What a transform saw: whether it ran on the loop's calling thread, and the processors
  /// available to it.
  struct Seen: Sendable {
    var onCallingThread: Bool
    var available: Int
  }

  @Test(arguments: [1, 2, 4])
  func anItemOnAThreadOfItsOwnHasOneProcessor(width: Int) {
    let caller = pthread_self()
    let online = Processors.online
    #expect(Processors.available == online)
    var seen: [Seen] = []
    OrderedWork.run(
      count: 6, width: width, produce: { $0 },
      transform: { _ in
        Seen(
          onCallingThread: pthread_equal(pthread_self(), caller) != 0,
          available: Processors.available)
      },
      consume: { _, s in seen.append(s) })
    #expect(seen.count == 6)
    for s in seen {
      #expect(s.available == (s.onCallingThread ? online : 1))
    }
    // A width of 1 runs every item in place; a wider loop starts threads for them.
    #expect(seen.allSatisfy(\.onCallingThread) == (width == 1))
    // The loop's own thread is not marked.
    #expect(Processors.available == online)
  }

  /// A Minuta month's number of change rows (at least `parallelEncodeRows`): checked on this
  /// thread, the second half of its rows is encoded on a thread of its own; inside an
  /// `OrderedWork` item, all on the item's thread. Both give the rows' hashes in order.
  @Test func aMonthChecksTheSameOnEveryThread() throws {
    let changes = LargeDocumentChunkTests.typedText(
      count: max(2_000, Reconstruction.parallelEncodeRows + 1), perChange: 3)
    let saved = try DocumentEncoder.save(changes.flatMap(\.chunk)).bytes
    let here = try AutomergeFile.verifyListing(saved)
    #expect(here.hashes == changes.map(\.hash))
    var there: [Result<[ChangeHash], Error>] = []
    OrderedWork.run(
      count: 2, width: 2, produce: { _ in saved },
      transform: { bytes in Result { try AutomergeFile.verifyListing(bytes).hashes } },
      consume: { _, result in there.append(result) })
    for result in there {
      #expect(try result.get() == here.hashes)
    }
  }
}
