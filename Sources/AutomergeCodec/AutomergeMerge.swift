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
  /// appended after the base input's bytes.
  ///
  /// A first input that starts with a document chunk (as the app saves a file) is read as
  /// `verify` reads one: its document's changes as hashes, without a `Change` value each
  /// (essay's 262,961 changes: 40 MB, and a third of the time). That is all a merge needs of
  /// its base; when another input turns out to be the base and the first has changes it
  /// lacks, the first is decoded again for their chunks (as a first input that is not the
  /// base always was). The largest input is read first: usually the base.
  ///
  /// - Returns: the merge, and whether its output holds exactly the union of the inputs'
  ///   changes (false is a bug: write nothing).
  /// - Throws: as `merge`, and `AutomergeDecodeError` when the output does not decode.
  public static func mergeAndVerify(_ inputs: [[UInt8]]) throws -> (
    result: MergeResult, holdsEveryChange: Bool
  ) {
    // The input read first is the one likeliest to be the base: the largest. The output
    // does not depend on the inputs' order; the base's index and an invalid input's are
    // given back in the caller's.
    let largest = inputs.indices.max { inputs[$0].count < inputs[$1].count } ?? 0
    if largest != 0 {
      var reordered = inputs
      reordered.swapAt(0, largest)
      let back = { (i: Int) in i == 0 ? largest : i == largest ? 0 : i }
      do {
        var (result, holds) = try mergeAndVerify(reordered)
        result.base = back(result.base)
        return (result, holds)
      } catch AutomergeMergeError.invalidInput(let index, let error) {
        throw AutomergeMergeError.invalidInput(index: back(index), error)
      }
    }
    guard let first = inputs.first, let document = try readDocument(first) else {
      return try mergeAndVerify(inputs, decoded: decodeInputs(inputs))
    }
    // The first input starts with a document chunk (as the app saves a file): it is read
    // as `verify` reads such a file, its document's changes as hashes, not `Change` values.
    let others = try decodeInputs(inputs, from: 1) { !document.hashes.contains($0) }
    let base = baseIndex(inputs, counts: [document.facts.changeCount] + others.map(\.changes.count))
    if base == 0 {
      guard let onto = document.base(first) else {
        // It has orphans: read as any other file.
        return try mergeAndVerify(
          inputs, decoded: [decode(first, index: 0, keeping: .none)] + others)
      }
      let result = try merge(onto: onto, bytes: first, adding: others[...])
      return (result, try verify(result.bytes, onto: document, bytes: first, others: others))
    }
    if document.hashes.allSatisfy({ others[base - 1].contains($0) }) {
      // The first input holds nothing the base lacks: the merge is that of the others.
      let rest = Array(inputs.dropFirst())
      var (result, holds) = try mergeAndVerify(rest, decoded: others)
      result.base += 1
      return (result, holds)
    }
    // The base is another input, and the first has changes it lacks: their chunks are needed.
    let baseFile = others[base - 1]
    let files = try [decode(first, index: 0, keeping: .only { !baseFile.contains($0) })] + others
    return try mergeAndVerify(inputs, decoded: files)
  }

  /// `mergeAndVerify` of inputs decoded by `decodeInputs`.
  private static func mergeAndVerify(_ inputs: [[UInt8]], decoded: [AutomergeFile]) throws -> (
    result: MergeResult, holdsEveryChange: Bool
  ) {
    var inputs = inputs
    var files = decoded
    let result = try merge(inputs, decoded: files)
    // Checked against the base first, so that only what was appended to it is read.
    if result.base != 0 {
      inputs.swapAt(0, result.base)
      files.swapAt(0, result.base)
    }
    return (result, try verify(result.bytes, inputs: inputs, decoded: &files))
  }

  private static func decodeInputs(_ inputs: [[UInt8]]) throws -> [AutomergeFile] {
    guard let first = inputs.first else { return [] }
    // Only the chunks of changes the first input lacks are kept: a merge usually starts
    // from the first input (the canonical file), and `merge` decodes again when not.
    let file = try decode(first, index: 0, keeping: .none)
    return try [file] + decodeInputs(inputs, from: 1) { !file.contains($0) }
  }

  /// The inputs from `start` on, decoded keeping the chunks of the changes `keep` accepts.
  private static func decodeInputs(
    _ inputs: [[UInt8]], from start: Int, keeping keep: @escaping @Sendable (ChangeHash) -> Bool
  ) throws -> [AutomergeFile] {
    try inputs.indices.dropFirst(start).map {
      try decode(inputs[$0], index: $0, keeping: .only(keep))
    }
  }

  private static func decode(_ bytes: [UInt8], index: Int, keeping kept: KeptChunks) throws
    -> AutomergeFile
  {
    do {
      return try AutomergeFile.decode(
        bytes, keepOps: false, chunks: kept, inspectFirstDocument: nil)
    } catch let e as AutomergeDecodeError {
      throw AutomergeMergeError.invalidInput(index: index, e)
    }
  }

  /// An input that starts with a document chunk, read as `verify` reads it: the document's
  /// changes by hash, the changes after it decoded.
  struct DocumentInput {
    var document: AutomergeFile.FirstDocument
    var facts: AutomergeFile.Verification
    /// The changes after the document, in file order, and the positions of those that are
    /// new (distinct, not in the document).
    var following: [Change]
    var new: [Int]
    /// Every change's hash.
    var hashes: ChangeHashSet

    /// The base this input is, unless it has orphans (their dependencies would be needed).
    func base(_ bytes: [UInt8]) -> MergeBase? {
      guard facts.orphans.isEmpty else { return nil }
      // Its changes by one author are numbered 1...n in the document (its reconstruction
      // proved it), then the new ones after it: an added change can share an (actor, seq)
      // with one of them only if its seq is at most their last.
      var lastSeq = document.decoded.lastSeq
      for i in new {
        let c = following[i]
        lastSeq[c.author] = max(lastSeq[c.author] ?? 0, c.seq)
      }
      let hashes = hashes
      return MergeBase(
        count: facts.changeCount, contains: { hashes.contains($0) }, tips: facts.heads,
        absent: facts.missingDependencies,
        collision: { added in
          var seen = Set<MergeBase.SeqKey>()
          let suspect = added.contains { c in
            c.seq <= lastSeq[c.author] ?? 0
              || !seen.insert(MergeBase.SeqKey(actor: c.author, seq: c.seq)).inserted
          }
          // Which of its changes it is needs their `Change` values: decoded again (a
          // refused merge).
          guard suspect else { return nil }
          return try MergeBase(decode(bytes, index: 0, keeping: .none)).collision(added)
        })
    }
  }

  /// The first input's `DocumentInput`; nil when it does not start with a document chunk.
  static func readDocument(_ bytes: [UInt8]) throws -> DocumentInput? {
    do {
      guard let document = try AutomergeFile.firstDocument(bytes) else { return nil }
      let (facts, following, new) = try AutomergeFile.verified(bytes, after: document)
      var hashes = ChangeHashSet(document.decoded.hashes)
      for i in new { hashes.insert(following[i].hash) }
      return DocumentInput(
        document: document, facts: facts, following: following, new: new, hashes: hashes)
    } catch let e as AutomergeDecodeError {
      throw AutomergeMergeError.invalidInput(index: 0, e)
    }
  }

  /// `verify` of a merge onto a `DocumentInput` read from `bytes` (input 0; `others` the
  /// rest): the output must start with those bytes, and is read as `verify` reads a file,
  /// its first chunk taken as that input's document (the same bytes).
  static func verify(
    _ output: [UInt8], onto first: DocumentInput, bytes: [UInt8], others: [AutomergeFile]
  ) throws -> Bool {
    guard output.starts(with: bytes) else { return false }
    var outside = Set<ChangeHash>()
    for file in others {
      for c in file.changes where !first.hashes.contains(c.hash) { outside.insert(c.hash) }
    }
    let back = try AutomergeFile.verified(output, after: first.document)
    guard back.facts.changeCount == first.facts.changeCount + outside.count else { return false }
    // The output's changes are the document's and the distinct ones after it, the first
    // input's among them (its bytes come first): the union when every added one is there
    // too and the counts agree.
    let after = Set(back.new.map { back.following[$0].hash })
    return outside.allSatisfy { after.contains($0) }
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
    baseIndex(inputs, counts: files.map(\.changes.count))
  }

  /// `baseIndex` from each input's number of distinct changes.
  static func baseIndex(_ inputs: [[UInt8]], counts: [Int]) -> Int {
    let most = counts.max() ?? 0
    let candidates = counts.indices.filter { counts[$0] == most }
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
    return try merge(onto: MergeBase(first), bytes: inputs[0], adding: files.dropFirst())
  }

  /// The base's bytes, then the chunks of the changes of `others` that the base lacks, in
  /// dependency order (Kahn's algorithm, ties broken by hash).
  private static func merge(
    onto base: MergeBase, bytes baseBytes: [UInt8], adding others: ArraySlice<AutomergeFile>
  ) throws -> MergeResult {
    var extra: [Change] = []
    var extraIndex: [ChangeHash: Int] = [:]
    for file in others {
      for c in file.changes where !base.contains(c.hash) && extraIndex[c.hash] == nil {
        extraIndex[c.hash] = extra.count
        extra.append(c)
      }
    }
    if let (actor, seq, a, b) = try base.collision(extra) {
      throw AutomergeMergeError.duplicateSeq(actor: actor, seq: seq, a, b)
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
    var bytes = baseBytes
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

    // The heads: the union's changes that none of its changes depends on. The base's
    // changes that none of its own depends on are its tips.
    var baseIsDep = Set<ChangeHash>()
    var extraIsDep = [Bool](repeating: false, count: extra.count)
    var missing = Set<ChangeHash>()
    for d in base.absent {
      if let j = extraIndex[d] { extraIsDep[j] = true } else { missing.insert(d) }
    }
    for c in extra {
      for d in c.deps {
        if let j = extraIndex[d] {
          extraIsDep[j] = true
        } else if base.contains(d) {
          baseIsDep.insert(d)
        } else {
          missing.insert(d)
        }
      }
    }
    var heads = base.tips.filter { !baseIsDep.contains($0) }
    for (j, c) in extra.enumerated() where !extraIsDep[j] { heads.append(c.hash) }
    heads.sort()
    return MergeResult(
      bytes: bytes, base: 0, added: added, changeCount: base.count + extra.count,
      heads: heads, missingDependencies: missing.sorted())
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

/// What a merge needs of its base input (`AutomergeMerge.merge(onto:)`): which changes it
/// holds, those of them that none of its others depends on, the dependencies it lacks, and
/// an `(actor, seq)` collision of added changes with its changes or each other.
struct MergeBase {
  /// The number of distinct changes.
  var count: Int
  var contains: (ChangeHash) -> Bool
  /// Its changes that no other of its changes depends on (orphans included).
  var tips: [ChangeHash]
  /// Hashes its changes depend on that it does not hold.
  var absent: [ChangeHash]
  /// Two different changes sharing `(actor, seq)` among `added` (changes it lacks) and its
  /// own: the actor, the seq and the two hashes (its own first); nil when there are none.
  var collision: (_ added: [Change]) throws -> (ActorId, UInt64, ChangeHash, ChangeHash)?

  struct SeqKey: Hashable {
    var actor: ActorId
    var seq: UInt64
  }

  /// `collision` for a decoded file: only changes by the added changes' authors can collide.
  private static func collision(_ added: [Change], in file: AutomergeFile) -> (
    ActorId, UInt64, ChangeHash, ChangeHash
  )? {
    guard !added.isEmpty else { return nil }
    let authors = Set(added.map(\.author))
    var bySeq: [SeqKey: ChangeHash] = [:]
    var runAuthor: ActorId? = nil
    var runIncluded = false
    for c in file.changes {
      if c.author != runAuthor {
        runAuthor = c.author
        runIncluded = authors.contains(c.author)
      }
      if runIncluded { bySeq[SeqKey(actor: c.author, seq: c.seq)] = c.hash }
    }
    for c in added {
      let key = SeqKey(actor: c.author, seq: c.seq)
      if let other = bySeq.updateValue(c.hash, forKey: key) {
        return (key.actor, key.seq, other, c.hash)
      }
    }
    return nil
  }
}

extension MergeBase {
  /// The base a decoded file is.
  init(_ file: AutomergeFile) {
    count = file.changes.count
    contains = { file.contains($0) }
    var isDep = [Bool](repeating: false, count: file.changes.count)
    var absent = Set<ChangeHash>()
    for c in file.changes {
      for d in c.deps {
        if let i = file.position(of: d) { isDep[i] = true } else { absent.insert(d) }
      }
    }
    tips = file.changes.indices.filter { !isDep[$0] }.map { file.changes[$0].hash }
    self.absent = absent.sorted()
    collision = { added in MergeBase.collision(added, in: file) }
  }
}
