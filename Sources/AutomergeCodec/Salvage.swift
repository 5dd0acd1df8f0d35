/// Why a range of a damaged file was skipped by `Salvage` (mn.md §14).
public enum SalvageProblem: Sendable, Equatable, CustomStringConvertible {
  /// The bytes do not start with a chunk magic: they belong to no chunk that was found.
  case noChunk
  /// A chunk magic, but the header does not read (an unknown type, a length past the end
  /// of the input: a cut file).
  case badHeader(AutomergeDecodeError)
  /// The chunk fails its check: the checksum differs from the hash of its bytes, or the
  /// compressed body does not inflate.
  case failedCheck(AutomergeDecodeError)
  /// The chunk verifies, but its content does not decode (never written by Automerge).
  case undecodable(AutomergeDecodeError)
  /// Verifying the chunk would exceed the work allowed for the whole input (hostile input:
  /// many overlapping chunks that each claim most of the file).
  case workLimit

  public var description: String {
    switch self {
    case .noChunk: return "no chunk starts here"
    case .badHeader(let error): return "unreadable chunk header: \(error)"
    case .failedCheck(let error): return "damaged chunk: \(error)"
    case .undecodable(let error): return "chunk verifies but does not decode: \(error)"
    case .workLimit: return "not verified: too many damaged chunks overlap here"
    }
  }
}

/// A range of the input that no verified chunk covers.
public struct SkippedRange: Sendable, Equatable {
  /// The offset of the range's first byte.
  public var offset: Int
  /// Its length in bytes.
  public var length: Int
  /// Why its first byte starts no verified chunk (the rest up to the next verified chunk
  /// was searched for chunk magics, none of which verified).
  public var problem: SalvageProblem

  public init(offset: Int, length: Int, problem: SalvageProblem) {
    self.offset = offset
    self.length = length
    self.problem = problem
  }
}

/// What `Salvage.salvage` found in a file: every chunk that verifies, and the rest.
public struct SalvagedFile: Sendable {
  /// The input's length.
  public var size: Int
  /// The verified chunks, in file order.
  public var chunks: [ChunkInfo]
  /// The distinct changes of the verified chunks, first occurrence kept, in file order
  /// (a document chunk's in its row order). Their ops are left out unless asked for.
  public var changes: [Change]
  /// The ranges no verified chunk covers, in file order; empty when every byte was used.
  public var skipped: [SkippedRange]

  /// The number of bytes in `skipped`.
  public var skippedBytes: Int { skipped.reduce(0) { $0 + $1.length } }
}

/// Salvage of a damaged Automerge file (automerge-format.md §3, §4; mn.md §14): bytes in,
/// verified changes out.
///
/// The file is walked chunk by chunk. A chunk is kept only when it verifies: a change chunk
/// (type 1) whose hash starts with its stored checksum, a compressed change chunk (type 2)
/// whose body inflates and whose regenerated type-1 chunk has that checksum, a document
/// chunk (type 0) whose checksum holds over its bytes. Only then is it decoded; a chunk that
/// fails its check is never decoded. After a chunk that does not verify, the walk goes on at
/// the next chunk magic after the failed chunk's first byte (not after the end its header
/// claims, which may be damaged), so chunks after any damage, and chunks inside a region
/// that a damaged header claims, are found.
///
/// Time and memory are bounded on hostile input. The search for magics only moves forward.
/// Verifying a candidate that then fails costs its claimed length (hashed or inflated); the
/// failed work up to offset `p` may not exceed `workLimit + workPerByte * p`, so that in all
/// it stays linear in the input (64 MiB plus eight times the input, far above what real
/// damage costs). A candidate that would exceed its allowance is skipped as `.workLimit`
/// without being verified; the allowance grows again as the walk goes on, so that chunks
/// after a hostile stretch are still verified. Verified chunks never overlap, so verified
/// work is at most the input's length.
public enum Salvage {
  /// The failed work allowed before the first byte, in bytes hashed or inflated.
  public static let workLimit = 64 << 20
  /// The failed work allowed for every byte walked past.
  public static let workPerByte = 8

