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
  /// The merged file: the base input's bytes unchanged, then the added change chunks.
  public var bytes: [UInt8]
  /// The index of the input whose bytes the output starts with (`AutomergeMerge.baseIndex`).
  public var base: Int
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
  /// The output is the base input (`baseIndex`) byte for byte, followed by the type-1
  /// chunks of the changes only the other inputs have, in dependency order (Kahn's
  /// algorithm, ties broken by hash). When the base holds every change the output is the
  /// base itself. Neither depends on the order of the inputs, so two devices that merge the
  /// same files in any order write the same bytes (mn.md §6 "Merged output").
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
    var inputs = inputs
    var files = try decodeInputs(inputs)
    let result = try merge(inputs, decoded: files)
    // Checked against the base first, so that only what was appended to it is read.
    if result.base != 0 {
      inputs.swapAt(0, result.base)
      files.swapAt(0, result.base)
    }
    return (result, try verify(result.bytes, inputs: inputs, decoded: &files))
  }

  private static func decodeInputs(_ inputs: [[UInt8]]) throws -> [AutomergeFile] {
    var files: [AutomergeFile] = []
    files.reserveCapacity(inputs.count)
    for (i, bytes) in inputs.enumerated() {
      // Only the chunks of changes the first input lacks are kept: a merge usually starts
      // from the first input (the canonical file), and `merge` decodes again when not.
      do {
        let kept: KeptChunks
        if let first = files.first {
          kept = .only { !first.contains($0) }
        } else {
          kept = .none
        }
        files.append(
          try AutomergeFile.decode(bytes, keepOps: false, chunks: kept, inspectFirstDocument: nil))
      } catch let e as AutomergeDecodeError {
        throw AutomergeMergeError.invalidInput(index: i, e)
      }
    }
    return files
  }

  /// Merges files already decoded (`decoded[i]` is `AutomergeFile.decode(inputs[i])`; a
  /// change whose chunk was not kept is decoded again when the merge needs it).
  public static func merge(_ inputs: [[UInt8]], decoded: [AutomergeFile]) throws -> MergeResult {
    guard !decoded.isEmpty else { return try mergeOntoFirst(inputs, decoded: decoded) }
    let base = baseIndex(inputs, decoded: decoded)
    var inputs = inputs
    var files = decoded
    if base != 0 {
      inputs.swapAt(0, base)
      files.swapAt(0, base)
    }
    // A change to append whose chunk the caller's decode left out (it kept only those its
    // first input lacked): that input is decoded again, keeping what the base lacks.
    let baseFile = files[0]
    for i in files.indices.dropFirst()
    where files[i].changes.contains(where: { $0.chunk.isEmpty && !baseFile.contains($0.hash) }) {
      do {
        files[i] = try AutomergeFile.decode(
          inputs[i], keepOps: false, chunks: .only { !baseFile.contains($0) },
          inspectFirstDocument: nil)
      } catch let e as AutomergeDecodeError {
        throw AutomergeMergeError.invalidInput(index: i == base ? 0 : i, e)
      }
    }
    var result = try mergeOntoFirst(inputs, decoded: files)
    result.base = base
    return result
  }

  /// The input a merge starts from, chosen by a rule that does not depend on the order of
  /// the inputs or on which device merges (mn.md §6 "Merged output"): the input holding the
  /// most changes, and among several, the one whose bytes have the smallest SHA-256.
  ///
  /// An input that holds every change of the union holds the most, and so does every other
  /// input that holds as many (a file's changes are distinct), so when one holds them all
  /// the output is one of those inputs unchanged, the same one on every device. Bytes are
  /// hashed only to break a tie, so the usual merge (one input holds the most) hashes
  /// nothing.
  public static func baseIndex(_ inputs: [[UInt8]], decoded files: [AutomergeFile]) -> Int {
    let most = files.map(\.changes.count).max() ?? 0
    let candidates = files.indices.filter { files[$0].changes.count == most }
    guard var chosen = candidates.first, candidates.count > 1 else { return candidates.first ?? 0 }
    var smallest = SHA256.hash(inputs[chosen])
    for i in candidates.dropFirst() where inputs[i] != inputs[chosen] {
      let hash = SHA256.hash(inputs[i])
      if hash < smallest { (chosen, smallest) = (i, hash) }
    }
    return chosen
  }

  /// Merges files onto the first: its bytes, then the chunks of the changes it lacks.
  private static func mergeOntoFirst(_ inputs: [[UInt8]], decoded files: [AutomergeFile]) throws
    -> MergeResult
  {
    guard let first = files.first else {
      return MergeResult(
        bytes: [], base: 0, added: [], changeCount: 0, heads: [], missingDependencies: [])
    }
    // The first file's changes are distinct and their (actor, seq) unique: its decode
    // checked both. The others add what it does not have.
    var extra: [Change] = []
    var extraIndex: [ChangeHash: Int] = [:]
    for file in files.dropFirst() {
      for c in file.changes where !first.contains(c.hash) && extraIndex[c.hash] == nil {
        extraIndex[c.hash] = extra.count
        extra.append(c)
      }
    }
    // Two changes with one (actor, seq) can only involve an added change: they are looked
    // for among the added changes and the first file's changes by the same authors.
    if !extra.isEmpty {
      struct SeqKey: Hashable {
        var actor: ActorId
        var seq: UInt64
      }
      let authors = Set(extra.map(\.author))
      var bySeq: [SeqKey: ChangeHash] = [:]
      var runAuthor: ActorId? = nil
      var runIncluded = false
      for c in first.changes {
        if c.actors[0] != runAuthor {
          runAuthor = c.actors[0]
          runIncluded = authors.contains(c.actors[0])
        }
        if runIncluded { bySeq[SeqKey(actor: c.actors[0], seq: c.seq)] = c.hash }
      }
      for c in extra {
        let key = SeqKey(actor: c.actors[0], seq: c.seq)
        if let other = bySeq.updateValue(c.hash, forKey: key) {
          throw AutomergeMergeError.duplicateSeq(actor: key.actor, seq: key.seq, other, c.hash)
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

    // The heads: the union's changes that none of its changes depends on.
    var baseIsDep = [Bool](repeating: false, count: first.changes.count)
    var extraIsDep = [Bool](repeating: false, count: extra.count)
    var missing = Set<ChangeHash>()
    func mark(_ deps: ChangeDeps) {
      for d in deps {
        if let i = first.position(of: d) {
          baseIsDep[i] = true
        } else if let j = extraIndex[d] {
          extraIsDep[j] = true
        } else {
          missing.insert(d)
        }
      }
    }
    for c in first.changes { mark(c.deps) }
    for c in extra { mark(c.deps) }
    var heads: [ChangeHash] = []
    for (i, c) in first.changes.enumerated() where !baseIsDep[i] { heads.append(c.hash) }
    for (j, c) in extra.enumerated() where !extraIsDep[j] { heads.append(c.hash) }
    heads.sort()
    return MergeResult(
      bytes: bytes, base: 0, added: added, changeCount: first.changes.count + extra.count,
      heads: heads,
      missingDependencies: missing.sorted())
  }

  /// Checks a merge output: it must decode and hold exactly the union of the inputs' changes.
  /// - Returns: whether the change-hash sets are equal.
  /// - Throws: when the output or an input does not decode.
  public static func verify(_ output: [UInt8], inputs: [[UInt8]]) throws -> Bool {
    var decoded = try inputs.map { try AutomergeFile.decode($0, keepOps: false, keepChunks: false) }
    return try verify(output, inputs: inputs, decoded: &decoded)
  }

  /// `verify` with the inputs already decoded (`decoded[i]` is `inputs[i]` decoded with
  /// `keepOps: false`). When the output starts with the first input's bytes, that part is
  /// the first input's decode and only the rest of the output is read: the first input's
  /// changes are then moved into the output's decode, and `decoded[0]` is left empty.
  static func verify(
    _ output: [UInt8], inputs: [[UInt8]], decoded files: inout [AutomergeFile]
  ) throws -> Bool {
    // The union's size: the first input's changes (distinct) and the others' that it lacks,
    // counted before the first input gives its changes away.
    var others = Set<ChangeHash>()
    if let first = files.first {
      for file in files.dropFirst() {
        for c in file.changes where !first.contains(c.hash) { others.insert(c.hash) }
      }
    }
    let firstCount = files.first?.changes.count ?? 0
    let merged: AutomergeFile
    let fromFirst: Bool
    if let first = inputs.first, !files.isEmpty, output.starts(with: first) {
      merged = try AutomergeFile.decode(output, after: &files[0], prefixLength: first.count)
      fromFirst = true
    } else {
      merged = try AutomergeFile.decode(output, keepOps: false, keepChunks: false)
      fromFirst = false
    }
    guard !files.isEmpty else { return merged.changes.isEmpty }
    // The output's changes are distinct: the sets are equal when the counts are and every
    // input change is in the output. Read from the first input's decoded form, the output
    // holds that input's changes by construction.
    guard merged.changes.count == firstCount + others.count else { return false }
    for file in fromFirst ? files.dropFirst() : files[...] {
      for c in file.changes where !merged.contains(c.hash) { return false }
    }
    return true
  }
}

/// A min-heap of change indices keyed by hash (Kahn's tie-break).
public struct HashHeap {
  private var items: [(hash: ChangeHash, index: Int)] = []

  public init() {}

  public mutating func push(_ hash: ChangeHash, _ index: Int) {
    items.append((hash, index))
    var i = items.count - 1
    while i > 0 {
      let p = (i - 1) / 2
      guard items[i].hash < items[p].hash else { break }
      items.swapAt(i, p)
      i = p
    }
  }

  public mutating func pop() -> Int? {
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
