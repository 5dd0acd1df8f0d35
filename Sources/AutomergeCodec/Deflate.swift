import CZlib

/// Raw DEFLATE (RFC 1951, no zlib or gzip framing) through system zlib, `windowBits = -15`
/// (§3.1, §7.8).
enum Deflate {
  /// The largest output `inflate` produces: DEFLATE cannot expand more than 1032:1, so this
  /// bound only stops hostile streams, never a valid one below 1 GiB.
  static func outputLimit(forInput count: Int) -> Int {
    min(1 << 30, 1040 &* count &+ 4096)
  }

  /// Inflates a complete raw DEFLATE stream.
  ///
  /// - Parameters:
  ///   - input: the compressed bytes; the stream must end exactly at their end.
  ///   - offset: the absolute offset of `input` in the file, for errors.
  /// - Returns: the inflated bytes.
  /// - Throws: `AutomergeDecodeError.corruptDeflate` when the stream is malformed, truncated,
  ///   followed by extra bytes, or inflates beyond `outputLimit`.
  static func inflate(_ input: UnsafeBufferPointer<UInt8>, offset: Int) throws -> [UInt8] {
    let result = inflate(input, limit: outputLimit(forInput: input.count))
    guard let output = result.output else {
      throw AutomergeDecodeError.corruptDeflate(reason: result.reason, offset: offset)
    }
    return output
  }

  /// Inflates a complete raw DEFLATE stream to at most `limit` bytes; on failure, the reason
  /// and how much it produced before it (salvage charges that work as done).
  static func inflate(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> (
    output: [UInt8]?, produced: Int, reason: String
  ) {
    var stream = z_stream()
    guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { return (nil, 0, "cannot initialise zlib") }
    defer { inflateEnd(&stream) }
    var out = [UInt8](repeating: 0, count: min(limit, max(64, input.count &* 4)))
    var produced = 0
    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
    stream.avail_in = UInt32(input.count)
    while true {
      if produced == out.count {
        guard out.count < limit else { return (nil, produced, "inflated data too large") }
        out.append(contentsOf: repeatElement(0, count: min(limit - out.count, out.count)))
      }
      let status: Int32 = out.withUnsafeMutableBufferPointer { o in
        // `out` is never empty here (at least 64 bytes), so it has a base address.
        stream.next_out = o.baseAddress.map { $0 + produced }
        stream.avail_out = UInt32(o.count - produced)
        let r = CZlib.inflate(&stream, Z_NO_FLUSH)
        produced = o.count - Int(stream.avail_out)
        return r
      }
      if status == Z_STREAM_END { break }
      if status == Z_OK { continue }
      if status == Z_BUF_ERROR && stream.avail_out == 0 { continue }
      return (nil, produced, status == Z_BUF_ERROR ? "stream ends early" : "invalid data")
    }
    guard stream.avail_in == 0 else { return (nil, produced, "extra bytes after stream") }
    out.removeSubrange(produced...)
    return (out, produced, "")
  }

  /// Compresses `input` to a raw DEFLATE stream at zlib's default level (6, as flate2).
  static func deflate(_ input: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    guard
      deflateInit2_(
        &stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
        Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { return [] }
    defer { deflateEnd(&stream) }
    let bound = Int(deflateBound(&stream, UInt(input.count)))
    var out = [UInt8](repeating: 0, count: bound + 16)
    var produced = 0
    input.withUnsafeBufferPointer { i in
      out.withUnsafeMutableBufferPointer { o in
        stream.next_in = UnsafeMutablePointer(mutating: i.baseAddress)
        stream.avail_in = UInt32(i.count)
        stream.next_out = o.baseAddress
        stream.avail_out = UInt32(o.count)
        _ = CZlib.deflate(&stream, Z_FINISH)
        produced = o.count - Int(stream.avail_out)
      }
    }
    out.removeSubrange(produced...)
    return out
  }
}