  /// Salvages every verified chunk of `bytes`.
  ///
  /// - Parameters:
  ///   - bytes: the file, damaged or not.
  ///   - keepOps: keep each change's ops (for materializing); else `Change.ops` is empty.
  ///   - workLimit: the failed work allowed before the first byte (`Salvage.workLimit`).
  /// - Returns: the verified chunks, their changes and the skipped ranges. Never throws:
  ///   anything that does not verify is a skipped range.
  public static func salvage(
    _ bytes: [UInt8], keepOps: Bool = false, workLimit: Int = Salvage.workLimit
  ) -> SalvagedFile {
    var result = SalvagedFile(size: bytes.count, chunks: [], changes: [], skipped: [])
    var spent = 0
    var seen = Set<ChangeHash>()
    bytes.withUnsafeBufferPointer { buf in
      var offset = 0
      var damage: (start: Int, problem: SalvageProblem)?
      while offset < buf.count {
        var budget = workLimit &+ workPerByte &* offset &- spent
        let before = budget
        let outcome = attempt(buf, at: offset, keepOps: keepOps, budget: &budget)
        spent &+= before &- budget
        switch outcome {
        case .verified(let info, let changes):
          if let d = damage {
            result.skipped.append(
              SkippedRange(offset: d.start, length: offset - d.start, problem: d.problem))
            damage = nil
          }
          result.chunks.append(info)
          for change in changes where seen.insert(change.hash).inserted {
            result.changes.append(change)
          }
          offset += info.length
        case .rejected(let problem):
          if damage == nil { damage = (offset, problem) }
          offset = nextMagic(buf, from: offset + 1)
        }
      }
      if let d = damage {
        result.skipped.append(
          SkippedRange(offset: d.start, length: buf.count - d.start, problem: d.problem))
      }
    }
    return result
  }

  private enum Attempt {
    case verified(ChunkInfo, [Change])
    case rejected(SalvageProblem)
  }

  /// The offset of the next chunk magic at or after `start`, or the end of the input.
  static func nextMagic(_ buf: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let m = Chunk.magic
    var i = start
    let last = buf.count - 4
    while i <= last {
      if buf[i] == m[0] && buf[i &+ 1] == m[1] && buf[i &+ 2] == m[2] && buf[i &+ 3] == m[3] {
        return i
      }
      i &+= 1
    }
    return buf.count
  }

