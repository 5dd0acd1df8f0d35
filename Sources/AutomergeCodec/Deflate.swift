import CDeflate
import CZlib

/// Raw DEFLATE (RFC 1951, no zlib or gzip framing, §3.1, §7.8): read by zlib, written by
/// libdeflate.
///
/// Reading decides whether a file loads, so it must refuse what the real Automerge refuses
/// and take what it takes. The reference inflates with miniz_oxide (flate2 1.0.25, in both
/// oracles), which takes a dynamic block's header however many codes it declares (up to 288
/// literal/length and 32 distance codes) and refuses the data when it uses a symbol with
/// no meaning (lengths 286 and 287, distances 30 and 31). zlib refuses those symbols too,
/// and also such headers; libdeflate takes both. So zlib reads, and a stream zlib refuses
/// for its header's counts is read again by libdeflate: mn and the reference then differ
/// only on a stream with such a header that also holds what zlib refuses and libdeflate
/// takes, one of those symbols for one (the reference refuses it, mn takes it; no writer
/// makes either; docs/codec.md, "Reading with zlib again").
/// Writing has no such question: libdeflate deflates a month's columns in about half zlib's
/// time at the same level, a little smaller.
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
  ///
  /// It inflates into the rooms `nextRoom(after:input:limit:)` gives, carrying over what was
  /// inflated. `Z_FINISH` lets zlib write straight into the room, without its 32 KB window,
  /// when the room is enough.
  static func inflate(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> (
    output: [UInt8]?, produced: Int, reason: String
  ) {
    var stream = z_stream()
    guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { return (nil, 0, "cannot initialise zlib") }
    defer { inflateEnd(&stream) }
    // zlib reads `next_in` only (its type predates `const`).
    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
    stream.avail_in = UInt32(input.count)
    var out: [UInt8] = []
    var room = nextRoom(after: nil, input: input.count, limit: limit)
    while true {
      var status = Z_OK
      out = [UInt8](unsafeUninitializedCapacity: room) { o, count in
        count = o.initialize(fromContentsOf: out)
        // Without an address (no room at all) zlib refuses the call.
        stream.next_out = o.baseAddress.map { $0 + count }
        stream.avail_out = UInt32(room - count)
        status = CZlib.inflate(&stream, Z_FINISH)
        count = room - Int(stream.avail_out)
      }
      if status == Z_STREAM_END { break }
      if status == Z_DATA_ERROR, stream.msg.map({ String(cString: $0) }) == zlibCodeCounts {
        return inflateWhole(input, limit: limit)
      }
      guard status == Z_BUF_ERROR || status == Z_OK else {
        return (nil, out.count, "invalid data")
      }
      guard stream.avail_out == 0 else { return (nil, out.count, "stream ends early") }
      guard room < limit else { return (nil, out.count, "inflated data too large") }
      room = nextRoom(after: room, input: input.count, limit: limit)
    }
    guard stream.avail_in == 0 else { return (nil, out.count, "extra bytes after stream") }
    // The output keeps its room, whose part never written is mostly never resident: copying
    // each column into storage of its own size left the peak resident memory of `doctor`,
    // `doc show` and a merge where it was. (`Array(out)`, which stood here to do that, shares
    // the room's storage: it copied nothing.)
    return (out, out.count, "")
  }

  /// The room a try inflates into, since a stream does not say how long it inflates to: four
  /// times the input at first (the corpus's columns inflate to less, but for a few), four
  /// times the `previous` room after that, never more than `limit`.
  private static func nextRoom(after previous: Int?, input count: Int, limit: Int) -> Int {
    min(limit, previous.map { $0 &* 4 } ?? max(64, count &* 4))
  }

  /// zlib's reason for a dynamic block that declares more than 286 literal/length or 30
  /// distance codes, which the reference reads.
  private static let zlibCodeCounts = "too many length or distance symbols"

  /// `inflate(_:limit:)` by libdeflate, for a stream zlib refuses for its code counts alone:
  /// a whole buffer, into the same rooms.
  private static func inflateWhole(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> (
    output: [UInt8]?, produced: Int, reason: String
  ) {
    guard let base = input.baseAddress, let decompressor = libdeflate_alloc_decompressor()
    else { return (nil, 0, "invalid data") }
    defer { libdeflate_free_decompressor(decompressor) }
    var room = nextRoom(after: nil, input: input.count, limit: limit)
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
        return (output, produced, "")
      case LIBDEFLATE_INSUFFICIENT_SPACE:
        guard room < limit else { return (nil, room, "inflated data too large") }
        room = nextRoom(after: room, input: input.count, limit: limit)
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
