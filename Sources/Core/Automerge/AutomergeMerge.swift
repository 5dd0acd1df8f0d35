/// Why a merge was refused.
public enum AutomergeMergeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Input `index` (0-based) does not decode.
  case invalidInput(index: Int, AutomergeDecodeError)
  /// Two different changes of the union share `(actor, seq)`: Rust refuses to load such a
  /// file (`DuplicateSeqNumber`), so a lossless merge must stop (§9).
  case duplicateSeq(actor: ActorId, seq: UInt64, ChangeHash, ChangeHash)

  public var description: String {
    switch self {
    case .invalidInput(let index, let error):
      return "input \(index + 1) is not a valid automerge file: \(error)"
    case .duplicateSeq(let actor, let seq, let a, let b):
      return "changes \(a) and \(b) are both change \(seq) of actor \(actor)"
    }
  }
}

/// The result of a change-level merge (§9).
public struct MergeResult: Sendable {
  /// The merged file: the first input's bytes unchanged, then the added change chunks.
  public var bytes: [UInt8]
  /// The hashes of the appended changes, in output (dependency) order.
  public var added: [ChangeHash]
  /// The number of distinct changes in the union.
  public var changeCount: Int
  /// The heads of the union, sorted.
  public var heads: [ChangeHash]
  /// Dependencies that no input has (their dependents are carried along anyway), sorted.
  public var missingDependencies: [ChangeHash]
}

/// Merging Automerge files at the change level: "merge, never pick, lose nothing" (§9,
/// mn.md §6).
public enum AutomergeMerge {
  /// Merges files: the union of their changes, keyed by hash.
  ///
  /// The output is `inputs[0]` byte for byte, followed by the type-1 chunks of the changes
  /// only the other inputs have, in dependency order (Kahn's algorithm, ties broken by
  /// hash). When nothing is added the output is `inputs[0]` itself. When `inputs[0]` is
  /// empty the output is the union's change chunks.
  /// - Throws: `AutomergeMergeError` when an input does not decode or two different changes
  ///   share `(actor, seq)`.
  public static func merge(_ inputs: [[UInt8]]) throws -> MergeResult {
    try merge(inputs, decoded: decodeInputs(inputs))
  }

  /// Merges files and checks the output as `verify` does, decoding each input once: the
  /// check reuses the inputs' decoded form, and of the output reads only the change chunks
  /// appended after the first input's bytes.
  ///
  /// - Returns: the merge, and whether its output holds exactly the union of the inputs'
  ///   changes (false is a bug: write nothing).
  /// - Throws: as `merge`, and `AutomergeDecodeError` when the output does not decode.
  public static func mergeAndVerify(_ inputs: [[UInt8]]) throws -> (
    result: MergeResult, holdsEveryChange: Bool
  ) {
    let files = try decodeInputs(inputs)
    let result = try merge(inputs, decoded: files)
    return (result, try verify(result.bytes, inputs: inputs, decoded: files))
  }

  private static func decodeInputs(_ inputs: [[UInt8]]) throws -> [AutomergeFile] {
    var files: [AutomergeFile] = []
    files.reserveCapacity(inputs.count)
    for (i, bytes) in inputs.enumerated() {
      do { files.append(try AutomergeFile.decode(bytes, keepOps: false)) } catch let e
        as AutomergeDecodeError
      {
        throw AutomergeMergeError.invalidInput(index: i, e)
      }
    }
    return files
  }

