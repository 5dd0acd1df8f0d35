/// The chunk container of §3: magic, checksum, type, length, body.
public enum ChunkType: UInt8, Sendable {
  case document = 0
  case change = 1
  case compressedChange = 2
}

/// A chunk header as found in the input, with the location of its body.
struct ChunkHeader: Sendable {
  var offset: Int
  var type: ChunkType
  var checksum: UInt32
  /// The body's range in the input.
  var body: Range<Int>
  /// The range hashed for a type 0 or 1 chunk: type byte, length and body.
  var hashed: Range<Int>
  var end: Int { body.upperBound }
}

enum Chunk {
  static let magic: [UInt8] = [0x85, 0x6f, 0x4a, 0x83]

  /// Reads the header of the chunk at `offset` and checks that its body fits.
  static func header(_ buf: UnsafeBufferPointer<UInt8>, at offset: Int) throws -> ChunkHeader {
    var r = ByteReader(buf, from: offset, to: buf.count)
    for m in magic {
      let b = try r.byte("chunk magic")
      guard b == m else { throw AutomergeDecodeError.badMagic(offset: offset) }
    }
    var checksum: UInt32 = 0
    for _ in 0..<4 { checksum = checksum << 8 | UInt32(try r.byte("chunk checksum")) }
    let typeAt = r.offset
    let t = try r.byte("chunk type")
    guard let type = ChunkType(rawValue: t) else {
      throw AutomergeDecodeError.unsupportedChunkType(t, offset: offset)
    }
    let lengthAt = r.offset
    let length = try r.uleb("chunk length")
    guard length <= UInt64(r.remaining) else {
      throw AutomergeDecodeError.truncated(what: "chunk body", offset: lengthAt)
    }
    let body = r.position..<(r.position + Int(length))
    return ChunkHeader(
      offset: offset, type: type, checksum: checksum, body: body, hashed: typeAt..<body.upperBound)
  }

  /// The first four bytes of a hash, as stored in a chunk header.
  static func checksum(of hash: ChangeHash) -> UInt32 { UInt32(truncatingIfNeeded: hash.w0 >> 32) }
}
