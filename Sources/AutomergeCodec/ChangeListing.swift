/// The text listings of `mn doc heads` and `mn doc changes` (mn.md §9), as pure functions.
///
/// They are exactly the `.heads` and `.changes` files of the fixtures: one line each, every
/// line ending in a newline.
public enum ChangeListing {
  /// Sorted head hashes, hex, one a line.
  public static func heads(_ heads: [ChangeHash]) -> String {
    var out = ""
    for h in heads.sorted() {
      out += h.description
      out += "\n"
    }
    return out
  }

  /// One line per change, `hash actor seq startOp time deps message`, sorted by
  /// (actor bytes, seq); deps sorted and comma-separated or `-`; the message as a JSON string
  /// literal or `null`.
  public static func changes(_ changes: [Change]) -> String {
    let sorted = changes.sorted {
      let a = $0.actors[0]
      let b = $1.actors[0]
      if a != b { return a < b }
      return $0.seq < $1.seq
    }
    var out = ""
    for c in sorted { out += line(c) }
    return out
  }

  /// The listing line of one change, newline included.
  public static func line(_ c: Change) -> String {
    var s = c.hash.description
    s += " "
    s += c.actors[0].description
    s += " \(c.seq) \(c.startOp) \(c.time) "
    if c.deps.isEmpty {
      s += "-"
    } else {
      s += c.deps.sorted().map(\.description).joined(separator: ",")
    }
    s += " "
    if let m = c.message { s += jsonString(m) } else { s += "null" }
    s += "\n"
    return s
  }

  /// A JSON string literal: `"` and `\` escaped, control characters as `\n`-style escapes or
  /// `\u00xx`, everything else verbatim (serde_json's form).
  public static func jsonString(_ text: String) -> String {
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    var out: [UInt8] = [0x22]
    for b in text.utf8 {
      switch b {
      case 0x22: out += [0x5c, 0x22]
      case 0x5c: out += [0x5c, 0x5c]
      case 0x0a: out += [0x5c, 0x6e]
      case 0x0d: out += [0x5c, 0x72]
      case 0x09: out += [0x5c, 0x74]
      case 0x08: out += [0x5c, 0x62]
      case 0x0c: out += [0x5c, 0x66]
      case 0..<0x20: out += [0x5c, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]]
      default: out.append(b)
      }
    }
    out.append(0x22)
    return String(decoding: out, as: UTF8.self)
  }
}