  /// Merges files already decoded (`decoded[i]` is `AutomergeFile.decode(inputs[i])`).
  public static func merge(_ inputs: [[UInt8]], decoded files: [AutomergeFile]) throws
    -> MergeResult
  {
    guard let first = files.first else {
      return MergeResult(bytes: [], added: [], changeCount: 0, heads: [], missingDependencies: [])
    }
    struct SeqKey: Hashable {
      var actor: ActorId
      var seq: UInt64
    }
    // Sized for every change up front: hundreds of thousands of hashes would otherwise
    // be rehashed at every doubling.
    let total = files.reduce(0) { $0 + $1.changes.count }
    var bySeq: [SeqKey: ChangeHash] = [:]
    bySeq.reserveCapacity(total)
    var known = Set<ChangeHash>()
    known.reserveCapacity(total)
    var extra: [Change] = []
    var extraIndex: [ChangeHash: Int] = [:]
    for (f, file) in files.enumerated() {
      for c in file.changes {
        if f > 0 && known.contains(c.hash) { continue }
        known.insert(c.hash)
        let key = SeqKey(actor: c.actors[0], seq: c.seq)
        if let other = bySeq[key], other != c.hash {
          throw AutomergeMergeError.duplicateSeq(actor: key.actor, seq: key.seq, other, c.hash)
        }
        bySeq[key] = c.hash
        if f > 0 {
          extraIndex[c.hash] = extra.count
          extra.append(c)
        }
      }
    }

    // Kahn's algorithm over the added changes; deps outside them count as satisfied.
    var indegree = [Int](repeating: 0, count: extra.count)
    var dependents = [[Int]](repeating: [], count: extra.count)
    for (i, c) in extra.enumerated() {
      for d in Set(c.deps) {
        if let j = extraIndex[d] {
          indegree[i] += 1
          dependents[j].append(i)
        }
      }
    }
    var heap = HashHeap()
    for i in extra.indices where indegree[i] == 0 { heap.push(extra[i].hash, i) }
    var bytes = inputs[0]
    var added: [ChangeHash] = []
    added.reserveCapacity(extra.count)
    while let i = heap.pop() {
      bytes.append(contentsOf: extra[i].chunk)
      added.append(extra[i].hash)
      for j in dependents[i] {
        indegree[j] -= 1
        if indegree[j] == 0 { heap.push(extra[j].hash, j) }
      }
    }

    var isDep = Set<ChangeHash>()
    isDep.reserveCapacity(known.count)
    var missing = Set<ChangeHash>()
    for file in files {
      for c in file.changes {
        for d in c.deps {
          isDep.insert(d)
          if !known.contains(d) { missing.insert(d) }
        }
      }
    }
    let heads = known.filter { !isDep.contains($0) }.sorted()
    _ = first
    return MergeResult(
      bytes: bytes, added: added, changeCount: known.count, heads: heads,
      missingDependencies: missing.sorted())
  }

  /// Checks a merge output: it must decode and hold exactly the union of the inputs' changes.
  /// - Returns: whether the change-hash sets are equal.
  /// - Throws: when the output or an input does not decode.
  public static func verify(_ output: [UInt8], inputs: [[UInt8]]) throws -> Bool {
    try verify(output, inputs: inputs, decoded: inputs.map { try AutomergeFile.decode($0, keepOps: false) })
  }

  /// `verify` with the inputs already decoded (`decoded[i]` is `inputs[i]` decoded with
  /// `keepOps: false`). When the output starts with the first input's bytes, that part is
  /// the first input's decode and only the rest of the output is read.
  static func verify(_ output: [UInt8], inputs: [[UInt8]], decoded files: [AutomergeFile]) throws
    -> Bool
  {
    let merged: AutomergeFile
    if let first = inputs.first, let decodedFirst = files.first, output.starts(with: first) {
      merged = try AutomergeFile.decode(output, after: decodedFirst, prefixLength: first.count)
    } else {
      merged = try AutomergeFile.decode(output, keepOps: false)
    }
    var union = Set<ChangeHash>()
    union.reserveCapacity(merged.changes.count)
    for file in files {
      for c in file.changes { union.insert(c.hash) }
    }
    // The merged changes are distinct (`index` holds each once): the sets are equal when
    // the counts are and every input change is in the output.
    return merged.index.count == union.count && union.allSatisfy { merged.index[$0] != nil }
  }
}

/// A min-heap of change indices keyed by hash (Kahn's tie-break).
struct HashHeap {
  private var items: [(hash: ChangeHash, index: Int)] = []

  mutating func push(_ hash: ChangeHash, _ index: Int) {
    items.append((hash, index))
    var i = items.count - 1
    while i > 0 {
      let p = (i - 1) / 2
      guard items[i].hash < items[p].hash else { break }
      items.swapAt(i, p)
      i = p
    }
  }

  mutating func pop() -> Int? {
    guard !items.isEmpty else { return nil }
    let top = items[0].index
    let last = items.removeLast()
    if !items.isEmpty {
      items[0] = last
      var i = 0
      while true {
        let l = 2 * i + 1
        let r = l + 1
        var m = i
        if l < items.count && items[l].hash < items[m].hash { m = l }
        if r < items.count && items[r].hash < items[m].hash { m = r }
        if m == i { break }
        items.swapAt(i, m)
        i = m
      }
    }
    return top
  }
}
