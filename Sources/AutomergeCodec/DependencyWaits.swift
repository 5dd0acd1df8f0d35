/// The waiting of §4 step 4: a change is applied once every one of its deps is in, and
/// applying one may make others ready. `AutomergeFile.apply` and `verify`'s `load` both
/// apply through it, so that they apply a file's changes in one order: depth first from
/// each change that becomes ready, the last one made ready first.
///
/// Changes are numbered `0..<count` by the caller; which deps are in already is the
/// caller's to say (`wait` is called only for those that are not).
struct DependencyWaits {
  private var missing: [Int32]
  private var waiting: [ChangeHash: [Int32]] = [:]
  private var work: [Int32] = []

  /// For changes numbered `0..<count`, none of them waiting yet.
  init(count: Int) {
    missing = [Int32](repeating: 0, count: count)
  }

  /// Change `i` waits for `dep`, which is not in.
  mutating func wait(_ i: Int32, for dep: ChangeHash) {
    missing[Int(i)] += 1
    waiting[dep, default: []].append(i)
  }

  /// Whether change `i` waits for nothing.
  func isReady(_ i: Int32) -> Bool { missing[Int(i)] == 0 }

  /// Applies change `i` (ready), then each change this makes ready, in turn: `apply` is
  /// called once for each, in that order. `hash` is a change's hash.
  @inline(__always) mutating func release(
    _ i: Int32, hash: (Int32) -> ChangeHash, apply: (Int32) -> Void
  ) {
    work.append(i)
    while let w = work.popLast() {
      apply(w)
      if waiting.isEmpty { continue }
      guard let ready = waiting.removeValue(forKey: hash(w)) else { continue }
      for x in ready {
        missing[Int(x)] -= 1
        if missing[Int(x)] == 0 { work.append(x) }
      }
    }
  }
}
