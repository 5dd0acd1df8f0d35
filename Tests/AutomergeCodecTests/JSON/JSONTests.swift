import Testing

@testable import AutomergeCodec
@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct JSONTests {
  @Test(arguments: [
    "null", "true", "false", "0", "-12", "18446744073709551615", "3.25",
    "\"a\\nb\\u00e9\\ud83d\\ude00\"",
    "[]", "{}", "[1,[2,{\"a\":null}]]", "{\"b\":1,\"a\":[true,false]}",
  ])
  func roundTrip(text: String) throws {
    let value = try JSONParser.parse(Array(text.utf8))
    let again = try JSONParser.parse(Array(JSONWriter.string(value).utf8))
    #expect(value == again)
    let pretty = try JSONParser.parse(Array(JSONWriter.string(value, indent: 2).utf8))
    #expect(value == pretty)
  }

  @Test(arguments: [
    "", "[", "{\"a\"}", "[1,]", "tru", "\"\\x\"", "1 2", "\"\u{01}\"", "-", "{1:2}",
  ])
  func rejects(text: String) {
    #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
  }

  @Test func deepNestingIsAnErrorNotACrash() {
    let text = String(repeating: "[", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
  }

  @Test func escapesAndNumbers() {
    #expect(JSONWriter.string(.string("a\"b\\c\u{1}")) == #""a\"b\\c\u0001""#)
    // Escapes at both ends, back to back, between runs of plain and non-ASCII bytes.
    #expect(JSONWriter.string(.string("\"\n\u{1f}é\tx\\")) == #""\"\n\u001fé\tx\\""#)
    #expect(JSONWriter.string(.string("")) == #""""#)
    #expect(JSONWriter.string(.double(3.0)) == "3")
    #expect(JSONWriter.string(.double(0.1)) == "0.1")
    #expect(JSONWriter.string(.double(.nan)) == "null")
    #expect(JSONValue.int(3) == JSONValue.double(3))
    #expect(JSONValue.uint(UInt64.max) != JSONValue.int(-1))
  }

  @Test func sortedKeysUsesByteOrder() {
    let v = JSONValue.object([("b", .int(1)), ("B", .int(2)), ("é", .int(3)), ("a", .int(4))])
    #expect(JSONWriter.string(v.sortedKeys) == #"{"B":2,"a":4,"b":1,"é":3}"#)
  }
}

/// `JSONStream` writes what `JSONWriter` writes for the same value.
@Suite struct JSONStreamTests {
  /// Replays a value through the stream's calls.
  private func stream(_ value: JSONValue, into out: inout JSONStream) {
    switch value {
    case .array(let items):
      out.beginArray()
      for item in items { stream(item, into: &out) }
      out.endArray()
    case .object(let members):
      out.beginObject()
      for (key, item) in members {
        out.key(key)
        stream(item, into: &out)
      }
      out.endObject()
    case .string(let s): out.string(s)
    case .int(let v): out.int(v)
    case .null: out.null()
    default: out.value(value)
    }
  }

  @Test(arguments: [0, 2])
  func matchesTheTreeWriter(indent: Int) {
    let values: [JSONValue] = [
      .array([]), .object([]), .int(0), .int(-7), .int(Int64.min), .int(Int64.max), .null,
      .string("a\"b\\c\n\u{1}é"), .string(""),
      .array([.string(""), .string("x"), .object([("", .string("y"))])]),
      .array([.int(1), .array([]), .object([]), .array([.null, .bool(true)])]),
      .object([
        ("name", .string("records/2026/09.automerge")), ("size", .int(100)),
        ("placeholder", .object([("kind", .string("icloud")), ("declaredSize", .int(12))])),
        ("copies", .array([.object([("path", .string("/x")), ("date", .double(1.5))])])),
        ("empty", .array([])),
      ]),
    ]
    var literal = JSONStream(indent: indent)
    literal.beginObject()
    literal.literalKey("size")
    literal.int(1)
    literal.endObject()
    #expect(
      literal.bytes == Array(JSONWriter.string(.object([("size", .int(1))]), indent: indent).utf8))
    for value in values {
      var out = JSONStream(indent: indent)
      stream(value, into: &out)
      #expect(
        String(decoding: out.bytes, as: UTF8.self) == JSONWriter.string(value, indent: indent),
        "\(value)")
    }
  }
}

