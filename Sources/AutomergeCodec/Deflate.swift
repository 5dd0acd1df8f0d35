import CDeflate

/// Raw DEFLATE (RFC 1951, no zlib or gzip framing, §3.1, §7.8) through libdeflate, which
/// works on whole buffers: all a column or a compressed change chunk is. It inflates a
/// month's columns in less than half zlib's time, and deflates them in about half at the
/// same level, a little smaller (docs/codec.md, "libdeflate").
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
  /// and the room it inflated into (salvage charges that work as done).
  ///
  /// A stream does not say how long it inflates to, and libdeflate needs room for all of
  /// it: the first try has four times the input (the columns of the corpus inflate to less,
  /// but for a few), each next one four times more, up to `limit`.
  static func inflate(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> (
    output: [UInt8]?, produced: Int, reason: String
  ) {
    guard let base = input.baseAddress, !input.isEmpty else {
      return (nil, 0, "stream ends early")
    }
    guard let decompressor = libdeflate_alloc_decompressor() else {
      return (nil, 0, "cannot allocate a decompressor")
    }
    defer { libdeflate_free_decompressor(decompressor) }
    var room = min(limit, max(64, input.count &* 4))
    while true {
      var result = LIBDEFLATE_BAD_DATA
      var consumed = 0
      var produced = 0
      let output = [UInt8](unsafeUninitializedCapacity: room) { out, count in
        result = libdeflate_deflate_decompress_ex(
          decompressor, base, input.count, out.baseAddress, room, &consumed, &produced)
        count = result == LIBDEFLATE_SUCCESS ? produced : 0
      }
      switch result {
      case LIBDEFLATE_SUCCESS:
        guard consumed == input.count else { return (nil, produced, "extra bytes after stream") }
        // A try with far more room than the output needed is not kept that large.
        return (room > 2 * produced && room >= 1 << 16 ? Array(output) : output, produced, "")
      case LIBDEFLATE_INSUFFICIENT_SPACE:
        guard room < limit else { return (nil, room, "inflated data too large") }
        room = min(limit, room &* 4)
      default:
        return (nil, 0, "invalid data")
      }
    }
  }

  /// Compresses `input` to a raw DEFLATE stream at level 6 (flate2's default, which Automerge
  /// uses; the bytes differ from Rust's, the inflated columns do not). Empty when it fails.
  static func deflate(_ input: [UInt8]) -> [UInt8] {
    guard let compressor = libdeflate_alloc_compressor(6) else { return [] }
    defer { libdeflate_free_compressor(compressor) }
    let bound = libdeflate_deflate_compress_bound(compressor, input.count)
    return input.withUnsafeBufferPointer { i in
      [UInt8](unsafeUninitializedCapacity: bound) { out, count in
        count = libdeflate_deflate_compress(
          compressor, i.baseAddress, i.count, out.baseAddress, bound)
      }
    }
  }
}
