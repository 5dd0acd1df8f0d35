/// Every way in which Automerge bytes can fail to decode (automerge-format.md §2 to §7).
///
/// Cases carry their subject: an absolute byte offset into the input, a column specification
/// or a change hash. `truncated` means the input ended before a field did; every other case
/// means the bytes are present but not acceptable.
public enum AutomergeDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The input ended inside a field that starts (or was expected) at `offset`.
  case truncated(what: String, offset: Int)
  /// A LEB128 number is overlong (not minimal) or does not fit 64 bits.
  case invalidLEB(reason: String, offset: Int)
  /// A chunk does not start with `85 6f 4a 83`.
  case badMagic(offset: Int)
  /// A chunk type other than 0, 1 or 2 (type 3, the 3.x bundle, included).
  case unsupportedChunkType(UInt8, offset: Int)
  /// The stored checksum is not the first four bytes of the chunk hash.
  case checksumMismatch(offset: Int, stored: UInt32, computed: UInt32)
  /// A DEFLATE stream is corrupt, or inflates beyond the allowed bound.
  case corruptDeflate(reason: String, offset: Int)
  /// A string field is not valid UTF-8.
  case invalidUTF8(offset: Int)
  /// The column metadata block is not acceptable (order, duplicates, deflate flag, layout).
  case invalidColumnLayout(reason: String, offset: Int)
  /// A column's data does not decode, or holds a value out of its domain.
  case invalidColumn(spec: UInt32, reason: String, chunkOffset: Int)
  /// A change chunk's fields are out of their domain.
  case invalidChange(reason: String, offset: Int)
  /// A document chunk's fields or ops are inconsistent.
  case invalidDocument(reason: String, offset: Int)
  /// The heads regenerated from a document chunk are not its stored heads.
  case headsMismatch(offset: Int)
  /// Bytes are left inside a chunk after its last field.
  case trailingBytes(what: String, offset: Int)
  /// Two different changes have the same actor and sequence number.
  case duplicateSeq(actor: ActorId, seq: UInt64)
  /// The file starts with a change chunk and some dependencies are absent.
  case missingDependencies([ChangeHash])

  public var description: String {
    switch self {
    case .truncated(let what, let offset):
      return "truncated \(what) at offset \(offset)"
    case .invalidLEB(let reason, let offset):
      return "invalid leb128 at offset \(offset): \(reason)"
    case .badMagic(let offset):
      return "bad magic bytes in chunk at offset \(offset)"
    case .unsupportedChunkType(let type, let offset):
      return type == 3
        ? "unsupported chunk type 3 (bundle) at offset \(offset)"
        : "unknown chunk type \(type) at offset \(offset)"
    case .checksumMismatch(let offset, let stored, let computed):
      return
        "checksum mismatch in chunk at offset \(offset) (stored \(hex32(stored)), computed \(hex32(computed)))"
    case .corruptDeflate(let reason, let offset):
      return "corrupt deflate stream at offset \(offset): \(reason)"
    case .invalidUTF8(let offset):
      return "invalid utf-8 at offset \(offset)"
    case .invalidColumnLayout(let reason, let offset):
      return "invalid column metadata at offset \(offset): \(reason)"
    case .invalidColumn(let spec, let reason, let chunkOffset):
      return "invalid column \(spec) in chunk at offset \(chunkOffset): \(reason)"
    case .invalidChange(let reason, let offset):
      return "invalid change chunk at offset \(offset): \(reason)"
    case .invalidDocument(let reason, let offset):
      return "invalid document chunk at offset \(offset): \(reason)"
    case .headsMismatch(let offset):
      return "mismatching heads in document chunk at offset \(offset)"
    case .trailingBytes(let what, let offset):
      return "unexpected bytes after \(what) at offset \(offset)"
    case .duplicateSeq(let actor, let seq):
      return "two different changes by actor \(actor) have sequence number \(seq)"
    case .missingDependencies(let hashes):
      let shown = hashes.prefix(3).map { $0.description }.joined(separator: ", ")
      return "missing dependencies: \(shown)\(hashes.count > 3 ? ", ..." : "")"
    }
  }
}

private func hex32(_ v: UInt32) -> String {
  Hex.encode([UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)])
}
