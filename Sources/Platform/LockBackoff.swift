/// How long a lock's wait sleeps between tries: git's lockfile backoff (lockfile.c,
/// `lock_file_timeout`). The `n`th sleep is about `n²` ms, growing to at most one second,
/// each scaled by a random factor in [0.75, 1.25), so that the writers waiting for one
/// folder do not wake in step, and a short hold costs a short wait.
public struct LockBackoff: Sendable {
  /// The first sleep's base, in seconds (git's `INITIAL_BACKOFF_MS`).
  public static let initial = 0.001
  /// The largest multiple of `initial` a sleep is based on (git's `BACKOFF_MAX_MULTIPLIER`).
  public static let maximumMultiplier = 1000

  private var n = 1
  private var multiplier = 1

  public init() {}

  /// The next sleep, in seconds: `multiplier × initial × (0.75 + random / 2)`, `random` in
  /// [0, 1); then the multiplier grows from `n²` to `(n+1)²`, up to `maximumMultiplier`.
  public mutating func next(random: Double) -> Double {
    let sleep = Double(multiplier) * Self.initial * (0.75 + min(max(random, 0), 1) / 2)
    multiplier += 2 * n + 1
    if multiplier > Self.maximumMultiplier {
      multiplier = Self.maximumMultiplier
    } else {
      n += 1
    }
    return sleep
  }
}

/// What a lock's wait runs on: a sleep, a clock it measures the wait with, and the random
/// numbers of its jitter.
public struct LockWait: @unchecked Sendable {
  /// Sleeps for the given number of seconds.
  public var sleep: (Double) -> Void
  /// Seconds on a clock that never goes back; nil: the wait counts the time it slept.
  public var clock: (() -> Double)?
  /// A number in [0, 1) for the jitter.
  public var random: () -> Double

  /// - Parameters:
  ///   - sleep: Sleeps for the given number of seconds (tests pass one that does not).
  ///   - clock: A monotonic clock in seconds; nil (tests): the time slept is the time waited.
  ///   - random: The jitter's random numbers in [0, 1); the default is the system's.
  public init(
    sleep: @escaping (Double) -> Void, clock: (() -> Double)? = nil,
    random: @escaping () -> Double = { Double.random(in: 0..<1) }
  ) {
    self.sleep = sleep
    self.clock = clock
    self.random = random
  }

  /// The real one: `nanosleep`, `CLOCK_MONOTONIC`, the system's random numbers.
  public static var live: LockWait {
    LockWait(sleep: LiveSystem.sleep, clock: LiveSystem.monotonicSeconds)
  }
}

extension LockBackoff {
  /// Calls `tryOnce` until it returns true or `timeout` seconds have passed, sleeping the
  /// backoff's next step between tries (the last one cut to what is left of `timeout`).
  ///
  /// - Parameters:
  ///   - timeout: Seconds to wait (0: try once).
  ///   - sleep: Sleeps for the given number of seconds.
  ///   - clock: Seconds on a clock that never goes back; nil: the time slept counts.
  ///   - random: A number in [0, 1) for each step's jitter.
  ///   - tryOnce: One try; true when it took what was waited for.
  /// - Returns: Whether `tryOnce` succeeded within `timeout`.
  /// - Throws: What `tryOnce` throws; the wait stops there.
  public static func wait<E: Error>(
    timeout: Double, sleep: (Double) -> Void, clock: () -> Double?, random: () -> Double,
    _ tryOnce: () throws(E) -> Bool
  ) throws(E) -> Bool {
    let start = clock()
    var slept = 0.0
    var backoff = LockBackoff()
    while true {
      if try tryOnce() { return true }
      let waited = start.flatMap { start in clock().map { $0 - start } } ?? slept
      if waited >= timeout { return false }
      let step = min(backoff.next(random: random()), timeout - waited)
      sleep(step)
      slept += step
    }
  }
}
