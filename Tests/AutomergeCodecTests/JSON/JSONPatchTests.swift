import Testing

@testable import AutomergeCodec
@testable import TestSupport

@Suite struct JSONPatchTests {
  static func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

  @Test(arguments: [
    ("{}", "{}", ""),
    ("{\"a\":1}", "{\"a\":2}", "replace /a 2"),
    ("{\"a\":1}", "{}", "remove /a"),
    ("{}", "{\"a\":{\"b\":[1]}}", "add /a {\"b\":[1]}"),
    ("{\"a/b~c\":1}", "{\"a/b~c\":true}", "replace /a~1b~0c true"),
    (
      "{\"r\":{\"k\":{\"note\":\"x\",\"end\":null}}}",
      "{\"r\":{\"k\":{\"note\":\"x +1\",\"end\":null}}}",
      "replace /r/k/note \"x +1\""
    ),
    ("[1,2,3]", "[1,9,2,3]", "add /1 9"),
    ("[1,2,3,4]", "[1,4]", "remove /1; remove /1"),
    ("[1,2]", "[1,2,3,4]", "add /2 3; add /3 4"),
    ("[1,2]", "{}", "replace  {}"),
    ("{\"a\":1}", "{\"a\":\"1\"}", "replace /a \"1\""),
  ])
  func diff(_ old: String, _ new: String, _ expected: String) throws {
    let patch = JSONPatch.diff(try Self.parse(old), try Self.parse(new))
    let text = patch.map { op in
      "\(op.kind.rawValue) \(op.path)" + (op.value.map { " " + JSONWriter.string($0) } ?? "")
    }.joined(separator: "; ")
    #expect(text == expected)
    let applied = try JSONPatchApplier.apply(patch, to: Self.parse(old))
    #expect(
      JSONPatchApplier.sortedKeys(applied) == JSONPatchApplier.sortedKeys(try Self.parse(new)))
  }

  @Test func removalsCarryTheOldValueAndRFCFormHasNoneForThem() throws {
    let patch = JSONPatch.diff(try Self.parse("{\"a\":[7]}"), try Self.parse("{}"))
    #expect(patch == [JSONPatch.Operation(kind: .remove, path: "/a", old: .array([.int(7)]))])
    #expect(JSONWriter.string(patch[0].json) == "{\"op\":\"remove\",\"path\":\"/a\"}")
  }

  /// A random JSON value: maps with keys that need escaping, lists, scalars.
  static func random(_ rng: inout SplitMix64, depth: Int = 0) -> JSONValue {
    let keys = ["a", "b", "c/d", "~e", "", "f~1"]
    switch depth > 3 ? rng.below(4) : rng.below(6) {
    case 0: return .int(Int64(rng.below(4)))
    case 1: return .string(["x", "y", "z"][rng.below(3)])
    case 2: return rng.below(2) == 0 ? .null : .bool(rng.below(2) == 0)
    case 3: return .double(Double(rng.below(3)) + 0.5)
    case 4:
      return .array((0..<rng.below(5)).map { _ in random(&rng, depth: depth + 1) })
    default:
      var members: [(String, JSONValue)] = []
      for key in keys where rng.below(2) == 0 {
        members.append((key, random(&rng, depth: depth + 1)))
      }
      return .object(members)
    }
  }

  /// A value like `v` with a few random edits, so that the two share structure.
  static func mutate(_ v: JSONValue, _ rng: inout SplitMix64, depth: Int = 0) -> JSONValue {
    if rng.below(5) == 0 { return random(&rng, depth: depth) }
    switch v {
    case .array(var a):
      for i in a.indices where rng.below(3) == 0 { a[i] = mutate(a[i], &rng, depth: depth + 1) }
      if rng.below(3) == 0 { a.insert(random(&rng, depth: depth + 1), at: rng.below(a.count + 1)) }
      if !a.isEmpty, rng.below(3) == 0 { a.remove(at: rng.below(a.count)) }
      return .array(a)
    case .object(var m):
      for i in m.indices where rng.below(3) == 0 { m[i].1 = mutate(m[i].1, &rng, depth: depth + 1) }
      if !m.isEmpty, rng.below(4) == 0 { m.remove(at: rng.below(m.count)) }
      if rng.below(4) == 0, !m.contains(where: { $0.0 == "new" }) {
        m.append(("new", random(&rng, depth: depth + 1)))
      }
      return .object(m)
    default:
      return v
    }
  }

  @Test func applyingTheDiffGivesTheNewValue() throws {
    let seed: UInt64 = 0x6d6e_2d64_6966_6630
    var rng = SplitMix64(state: seed)
    for round in 0..<2000 {
      let old = Self.random(&rng)
      let new = Self.mutate(old, &rng)
      let patch = JSONPatch.diff(old, new)
      let applied = try JSONPatchApplier.apply(patch, to: old)
      #expect(
        JSONPatchApplier.sortedKeys(applied) == JSONPatchApplier.sortedKeys(new),
        "seed \(seed), round \(round)")
      #expect(JSONPatch.diff(old, old).isEmpty, "seed \(seed), round \(round)")
    }
  }
}