extension JSONStreamTests {
  /// Literal keys, written as one run each, give what the tree writer gives: first and later
  /// members, at every level, after an array and after an object.
  @Test(arguments: [0, 2])
  func literalKeysMatchTheTreeWriter(indent: Int) {
    var out = JSONStream(indent: indent)
    out.beginArray()
    for n in 0..<2 {
      out.beginObject()
      out.literalKey("name")
      out.string("records/2026/0\(n).automerge")
      out.literalKey("copies")
      out.beginArray()
      out.beginObject()
      out.literalKey("path")
      out.string("/a \"b\"")
      out.literalKey("placeholder")
      out.beginObject()
      out.literalKey("kind")
      out.string("icloud")
      out.endObject()
      out.literalKey("size")
      out.int(-3)
      out.endObject()
      out.endArray()
      out.literalKey("empty")
      out.beginObject()
      out.endObject()
      out.endObject()
    }
    out.endArray()
    let member = { (n: Int) -> JSONValue in
      .object([
        ("name", .string("records/2026/0\(n).automerge")),
        (
          "copies",
          .array([
            .object([
              ("path", .string("/a \"b\"")),
              ("placeholder", .object([("kind", .string("icloud"))])), ("size", .int(-3)),
            ])
          ])
        ),
        ("empty", .object([])),
      ])
    }
    let expected = JSONWriter.string(.array([member(0), member(1)]), indent: indent)
    #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
  }
}

@Suite struct JSONEscapeTests {
  /// The word-at-a-time test agrees with the byte rule (a quote, a backslash or a byte below
  /// 0x20) for every byte value at every position of strings of 1 to 19 bytes, among bytes
  /// that need no escape, ASCII or not.
  @Test func needsEscapeAgreesWithTheByteRule() {
    let plain: [UInt8] = [0x20, 0x41, 0x7E, 0x7F, 0x80, 0xC3, 0xFF, 0x21, 0x5B, 0x5D]
    for length in 1...19 {
      for position in 0..<length {
        for byte in UInt8.min...UInt8.max {
          var bytes = (0..<length).map { plain[$0 % plain.count] }
          bytes[position] = byte
          let expected = byte < 0x20 || byte == 0x22 || byte == 0x5C
          let found = bytes.withUnsafeBufferPointer { JSONWriter.needsEscape($0) }
          #expect(found == expected, "byte \(byte) at \(position) of \(length)")
          if found != expected { return }
        }
      }
    }
    #expect(!JSONWriter.needsEscape(UnsafeBufferPointer(start: nil, count: 0)))
  }
}

@Suite struct UTCDateTimeFormatTests {
  /// The byte-by-byte ISO 8601 form equals the padded-string form, across years.
  @Test func iso8601MatchesThePaddedForm() {
    let samples: [Int64] = [
      0, -1, 86_399, 951_782_400, 1_788_709_512, 253_402_300_799, 253_402_300_800,
      -62_135_596_800, -62_167_219_200, -62_198_755_200, 4_102_444_800,
    ]
    for seconds in samples + (0..<500).map({ Int64($0) * 7_919_993 - 1_000_000_000 }) {
      let time = UTCDateTime(secondsSinceEpoch: seconds)
      #expect(time.iso8601 == time.paddedISO8601, "\(seconds)")
    }
    #expect(UTCDateTime(secondsSinceEpoch: 1_788_709_512).iso8601 == "2026-09-06T15:45:12Z")
  }
}
