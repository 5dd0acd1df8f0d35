import Testing

@testable import Core

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
