import Testing

@testable import AutomergeCodec

/// `DependencyWaits`: each change is applied once, after all it waits for, depth first from
/// the change that makes it ready.
@Suite struct DependencyWaitsTests {
  static func hash(_ i: Int32) -> ChangeHash {
    ChangeHash([UInt8](repeating: UInt8(i), count: 32))
  }

  /// Changes given in `arrival` order, `deps[i]` those change `i` waits for: the order
  /// in which they are applied.
  static func applied(arrival: [Int32], deps: [[Int32]]) -> [Int32] {
    var waits = DependencyWaits(count: deps.count)
    var applied = [Bool](repeating: false, count: deps.count)
    var order: [Int32] = []
    for i in arrival {
      for d in deps[Int(i)] where !applied[Int(d)] { waits.wait(i, for: hash(d)) }
      guard waits.isReady(i) else { continue }
      waits.release(i, hash: hash) { w in
        applied[Int(w)] = true
        order.append(w)
      }
    }
    return order
  }

  @Test func aChainArrivingBackwardsIsAppliedForwards() {
    #expect(Self.applied(arrival: [2, 1, 0], deps: [[], [0], [1]]) == [0, 1, 2])
  }

  @Test func aChangeWaitsForAllItsDeps() {
    // 3 needs 1 and 2; 1 and 2 need 0. 3 comes first, 0 last.
    let order = Self.applied(arrival: [3, 1, 2, 0], deps: [[], [0], [0], [1, 2]])
    #expect(order == [0, 2, 1, 3])
  }

  @Test func aChangeWhoseDepNeverComesIsNotApplied() {
    // 1 waits for 2, which waits for a change that is not there (3, never arriving).
    let order = Self.applied(arrival: [0, 1, 2], deps: [[], [2], [3], []])
    #expect(order == [0])
  }
}
