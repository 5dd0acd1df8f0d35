/// Column specifications and the column metadata block (§5.1, §5.2).
///
/// `spec = (id << 4) | (deflate << 3) | type`. Everything is ordered and identified by the
/// normalized spec (deflate bit cleared).
enum ColumnType: UInt32 {
  case group = 0, actor = 1, integer = 2, delta = 3, boolean = 4, string = 5, valueMetadata = 6,
    value = 7
}

/// One entry of a column metadata block: where a column's (possibly deflated) data lies.
struct ColumnEntry {
  /// The normalized spec (deflate bit cleared).
  var spec: UInt32
  var deflated: Bool
  /// The column's stored bytes, as a range of the chunk buffer.
  var range: Range<Int>
}

/// The known column specs (normalized) of change chunks (§6.2), document op columns (§7.3)
/// and document change columns (§7.2).
enum ColumnSpecs {
  static let objActor: UInt32 = 1
  static let objCtr: UInt32 = 2
  static let keyActor: UInt32 = 17
  static let keyCtr: UInt32 = 19
  static let keyStr: UInt32 = 21
  static let idActor: UInt32 = 33
  static let idCtr: UInt32 = 35
  static let insert: UInt32 = 52
  static let action: UInt32 = 66
  static let valMeta: UInt32 = 86
  static let valRaw: UInt32 = 87
  static let predNum: UInt32 = 112
  static let predActor: UInt32 = 113
  static let predCtr: UInt32 = 115
  static let succNum: UInt32 = 128
  static let succActor: UInt32 = 129
  static let succCtr: UInt32 = 131
  static let expand: UInt32 = 148
  static let markName: UInt32 = 165

  static let changeActor: UInt32 = 1
  static let changeSeq: UInt32 = 3
  static let changeMaxOp: UInt32 = 19
  static let changeTime: UInt32 = 35
  static let changeMessage: UInt32 = 53
  static let depsNum: UInt32 = 64
  static let depsIndex: UInt32 = 67
  static let extraMeta: UInt32 = 86
  static let extraRaw: UInt32 = 87
}

enum ColumnMetadata {
  /// Reads a metadata block (§5.2): `uLEB N`, then N pairs `(spec, length)`.
  ///
  /// Checks that normalized specs strictly increase, that a value column directly follows
  /// its metadata column, and (for change chunks) that no column is deflated. Data ranges
  /// are laid out from `dataStart`, back to back; the caller checks they fit.
  /// - Returns: the entries, with ranges relative to the reader's buffer.
  static func read(
    _ r: inout ByteReader, allowDeflate: Bool
  ) throws -> [(spec: UInt32, deflated: Bool, length: Int)] {
    let start = r.offset
    // Each entry takes at least two bytes, so the count is bounded by what remains.
    let n = try r.length("column count", limit: r.remaining / 2)
    var out: [(spec: UInt32, deflated: Bool, length: Int)] = []
    out.reserveCapacity(n)
    var previous: UInt32? = nil
    for _ in 0..<n {
      let at = r.offset
      let raw = try r.uleb("column spec")
      guard raw <= UInt64(UInt32.max) else {
        throw AutomergeDecodeError.invalidColumnLayout(reason: "column spec too large", offset: at)
      }
      let length = try r.uleb("column length")
      guard length <= UInt64(Int32.max) else {
        throw AutomergeDecodeError.truncated(what: "column data", offset: at)
      }
      let spec = UInt32(raw) & ~8
      let deflated = raw & 8 != 0
      if deflated && !allowDeflate {
        throw AutomergeDecodeError.invalidColumnLayout(
          reason: "deflated column \(spec) in a change chunk", offset: at)
      }
      if let p = previous {
        guard spec > p else {
          throw AutomergeDecodeError.invalidColumnLayout(
            reason: spec == p ? "duplicate column \(spec)" : "columns were not in normalized order",
            offset: at)
        }
      }
      if spec & 7 == ColumnType.value.rawValue && previous != spec - 1 {
        throw AutomergeDecodeError.invalidColumnLayout(
          reason: "value column \(spec) without its metadata column", offset: at)
      }
      previous = spec
      out.append((spec, deflated, Int(length)))
    }
    _ = start
    return out
  }

  /// Lays the columns out from `r`'s position and advances past their data.
  static func layout(
    _ entries: [(spec: UInt32, deflated: Bool, length: Int)], _ r: inout ByteReader
  ) throws -> [ColumnEntry] {
    var out: [ColumnEntry] = []
    out.reserveCapacity(entries.count)
    for e in entries {
      let range = try r.skip(e.length, "data of column \(e.spec)")
      out.append(ColumnEntry(spec: e.spec, deflated: e.deflated, range: range))
    }
    return out
  }
}
