/// Builds ustar archives byte by byte, so that tests can make entries no well-behaved writer
/// would (absolute paths, `..`, links, devices, lying sizes).
struct TarBuilder {
  enum TypeFlag: UInt8 {
    case file = 0x30  // "0"
    case hardLink = 0x31  // "1"
    case symbolicLink = 0x32  // "2"
    case character = 0x33  // "3"
    case block = 0x34  // "4"
    case directory = 0x35  // "5"
    case fifo = 0x36  // "6"
  }

  private(set) var bytes: [UInt8] = []

  private static func octal(_ value: Int, width: Int) -> [UInt8] {
    let digits = String(value, radix: 8)
    let padded = String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
    return Array(padded.utf8) + [0]
  }

  /// Appends one entry; `declaredSize` overrides the header's size field.
  mutating func add(
    _ name: String, _ content: [UInt8] = [], type: TypeFlag = .file, link: String = "",
    mode: Int = 0o644, declaredSize: Int? = nil
  ) {
    var header = [UInt8](repeating: 0, count: 512)
    func put(_ field: [UInt8], at offset: Int) {
      for (i, b) in field.enumerated() { header[offset + i] = b }
    }
    put(Array(name.utf8.prefix(100)), at: 0)
    put(Self.octal(mode, width: 8), at: 100)
    put(Self.octal(0, width: 8), at: 108)
    put(Self.octal(0, width: 8), at: 116)
    put(Self.octal(declaredSize ?? content.count, width: 12), at: 124)
    put(Self.octal(1_700_000_000, width: 12), at: 136)
    put(Array(repeating: 0x20, count: 8), at: 148)
    header[156] = type.rawValue
    put(Array(link.utf8.prefix(100)), at: 157)
    put(Array("ustar\0".utf8), at: 257)
    put(Array("00".utf8), at: 263)
    put(Self.octal(0, width: 8), at: 329)
    put(Self.octal(0, width: 8), at: 337)
    let sum = header.reduce(0) { $0 + Int($1) }
    put(Self.octal(sum, width: 7) + [0x20], at: 148)
    bytes += header
    bytes += content
    let padding = (512 - content.count % 512) % 512
    bytes += [UInt8](repeating: 0, count: padding)
  }

  /// The archive with its two zero end blocks.
  var archive: [UInt8] { bytes + [UInt8](repeating: 0, count: 1024) }
}