  /// Verifies the chunk at `offset`, and decodes it when it verifies.
  private static func attempt(
    _ buf: UnsafeBufferPointer<UInt8>, at offset: Int, keepOps: Bool, budget: inout Int
  ) -> Attempt {
    // Most hostile candidates fail here, without the cost of a thrown error.
    if let problem = implausibleHeader(buf, at: offset) { return .rejected(problem) }
    let h: ChunkHeader
    do {
      h = try Chunk.header(buf, at: offset)
    } catch let error as AutomergeDecodeError {
      if case .badMagic = error { return .rejected(.noChunk) }
      return .rejected(.badHeader(error))
    } catch {
      return .rejected(.noChunk)
    }
    var info = ChunkInfo(
      offset: offset, type: h.type, bodyLength: h.body.count, length: h.end - offset,
      checksum: h.checksum, inflatedLength: nil, changes: [])
    func mismatch(_ hash: ChangeHash) -> SalvageProblem {
      .failedCheck(
        .checksumMismatch(offset: offset, stored: h.checksum, computed: Chunk.checksum(of: hash)))
    }
    switch h.type {
    case .document, .change:
      guard h.hashed.count <= budget else { return .rejected(.workLimit) }
      let hash = SHA256.hash(UnsafeBufferPointer(rebasing: buf[h.hashed]))
      guard Chunk.checksum(of: hash) == h.checksum else {
        budget -= h.hashed.count
        return .rejected(mismatch(hash))
      }
      do {
        if h.type == .document {
          let decoded = try DocumentChunk.decode(
            buf, body: h.body, chunkOffset: offset, keepOps: keepOps)
          info.changes = decoded.changes.map(\.hash)
          return .verified(info, decoded.changes)
        }
        let chunk = Array(UnsafeBufferPointer(rebasing: buf[offset..<h.end]))
        var change = try ChangeChunk.decode(
          body: UnsafeBufferPointer(rebasing: buf[h.body]), base: h.body.lowerBound,
          chunkOffset: offset, hash: hash, chunk: chunk)
        if !keepOps { change.ops = [] }
        info.changes = [hash]
        return .verified(info, [change])
      } catch let error as AutomergeDecodeError {
        return .rejected(.undecodable(error))
      } catch {
        return .rejected(.undecodable(.invalidDocument(reason: "\(error)", offset: offset)))
      }
    case .compressedChange:
      guard h.body.count <= budget else { return .rejected(.workLimit) }
      let limit = min(Deflate.outputLimit(forInput: h.body.count), budget - h.body.count)
      let inflated = Deflate.inflate(UnsafeBufferPointer(rebasing: buf[h.body]), limit: limit)
      guard let body = inflated.output else {
        budget -= h.body.count + inflated.produced
        if inflated.produced >= limit && limit < Deflate.outputLimit(forInput: h.body.count) {
          return .rejected(.workLimit)
        }
        return .rejected(
          .failedCheck(.corruptDeflate(reason: inflated.reason, offset: h.body.lowerBound)))
      }
      let (chunk, hash) = ChangeEncoder.wrap(type: 1, body: body)
      guard Chunk.checksum(of: hash) == h.checksum else {
        budget -= h.body.count + chunk.count
        return .rejected(mismatch(hash))
      }
      let headerLength = chunk.count - body.count
      do {
        var change = try chunk.withUnsafeBufferPointer { c in
          try ChangeChunk.decode(
            body: UnsafeBufferPointer(rebasing: c[headerLength...]), base: offset,
            chunkOffset: offset, hash: hash, chunk: chunk)
        }
        if !keepOps { change.ops = [] }
        info.inflatedLength = body.count
        info.changes = [hash]
        return .verified(info, [change])
      } catch let error as AutomergeDecodeError {
        return .rejected(.undecodable(error))
      } catch {
        return .rejected(.undecodable(.invalidChange(reason: "\(error)", offset: offset)))
      }
    }
  }

  /// Why the header at `offset` cannot be a chunk's (no magic, unknown type, a body past the
  /// end), found without throwing; nil when it may be one (`Chunk.header` then decides).
  static func implausibleHeader(_ buf: UnsafeBufferPointer<UInt8>, at offset: Int)
    -> SalvageProblem?
  {
    let n = buf.count
    let m = Chunk.magic
    guard offset &+ 4 <= n, buf[offset] == m[0], buf[offset &+ 1] == m[1],
      buf[offset &+ 2] == m[2], buf[offset &+ 3] == m[3]
    else { return .noChunk }
    guard offset &+ 10 <= n else {
      return .badHeader(.truncated(what: "chunk header", offset: offset))
    }
    let type = buf[offset &+ 8]
    guard type <= 2 else { return .badHeader(.unsupportedChunkType(type, offset: offset)) }
    var length: UInt64 = 0
    var shift: UInt64 = 0
    var i = offset &+ 9
    while true {
      guard i < n else { return .badHeader(.truncated(what: "chunk length", offset: offset &+ 9)) }
      guard shift <= 63 else { return nil }  // overlong: Chunk.header names it
      let b = buf[i]
      i &+= 1
      length |= UInt64(b & 0x7f) << shift
      if b & 0x80 == 0 { break }
      shift &+= 7
    }
    guard length <= UInt64(n &- i) else {
      return .badHeader(.truncated(what: "chunk body", offset: offset &+ 9))
    }
    return nil
  }
}
