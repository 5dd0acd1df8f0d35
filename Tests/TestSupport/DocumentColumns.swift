import CDeflate

/// The content of a file's document chunks with every column inflated: what two writers of
/// the same document must agree on when their deflate backends differ (format §7.8).
/// Checksums and compressed bytes are left out; change chunks are kept whole.
public enum DocumentColumns {
  /// One line per field: each document chunk's actors, heads, change and op columns
  /// (normalized spec and hex of the inflated bytes) and head indexes, and each change
  /// chunk's type and body. Nil when the bytes are not well-formed chunks.
  public static func listing(_ bytes: [UInt8]) -> [String]? {
    var r = Reader(bytes: bytes)
    var out: [String] = []
    while r.at < bytes.count {
      guard r.take(8) != nil, let type = r.byte(), let length = r.uleb(),
        let body = r.take(Int(length))
      else { return nil }
      if type != 0 {
        out.append("chunk \(type) \(hex(body))")
        continue
      }
      guard let lines = document(body) else { return nil }
      out += lines
    }
    return out
  }

  private static func document(_ body: [UInt8]) -> [String]? {
    var r = Reader(bytes: body)
    var out: [String] = []
    guard let actors = r.uleb() else { return nil }
    for _ in 0..<actors {
      guard let n = r.uleb(), let a = r.take(Int(n)) else { return nil }
      out.append("actor \(hex(a))")
    }
    guard let heads = r.uleb() else { return nil }
    for _ in 0..<heads {
      guard let h = r.take(32) else { return nil }
      out.append("head \(hex(h))")
    }
    var metadata: [[(UInt64, UInt64)]] = []
    for _ in 0..<2 {
      guard let n = r.uleb() else { return nil }
      var columns: [(UInt64, UInt64)] = []
      for _ in 0..<n {
        guard let spec = r.uleb(), let length = r.uleb() else { return nil }
        columns.append((spec, length))
      }
      metadata.append(columns)
    }
    for (kind, columns) in zip(["change", "op"], metadata) {
      for (spec, length) in columns {
        guard var data = r.take(Int(length)) else { return nil }
        if spec & 8 != 0 {
          guard let inflated = inflate(data) else { return nil }
          data = inflated
        }
        out.append("\(kind) column \(spec & ~8) \(hex(data))")
      }
    }
    out.append("head indexes \(hex(Array(body[r.at...])))")
    return out
  }

  private struct Reader {
    let bytes: [UInt8]
    var at = 0

    mutating func byte() -> UInt8? {
      guard at < bytes.count else { return nil }
      at += 1
      return bytes[at - 1]
    }

    mutating func take(_ n: Int) -> [UInt8]? {
      guard n >= 0, n <= bytes.count - at else { return nil }
      at += n
      return Array(bytes[(at - n)..<at])
    }

    mutating func uleb() -> UInt64? {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while let b = byte(), shift < 64 {
        value |= UInt64(b & 0x7f) << shift
        if b < 0x80 { return value }
        shift += 7
      }
      return nil
    }
  }

  private static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var s = ""
    for b in bytes {
      s.append(digits[Int(b >> 4)])
      s.append(digits[Int(b & 15)])
    }
    return s
  }

  /// Raw DEFLATE (no zlib framing), as a document's columns are stored, inflated by
  /// libdeflate: a second opinion on the codec's zlib. At most `limit` bytes (libdeflate needs
  /// room for the whole output, and these are the tests' columns).
  public static func inflate(_ input: [UInt8], limit: Int = 1 << 26) -> [UInt8]? {
    guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(decompressor) }
    var result = LIBDEFLATE_BAD_DATA
    let output = [UInt8](unsafeUninitializedCapacity: limit) { out, count in
      var produced = 0
      result = libdeflate_deflate_decompress(
        decompressor, input, input.count, out.baseAddress, limit, &produced)
      count = result == LIBDEFLATE_SUCCESS ? produced : 0
    }
    return result == LIBDEFLATE_SUCCESS ? output : nil
  }
}
