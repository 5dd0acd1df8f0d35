/// A JSON value, with integers kept exact and object keys in insertion order.
///
/// mn writes JSON for `--json` output, `mn doc show` and archive manifests, and reads it back
/// for manifests, without Foundation (start-up time).
public enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case int(Int64)
  case uint(UInt64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  /// Members in order; writers keep this order, `sortedKeys` sorts by UTF-8 bytes.
  case object([(String, JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)): return x == y
    case (.object(let x), .object(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default:
      guard let x = a.numberValue, let y = b.numberValue else { return false }
      return x == y
    }
  }

  /// Numbers compared by value: exact for integers, as doubles otherwise.
  private var numberValue: NumberValue? {
    switch self {
    case .int(let v): return .integer(v < 0 ? .negative(v) : .positive(UInt64(v)))
    case .uint(let v): return .integer(.positive(v))
    case .double(let d):
      if d == d.rounded(), abs(d) < 9.0e15 {
        return .integer(d < 0 ? .negative(Int64(d)) : .positive(UInt64(d)))
      }
      return .real(d)
    default: return nil
    }
  }

  private enum IntegerValue: Equatable {
    case negative(Int64)
    case positive(UInt64)
  }

  private enum NumberValue: Equatable {
    case integer(IntegerValue)
    case real(Double)
  }

  /// The member `key` of an object, or nil.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }

  /// The string, or nil when this is not a string.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The value as a signed integer when it is an integral number that fits.
  public var int64Value: Int64? {
    switch self {
    case .int(let v): return v
    case .uint(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
    case .double(let d): return d == d.rounded() && abs(d) < 9.0e15 ? Int64(d) : nil
    default: return nil
    }
  }

  /// The elements, or nil when this is not an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// The same value with every object's members sorted by key (UTF-8 byte order), deeply.
  public var sortedKeys: JSONValue {
    switch self {
    case .array(let a): return .array(a.map(\.sortedKeys))
    case .object(let m):
      return .object(
        m.map { ($0.0, $0.1.sortedKeys) }
          .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
    default: return self
    }
  }
}
