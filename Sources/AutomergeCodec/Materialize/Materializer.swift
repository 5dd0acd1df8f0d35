import Threads

/// Computes a document's current content as JSON, as Automerge materializes it
/// (automerge-format.md §10, mn.md §10).
///
/// Maps become objects with their keys sorted by UTF-8 bytes, lists arrays, text objects
/// strings. Where a key or element holds conflicting values the one with the greatest
/// Lamport id wins. Scalars:
///
/// | value | plain | typed (`--typed`) |
/// |---|---|---|
/// | counter | initial + every increment | `{"$counter": n}` |
/// | timestamp | integer milliseconds | `{"$timestamp": n}` |
/// | int | number | `{"$int": n}` |
/// | uint | number | `{"$uint": n}` |
/// | f64 | number (NaN and infinities: null) | `{"$f64": x}` |
/// | text object | string | `{"$text": "…"}` |
/// | str, bool, null | themselves | themselves |
/// | bytes | `{"$bytes": "<hex>"}` | the same |
/// | unknown type code 10–15 | `{"$unknown": {"type": code, "bytes": "<hex>"}}` | the same |
///
/// Unknown value types have no JSON form in Automerge's own tools; the `$unknown` object is
/// this implementation's choice, which keeps the raw bytes visible.
public enum Materializer {
  /// The default limit on object nesting (the root map is level 0).
  public static let defaultMaxDepth = 1000

  /// The current content of the document made of `changes`.
  ///
  /// - Parameters:
  ///   - changes: decoded changes, in any order. Duplicates and changes whose dependencies
  ///     are missing are left out, as Automerge leaves them out.
  ///   - typed: wrap the values whose JSON form loses their type (mn.md §10).
  ///   - maxDepth: the deepest object nesting accepted; deeper documents are an error, so
  ///     that consumers of the JSON value never recurse without bound.
  /// - Returns: the root map as a JSON object.
  /// - Throws: `MaterializeError` when ops refer to objects, elements or actors that do
  ///   not exist, or the nesting exceeds `maxDepth`.
  public static func materialize(
    _ changes: [Change], typed: Bool, maxDepth: Int = defaultMaxDepth
  ) throws(MaterializeError) -> JSONValue {
    try OpSet(changes: changes).json(typed: typed, maxDepth: maxDepth)
  }

  /// The current content of a decoded file: its changes without the orphans (which
  /// `AutomergeFile` lists last, and Automerge keeps but does not apply).
  ///
  /// - Parameters:
  ///   - file: a decoded file.
  ///   - typed: wrap the values whose JSON form loses their type (mn.md §10).
  ///   - maxDepth: the deepest object nesting accepted.
  /// - Returns: the document's JSON.
  /// - Throws: `MaterializeError`, as `materialize(_:typed:maxDepth:)`.
  public static func materialize(
    _ file: AutomergeFile, typed: Bool, maxDepth: Int = defaultMaxDepth
  ) throws(MaterializeError) -> JSONValue {
    try opSet(of: file).json(typed: typed, maxDepth: maxDepth)
  }

  /// The current content of a file that is exactly one document chunk (what Automerge's
  /// `save()` writes), read from the chunk's op columns: no `Change` or `Op` values, a
  /// fraction of the memory. The file is verified as `AutomergeFile.verify` verifies it;
  /// the JSON is read from the decoded columns on a thread of its own while the changes are
  /// rebuilt and hashed from the same columns on this one.
  ///
  /// - Returns: the JSON, or nil when the file has another shape or its columns need the
  ///   general path (`materialize(_ file:)`), which then gives the answer or the error.
  /// - Throws: `AutomergeDecodeError` when the file does not decode.
  public static func materializeDocumentChunk(
    _ bytes: [UInt8], typed: Bool, maxDepth: Int = defaultMaxDepth
  ) throws -> JSONValue? {
    let h = try bytes.withUnsafeBufferPointer { try Chunk.header($0, at: 0) }
    guard h.type == .document, h.end == bytes.count else { return nil }
    var json: JSONValue? = nil
    var reader: Worker<JSONValue?>?
    let verification: AutomergeFile.Verification
    do {
      verification = try AutomergeFile.verified(bytes, listing: false) { ops in
        reader = Worker.start { DocumentMaterializer.json(ops, typed: typed, maxDepth: maxDepth) }
        if reader == nil { json = DocumentMaterializer.json(ops, typed: typed, maxDepth: maxDepth) }
      }.facts
    } catch {
      // Joined before the error is thrown: no thread outlives the call.
      _ = reader?.join()
      throw error
    }
    if let reader { json = reader.join() ?? nil }
    return verification.orphans.isEmpty ? json : nil
  }

