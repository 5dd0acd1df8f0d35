/// A structural difference between two JSON values as an RFC 6902 JSON Patch: the `add`,
/// `remove` and `replace` operations that turn the first value into the second, applied in
/// order.
///
/// Paths are RFC 6901 JSON Pointers (`~` written `~0`, `/` written `~1`). Objects are
/// compared key by key (keys only in the old value removed, only in the new one added, in
/// both compared in turn); arrays past their common head and tail element by element, then
/// the extra new elements added or the extra old ones removed, each index valid when its
/// operation is applied. A value whose kind changed (or a scalar that
/// changed) is replaced whole. No schema is assumed.
public enum JSONPatch {
  /// The operation of one patch entry.
  public enum Kind: String, Sendable, Equatable {
    case add, remove, replace
  }

  /// One entry: `value` is the new value (nil for `remove`), `old` the value it replaces or
  /// removes (nil for `add`; not part of RFC 6902, shown by the text form).
  public struct Operation: Sendable, Equatable {
    public var kind: Kind
    /// The JSON Pointer, escaped.
    public var path: String
    public var value: JSONValue?
    public var old: JSONValue?

    public init(kind: Kind, path: String, value: JSONValue? = nil, old: JSONValue? = nil) {
      self.kind = kind
      self.path = path
      self.value = value
      self.old = old
    }

    /// The RFC 6902 form: `{"op": …, "path": …, "value": …}` (no `value` for `remove`).
    public var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("op", .string(kind.rawValue)), ("path", .string(path)),
      ]
      if let value { members.append(("value", value)) }
      return .object(members)
    }
  }

  /// The operations that turn `old` into `new`; empty when they are equal.
  public static func diff(_ old: JSONValue, _ new: JSONValue) -> [Operation] {
    var out: [Operation] = []
    diff(old, new, at: "", into: &out)
    return out
  }

  /// One reference token escaped for a JSON Pointer (RFC 6901 §4: `~0` first, then `~1`).
  public static func escape(_ token: String) -> String {
    guard token.contains(where: { $0 == "~" || $0 == "/" }) else { return token }
    var out = ""
    for c in token {
      switch c {
      case "~": out += "~0"
      case "/": out += "~1"
      default: out.append(c)
      }
    }
    return out
  }

  private static func diff(
    _ old: JSONValue, _ new: JSONValue, at path: String, into out: inout [Operation]
  ) {
    switch (old, new) {
    case (.object(let a), .object(let b)):
      var newKeys: [String: JSONValue] = [:]
      for (k, v) in b { newKeys[k] = v }
      var oldKeys = Set<String>()
      for (k, v) in a {
        oldKeys.insert(k)
        let child = path + "/" + escape(k)
        if let w = newKeys[k] {
          diff(v, w, at: child, into: &out)
        } else {
          out.append(Operation(kind: .remove, path: child, old: v))
        }
      }
      for (k, w) in b where !oldKeys.contains(k) {
        out.append(Operation(kind: .add, path: path + "/" + escape(k), value: w))
      }
    case (.array(let a), .array(let b)):
      // The common head and tail are left alone, so that one element inserted or removed
      // in the middle is one operation.
      var head = 0
      while head < a.count, head < b.count, a[head] == b[head] { head += 1 }
      var tail = 0
      while tail < a.count - head, tail < b.count - head,
        a[a.count - 1 - tail] == b[b.count - 1 - tail]
      {
        tail += 1
      }
      let (oldMiddle, newMiddle) = (a.count - head - tail, b.count - head - tail)
      let common = min(oldMiddle, newMiddle)
      for i in 0..<common { diff(a[head + i], b[head + i], at: path + "/\(head + i)", into: &out) }
      for i in common..<newMiddle {
        out.append(Operation(kind: .add, path: path + "/\(head + i)", value: b[head + i]))
      }
      // Each removal moves the next old element to the same index.
      for i in common..<oldMiddle {
        out.append(Operation(kind: .remove, path: path + "/\(head + common)", old: a[head + i]))
      }
    default:
      if old != new {
        out.append(Operation(kind: .replace, path: path, value: new, old: old))
      }
    }
  }
}
