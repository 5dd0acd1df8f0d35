/// Why a JSON text could not be read.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
  /// The byte offset where reading stopped.
  public var offset: Int
  /// What was wrong there.
  public var reason: String

  public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// Reads RFC 8259 JSON into `JSONValue` (strict: no trailing commas, no comments).
///
/// Nesting is limited to `maxDepth` so that hostile input cannot exhaust the stack.
public struct JSONParser {
  private let bytes: [UInt8]
  private var position = 0
  private let maxDepth: Int

  /// Parses one JSON value that fills the whole input (surrounding white space allowed).
  public static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(JSONParseError)
    -> JSONValue
  {
    var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
    parser.skipSpace()
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.position == bytes.count else { throw parser.error("unexpected trailing data") }
    return value
  }

  private init(bytes: [UInt8], maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  private func error(_ reason: String) -> JSONParseError {
    JSONParseError(offset: position, reason: reason)
  }

  private mutating func skipSpace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x09, 0x0a, 0x0d: position += 1
      default: return
      }
    }
  }

  private mutating func expect(_ word: String) throws(JSONParseError) {
    for b in word.utf8 {
      guard position < bytes.count, bytes[position] == b else { throw error("expected '\(word)'") }
      position += 1
    }
  }

  private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth < maxDepth else { throw error("nesting too deep") }
    guard position < bytes.count else { throw error("unexpected end of input") }
    switch bytes[position] {
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "["):
      position += 1
      var items: [JSONValue] = []
      skipSpace()
      if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(items)
      }
      while true {
        skipSpace()
        items.append(try value(depth: depth + 1))
        skipSpace()
        guard position < bytes.count else { throw error("unexpected end of input") }
        if bytes[position] == UInt8(ascii: ",") {
          position += 1
        } else if bytes[position] == UInt8(ascii: "]") {
          position += 1
          return .array(items)
        } else {
          throw error("expected ',' or ']'")
        }
      }
    case UInt8(ascii: "{"):
      position += 1
      var members: [(String, JSONValue)] = []
      skipSpace()
      if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .object(members)
      }
      while true {
        skipSpace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
          throw error("expected a string key")
        }
        let key = try string()
        skipSpace()
        try expect(":")
        skipSpace()
        members.append((key, try value(depth: depth + 1)))
        skipSpace()
        guard position < bytes.count else { throw error("unexpected end of input") }
        if bytes[position] == UInt8(ascii: ",") {
          position += 1
        } else if bytes[position] == UInt8(ascii: "}") {
          position += 1
          return .object(members)
        } else {
          throw error("expected ',' or '}'")
        }
      }
    default:
      return try number()
    }
  }

  private mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[position]
      let d: UInt32
      switch c {
      case 0x30...0x39: d = UInt32(c - 0x30)
      case 0x61...0x66: d = UInt32(c - 0x61 + 10)
      case 0x41...0x46: d = UInt32(c - 0x41 + 10)
      default: throw error("bad \\u escape")
      }
      v = v << 4 | d
      position += 1
    }
    return v
  }

  private mutating func string() throws(JSONParseError) -> String {
    position += 1  // opening quote
    var out: [UInt8] = []
    while true {
      guard position < bytes.count else { throw error("unterminated string") }
      let b = bytes[position]
      position += 1
      switch b {
      case UInt8(ascii: "\""):
        // Not `String(validating:as:)`: it needs macOS 15 (mn.md §15).
        guard let s = out.withUnsafeBufferPointer(UTF8Validation.string) else {
          throw error("string is not valid UTF-8")
        }
        return s
      case UInt8(ascii: "\\"):
        guard position < bytes.count else { throw error("unterminated escape") }
        let e = bytes[position]
        position += 1
        switch e {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5c)
        case UInt8(ascii: "/"): out.append(0x2f)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0c)
        case UInt8(ascii: "n"): out.append(0x0a)
        case UInt8(ascii: "r"): out.append(0x0d)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar) {
            try expect("\\u")
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let u = Unicode.Scalar(scalar) else { throw error("invalid unicode escape") }
          out.append(contentsOf: String(Character(u)).utf8)
        default: throw error("invalid escape")
        }
      case 0..<0x20: throw error("control character in string")
      default: out.append(b)
      }
    }
  }

  private mutating func number() throws(JSONParseError) -> JSONValue {
    let start = position
    var isInteger = true
    if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
    let digitsStart = position
    while position < bytes.count {
      let c = bytes[position]
      if c >= 0x30 && c <= 0x39 {
        position += 1
      } else if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
        || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
      {
        isInteger = false
        position += 1
      } else {
        break
      }
    }
    guard position > digitsStart else { throw error("unexpected character") }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    if isInteger {
      if let v = Int64(text) { return .int(v) }
      if let v = UInt64(text) { return .uint(v) }
    }
    guard let d = Double(text) else { throw error("invalid number '\(text)'") }
    return .double(d)
  }
}
