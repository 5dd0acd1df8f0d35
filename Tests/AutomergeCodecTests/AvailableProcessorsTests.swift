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

  /// What the items of a loop did, shared between their threads.
  final class Record: @unchecked Sendable {
    let monitor = Monitor()
    var started = Set<Int>()
    var running = 0
    var mostRunning = 0

    func start(_ i: Int) {
      monitor.locked {
        started.insert(i)
        running += 1
        mostRunning = max(mostRunning, running)
        monitor.broadcast()
      }
    }

    func end() { monitor.locked { running -= 1 } }

    /// Whether item `i` starts before `deadline` (a generous one: a failure, not a race).
    func waitForStart(of i: Int, deadline: ContinuousClock.Instant) -> Bool {
      while ContinuousClock.now < deadline {
        if monitor.locked({ started.contains(i) }) { return true }
        usleep(1_000)
      }
      return false
    }
  }

  /// An item that runs long does not hold back the items after it: once the one beside it
  /// has ended, the next starts (the loop used to wait for the oldest item to be consumed,
  /// and item 0 below would then wait for item 2 in vain). Never more than `width` run at
  /// once, never more than twice `width` wait to be consumed, and they are consumed in order.
  @Test func aLongItemDoesNotHoldBackTheOnesAfterIt() {
    let record = Record()
    let deadline = ContinuousClock.now + .seconds(60)
    var consumed: [(Int, Bool)] = []
    var produced = 0
    var mostWaiting = 0
    OrderedWork.run(
      count: 8, width: 2,
      produce: { i -> Int in
        produced += 1
        mostWaiting = max(mostWaiting, produced - consumed.count)
        return i
      },
      transform: { i in
        record.start(i)
        defer { record.end() }
        return i == 0 ? record.waitForStart(of: 2, deadline: deadline) : true
      },
      consume: { i, ok in consumed.append((i, ok)) })
    #expect(consumed.map(\.0) == Array(0..<8))
    let allOK = consumed.allSatisfy { $0.1 }
    #expect(allOK, "item 0 waited for item 2 to start, which never did")
    #expect(record.mostRunning <= 2)
    #expect(mostWaiting <= 4)
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
