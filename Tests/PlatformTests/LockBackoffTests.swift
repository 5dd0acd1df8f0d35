import Platform
import Testing

/// The lock's wait: git's backoff (growing, randomised sleeps) measured on a clock, over a
/// fake clock and fake random numbers, so that nothing here waits or depends on timing.
@Suite struct LockBackoffTests {
  /// The sleeps of a wait of `timeout` seconds for a lock that stays held, with every random
  /// number `random`, on a clock that advances exactly by what was slept.
  func sleeps(timeout: Double, random: Double) -> (slept: [Double], taken: Bool) {
    var now = 100.0
    var slept: [Double] = []
    let taken = LockBackoff.wait(
      timeout: timeout,
      sleep: {
        slept.append($0); now += $0
      }, clock: { now },
      random: { random }
    ) { () -> Bool in false }
    return (slept, taken)
  }

  @Test func theSleepsGrowAsSquaresOfMillisecondsUpToOneSecond() {
    var backoff = LockBackoff()
    let middle = (0..<40).map { _ in backoff.next(random: 0.5) }
    // 0.5 gives the factor 1: n² ms, n = 1, 2, 3, ... until 1000 ms (31² = 961, then capped).
    let expected = (1...31).map { Double($0 * $0) / 1000 } + Array(repeating: 1.0, count: 9)
    #expect(zip(middle, expected).allSatisfy { abs($0 - $1) < 1e-12 })
  }

  @Test func eachSleepIsJitteredBetweenThreeQuartersAndFiveQuarters() {
    var low = LockBackoff()
    var high = LockBackoff()
    for step in 1...40 {
      let base = Double(min(step * step, 1000)) / 1000
      let shortest = low.next(random: 0)
      let longest = high.next(random: 0.999_999)
      #expect(abs(shortest - 0.75 * base) < 1e-12)
      #expect(longest < 1.25 * base && longest > 1.249 * base)
    }
  }

  @Test func aHeldLockIsWaitedForUntilTheTimeoutOnTheClock() {
    let wait = sleeps(timeout: 10, random: 0.5)
    #expect(!wait.taken)
    // Never past the timeout: the last sleep is cut to what is left.
    #expect(abs(wait.slept.reduce(0, +) - 10) < 1e-9)
    // Tries made: one per sleep and one after the last; 1 ms, 4 ms, 9 ms, ... first.
    #expect(wait.slept.prefix(3).map { ($0 * 1000).rounded() } == [1, 4, 9])
    // Far fewer tries than a fixed 50 ms poll (200) in a ten-second wait.
    #expect(wait.slept.count < 50)
  }

  @Test func theClockDecidesNotTheSumOfTheSleeps() {
    // A clock that runs ahead (a loaded machine: each sleep lasts longer than asked).
    var now = 0.0
    var tries = 0
    let taken = LockBackoff.wait(
      timeout: 1, sleep: { now += $0 * 10 }, clock: { now }, random: { 0.5 }
    ) { () -> Bool in
      tries += 1
      return false
    }
    #expect(!taken)
    // 1, 4, 9, ... 49 ms asked, each lasting ten times that: 1.4 s on the clock after seven
    // sleeps, so eight tries; counted by what was asked (0.14 s) the wait would go on.
    #expect(tries == 8)
  }

  @Test func withoutAClockTheTimeSleptCounts() {
    var slept = 0.0
    let taken = LockBackoff.wait(
      timeout: 2, sleep: { slept += $0 }, clock: { nil }, random: { 0.5 }
    ) { () -> Bool in false }
    #expect(!taken)
    #expect(abs(slept - 2) < 1e-9)
  }

  @Test func aLockFreedDuringTheWaitIsTakenAtTheNextTry() {
    var now = 0.0
    var tries = 0
    let taken = LockBackoff.wait(
      timeout: 10, sleep: { now += $0 }, clock: { now }, random: { 0.5 }
    ) { () -> Bool in
      tries += 1
      return tries == 4
    }
    #expect(taken)
    #expect(abs(now - 0.014) < 1e-12)  // 1 + 4 + 9 ms
  }

  @Test func aZeroTimeoutTriesOnceAndNeverSleeps() {
    let wait = sleeps(timeout: 0, random: 0.5)
    #expect(!wait.taken)
    #expect(wait.slept.isEmpty)
  }
}
