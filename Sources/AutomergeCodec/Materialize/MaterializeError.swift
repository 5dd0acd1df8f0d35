/// An op id with its actor spelled out, as Automerge prints it (`counter@actorhex`).
///
/// Used to name the subject of a `MaterializeError`; inside a `Change` ids are
/// change-local (`OpId`), which means nothing outside that change.
public struct DocumentOpId: Hashable, Sendable, CustomStringConvertible {
  /// The Lamport counter.
  public var counter: UInt64
  /// The actor that created the op.
  public var actor: ActorId

  /// Creates an op id.
  public init(counter: UInt64, actor: ActorId) {
    self.counter = counter
    self.actor = actor
  }

  /// `counter@actorhex`.
  public var description: String { "\(counter)@\(actor)" }
}

/// Why a set of changes could not be materialized (automerge-format.md §8, §10).
///
/// Each case names the op (or change) at fault. Real Automerge refuses to apply such
/// changes, so these only arise from hand-made or hostile input.
public enum MaterializeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A change has an empty actor table, so its ops have no author.
  case missingAuthor(change: ChangeHash)
  /// An op refers to actor index `index`, past the end of its change's actor table.
  case actorIndexOutOfRange(change: ChangeHash, index: UInt32)
  /// A change's op counters do not fit in 32 bits (automerge-format.md §2.4).
  case counterTooLarge(change: ChangeHash)
  /// Two ops share an id (two changes of one actor with overlapping counters).
  case duplicateOpId(DocumentOpId)
  /// More ops than this implementation indexes (2^31 − 1).
  case tooManyOps(Int)
  /// An op targets an object that no make op created.
  case missingObject(op: DocumentOpId)
  /// A map op on a sequence, a sequence op on a map, or an insert into a map.
  case keyKindMismatch(op: DocumentOpId)
  /// An op names a list element that is not an insert op of the same sequence.
  case missingElement(op: DocumentOpId)
  /// Insert ops whose references form a cycle, so they have no place in the sequence.
  case unreachableElement(op: DocumentOpId)
  /// An increment whose value is not an int or uint.
  case nonNumericIncrement(op: DocumentOpId)
  /// Objects nested deeper than the limit given to the materializer.
  case nestingTooDeep(op: DocumentOpId, limit: Int)

  public var description: String {
    switch self {
    case .missingAuthor(let change): return "change \(change) has no actors"
    case .actorIndexOutOfRange(let change, let index):
      return "change \(change) refers to actor index \(index), which it does not have"
    case .counterTooLarge(let change): return "change \(change) has op counters above 2^32-1"
    case .duplicateOpId(let id): return "op id \(id) is used twice"
    case .tooManyOps(let count): return "too many ops (\(count))"
    case .missingObject(let op): return "op \(op) targets an object that does not exist"
    case .keyKindMismatch(let op): return "op \(op) has a key of the wrong kind for its object"
    case .missingElement(let op): return "op \(op) refers to a list element that does not exist"
    case .unreachableElement(let op): return "insert op \(op) is part of a reference cycle"
    case .nonNumericIncrement(let op): return "increment op \(op) has a non-numeric value"
    case .nestingTooDeep(let op, let limit):
      return "object \(op) is nested deeper than \(limit) levels"
    }
  }
}