  /// The JSON form of a scalar value (see the table above); `increments` is added to a
  /// counter.
  static func json(of value: ScalarValue, increments: Int64, typed: Bool) -> JSONValue {
    func wrap(_ name: String, _ value: JSONValue) -> JSONValue {
      typed ? .object([(name, value)]) : value
    }
    switch value {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .string(let s): return .string(s)
    case .bytes(let b): return .object([("$bytes", .string(Hex.encode(b)))])
    case .int(let v): return wrap("$int", .int(v))
    case .uint(let v): return wrap("$uint", .uint(v))
    case .f64(let d): return wrap("$f64", d.isFinite ? .double(d) : .null)
    case .counter(let v): return wrap("$counter", .int(v &+ increments))
    case .timestamp(let v): return wrap("$timestamp", .int(v))
    case .unknown(let code, let b):
      return .object([
        ("$unknown", .object([("type", .int(Int64(code))), ("bytes", .string(Hex.encode(b)))]))
      ])
    }
  }

  /// The op set of a decoded file's applied (non-orphan) changes.
  public static func opSet(of file: AutomergeFile) throws(MaterializeError) -> OpSet {
    let applied = file.changes.count - file.orphans.count
    if applied == file.changes.count {
      return try OpSet(causallyComplete: file.changes)
    }
    return try OpSet(
      causallyComplete: Array(file.changes.prefix(max(applied, 0))), unapplied: file.orphans.count)
  }
}

extension OpSet {
  /// The current content of the document as JSON; see `Materializer`.
  public func json(typed: Bool, maxDepth: Int = Materializer.defaultMaxDepth)
    throws(MaterializeError) -> JSONValue
  {
    let sequences = try sequenceOrder()
    let elementWinner = elementWinners()
    let mapEntries = mapWinners()

    // Objects are built bottom-up in an explicit post-order walk from the root, so deep
    // nesting costs heap, not stack. Each object is reached once: its only parent is the
    // object its make op targets.
    var built = [JSONValue?](repeating: nil, count: objectKinds.count)
    var stack: [(object: Int, depth: Int, childrenDone: Bool)] = [(0, 0, false)]
    while let (object, depth, childrenDone) = stack.popLast() {
      let kind = objectKinds[object]
      if kind == .text {
        built[object] = text(of: object, sequences, elementWinner, typed: typed)
        continue
      }
      let winners: [Int32] =
        kind == .map
        ? mapEntries[object].map(\.op)
        : sequences.order[sequences.ranges[object]].compactMap {
          elementWinner[Int($0)] >= 0 ? elementWinner[Int($0)] : nil
        }
      if !childrenDone {
        stack.append((object, depth, true))
        for g in winners {
          guard let child = createdObject(Int(g)) else { continue }
          guard depth < maxDepth else {
            throw .nestingTooDeep(op: documentId(Int(g)), limit: maxDepth)
          }
          stack.append((child, depth + 1, false))
        }
        continue
      }
      var values: [JSONValue] = []
      values.reserveCapacity(winners.count)
      for g in winners {
        if let child = createdObject(Int(g)) {
          values.append(built[child] ?? .null)
          built[child] = nil
        } else {
          values.append(scalarJSON(Int(g), typed: typed))
        }
      }
      if kind == .map {
        built[object] = .object(zip(mapEntries[object], values).map { ($0.key, $1) })
      } else {
        built[object] = .array(values)
      }
    }
    return built[0] ?? .object([])
  }

  /// The object that op `g` creates, when it is a make op.
  func createdObject(_ g: Int) -> Int? {
    switch flags[g] & OpSet.actionMask {
    case Action.makeMap.rawValue, Action.makeList.rawValue, Action.makeText.rawValue,
      Action.makeTable.rawValue:
      return objectIndex(makeOp: g)
    default:
      return nil
    }
  }

  /// The text of a text object: its present elements' strings, U+FFFC for any other value
  /// (Automerge's `text()`, §8.7); marks are never present.
  func text(of object: Int, _ sequences: SequenceOrder, _ elementWinner: [Int32], typed: Bool)
    -> JSONValue
  {
    var bytes: [UInt8] = []
    for e in sequences.order[sequences.ranges[object]] {
      let g = Int(elementWinner[Int(e)])
      if g < 0 { continue }
      if flags[g] & OpSet.actionMask == Action.set.rawValue, case .string(let s) = value(g) {
        let appended: Void? = s.utf8.withContiguousStorageIfAvailable {
          bytes.append(contentsOf: $0)
        }
        if appended == nil { bytes.append(contentsOf: s.utf8) }
      } else {
        bytes.append(contentsOf: [0xef, 0xbf, 0xbc])
      }
    }
    let string = JSONValue.string(String(decoding: bytes, as: UTF8.self))
    return typed ? .object([("$text", string)]) : string
  }

  /// The JSON form of scalar op `g` (see the table on `Materializer`).
  func scalarJSON(_ g: Int, typed: Bool) -> JSONValue {
    Materializer.json(of: value(g), increments: incrementSum[Int32(g)] ?? 0, typed: typed)
  }
}
