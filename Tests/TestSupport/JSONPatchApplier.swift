import AutomergeCodec
import Foundation

/// Applies an RFC 6902 JSON Patch (`add`, `remove`, `replace`) to a value, independently of
/// `JSONPatch`, so that tests check a patch by its effect: patch(A) == B.
public enum JSONPatchApplier {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// The value after every operation, applied in order.
  ///
  /// - Throws: `Failure` when a path does not exist (or an index is out of range) where the
  ///   RFC requires it to.
  public static func apply(_ patch: [JSONPatch.Operation], to value: JSONValue) throws -> JSONValue
  {
    var value = value
    for op in patch {
      value = try apply(op, tokens: tokens(op.path)[...], to: value)
    }
    return value
  }

  /// `value` with every object's members sorted by key, for comparing values whose
  /// members may come in another order (an added key goes last).
  public static func sortedKeys(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members):
      return .object(
        members.map { ($0.0, sortedKeys($0.1)) }.sorted {
          Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8))
        })
    case .array(let elements): return .array(elements.map(sortedKeys))
    default: return value
    }
  }

  /// The reference tokens of a JSON Pointer, unescaped (`~1` is `/`, then `~0` is `~`).
  static func tokens(_ pointer: String) throws -> [String] {
    if pointer.isEmpty { return [] }
    guard pointer.hasPrefix("/") else { throw Failure(description: "bad pointer '\(pointer)'") }
    return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
      String($0).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
  }

  private static func apply(
    _ op: JSONPatch.Operation, tokens: ArraySlice<String>, to value: JSONValue
  ) throws -> JSONValue {
    guard let token = tokens.first else {
      guard op.kind != .remove, let new = op.value else {
        throw Failure(description: "cannot remove the whole document")
      }
      return new
    }
    let last = tokens.count == 1
    switch value {
    case .object(var members):
      let index = members.firstIndex { $0.0 == token }
      if last {
        switch op.kind {
        case .add:
          guard let new = op.value else { throw Failure(description: "add without a value") }
          if let index { members[index].1 = new } else { members.append((token, new)) }
        case .remove:
          guard let index else { throw Failure(description: "no member '\(token)' to remove") }
          members.remove(at: index)
        case .replace:
          guard let index, let new = op.value else {
            throw Failure(description: "no member '\(token)' to replace")
          }
          members[index].1 = new
        }
        return .object(members)
      }
      guard let index else { throw Failure(description: "no member '\(token)' in \(op.path)") }
      members[index].1 = try apply(op, tokens: tokens.dropFirst(), to: members[index].1)
      return .object(members)
    case .array(var elements):
      let i = token == "-" ? elements.count : Int(token) ?? -1
      if last {
        switch op.kind {
        case .add:
          guard (0...elements.count).contains(i), let new = op.value else {
            throw Failure(description: "index \(token) out of range in \(op.path)")
          }
          elements.insert(new, at: i)
        case .remove:
          guard elements.indices.contains(i) else {
            throw Failure(description: "index \(token) out of range in \(op.path)")
          }
          elements.remove(at: i)
        case .replace:
          guard elements.indices.contains(i), let new = op.value else {
            throw Failure(description: "index \(token) out of range in \(op.path)")
          }
          elements[i] = new
        }
        return .array(elements)
      }
      guard elements.indices.contains(i) else {
        throw Failure(description: "index \(token) out of range in \(op.path)")
      }
      elements[i] = try apply(op, tokens: tokens.dropFirst(), to: elements[i])
      return .array(elements)
    default:
      throw Failure(description: "\(op.path) goes through a scalar")
    }
  }
}
