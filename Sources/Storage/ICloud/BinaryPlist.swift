import AutomergeCodec

/// A value of a binary property list.
public enum PlistValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case integer(Int64)
  case real(Double)
  /// Seconds since 2001-01-01 00:00:00 UTC.
  case date(Double)
  case data([UInt8])
  case string(String)
  case uid(UInt64)
  case array([PlistValue])
  case dictionary([String: PlistValue])

  /// The string, when the value is one.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The value as a whole number: an integer, or a real without a fractional part.
  public var integerValue: Int64? {
    switch self {
    case .integer(let v): return v
    case .real(let v):
      guard v.isFinite, v.rounded() == v, v >= -9.2e18, v <= 9.2e18 else { return nil }
      return Int64(v)
    default: return nil
    }
  }
}

/// Why bytes are not a readable binary property list.
public enum BinaryPlistError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The bytes do not start with `bplist00`.
  case notBinaryPlist
  /// The 32-byte trailer holds impossible sizes or offsets.
  case invalidTrailer
  /// A read past the end of the object area, at this offset.
  case truncated(offset: Int)
  /// An offset-table entry or object reference points outside the file.
  case invalidReference(offset: Int)
  /// An object marker that this reader does not know.
  case invalidObject(offset: Int, marker: UInt8)
  /// A dictionary key that is not a string.
  case nonStringKey(offset: Int)
  /// Containers nest deeper than the limit (or refer to themselves).
  case tooDeep(offset: Int)
  /// The objects reachable from the top add up to more than the limit.
  case tooManyObjects
  /// The top object is not the kind the caller expects.
  case unexpectedTopObject

  public var description: String {
    switch self {
    case .notBinaryPlist: return "not a binary property list"
    case .invalidTrailer: return "invalid binary property list trailer"
    case .truncated(let offset): return "binary property list truncated at offset \(offset)"
    case .invalidReference(let offset): return "invalid object reference at offset \(offset)"
    case .invalidObject(let offset, let marker):
      return "invalid object marker 0x\(Hex.encode([marker])) at offset \(offset)"
    case .nonStringKey(let offset): return "dictionary key at offset \(offset) is not a string"
    case .tooDeep(let offset): return "objects nested too deep at offset \(offset)"
    case .tooManyObjects: return "too many objects"
    case .unexpectedTopObject: return "unexpected top object"
    }
  }
}

/// A reader for Apple's binary property list format (`bplist00`), just enough for iCloud
/// placeholder stubs.
///
/// Layout (CFBinaryPList.c): an 8-byte header `bplist00`; the objects; an offset table
/// giving each object's offset; a 32-byte trailer (6 unused bytes, the size of an offset
/// table entry, the size of an object reference, the object count, the top object's index
/// and the offset table's offset, the last three as big-endian 64-bit integers). Every
/// offset, size and reference is checked against the input, containers may nest at most
/// `maxDepth` deep, and at most `maxObjects` objects are decoded, so hostile input (cycles,
/// shared sub-trees that blow up, huge counts) ends in a `BinaryPlistError`, never a trap.
public struct BinaryPlist {
  /// The deepest container nesting accepted.
  public static let maxDepth = 32
  /// The most objects decoded from one input, shared sub-objects counted each time.
  public static let maxObjects = 100_000

  private let bytes: [UInt8]
  private let offsetSize: Int
  private let refSize: Int
  private let objectCount: Int
  private let offsetTable: Int
  /// The end of the object area (the start of the offset table).
  private let objectsEnd: Int
  private var budget = BinaryPlist.maxObjects

  /// Decodes a binary property list.
  ///
  /// - Parameter bytes: the whole file.
  /// - Returns: the top object.
  /// - Throws: `BinaryPlistError` when the bytes are not a well-formed binary property list.
  public static func decode(_ bytes: [UInt8]) throws(BinaryPlistError) -> PlistValue {
    var reader = try BinaryPlist(bytes)
    let top = try reader.topIndex()
    return try reader.object(top, depth: 0)
  }

  private init(_ bytes: [UInt8]) throws(BinaryPlistError) {
    guard bytes.count >= 8, bytes[0..<8].elementsEqual("bplist00".utf8) else {
      throw .notBinaryPlist
    }
    guard bytes.count >= 8 + 1 + 32 else { throw .invalidTrailer }
    let t = bytes.count - 32
    let offsetSize = Int(bytes[t + 6])
    let refSize = Int(bytes[t + 7])
    let count = BinaryPlist.be(bytes, t + 8, 8)
    let table = BinaryPlist.be(bytes, t + 24, 8)
    guard (1...8).contains(offsetSize), (1...8).contains(refSize), count >= 1,
      count <= UInt64(bytes.count), table >= 9, table <= UInt64(t),
      UInt64(t) - table >= count * UInt64(offsetSize)
    else { throw .invalidTrailer }
    self.bytes = bytes
    self.offsetSize = offsetSize
    self.refSize = refSize
    self.objectCount = Int(count)
    self.offsetTable = Int(table)
    self.objectsEnd = Int(table)
  }

  /// A big-endian unsigned integer of `size` (1...8) bytes at `at`; the caller checks bounds.
  private static func be(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
    var v: UInt64 = 0
    for k in 0..<size { v = v << 8 | UInt64(bytes[at + k]) }
    return v
  }

  private func topIndex() throws(BinaryPlistError) -> Int {
    let top = BinaryPlist.be(bytes, bytes.count - 32 + 16, 8)
    guard top < UInt64(objectCount) else { throw .invalidTrailer }
    return Int(top)
  }

  /// The offset of object `index`, checked to lie inside the object area.
  private func offset(of index: Int) throws(BinaryPlistError) -> Int {
    let entry = offsetTable + index * offsetSize
    let value = BinaryPlist.be(bytes, entry, offsetSize)
    guard value >= 8, value < UInt64(objectsEnd) else { throw .invalidReference(offset: entry) }
    return Int(value)
  }

  /// Checks that `count` bytes from `at` lie in the object area.
  private func need(_ at: Int, _ count: Int) throws(BinaryPlistError) {
    guard count >= 0, at >= 0, at <= objectsEnd, count <= objectsEnd - at else {
      throw .truncated(offset: at)
    }
  }

  /// The object reference at `at`, checked against the object count.
  private func reference(at: Int) throws(BinaryPlistError) -> Int {
    try need(at, refSize)
    let value = BinaryPlist.be(bytes, at, refSize)
    guard value < UInt64(objectCount) else { throw .invalidReference(offset: at) }
    return Int(value)
  }

  /// The length of a data, string or container object and where its content starts.
  private func lengthAndStart(_ at: Int, _ low: UInt8) throws(BinaryPlistError) -> (Int, Int) {
    if low != 0x0F { return (Int(low), at + 1) }
    try need(at + 1, 1)
    let marker = bytes[at + 1]
    guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
      throw .invalidObject(offset: at + 1, marker: marker)
    }
    let size = 1 << Int(marker & 0x0F)
    try need(at + 2, size)
    let value = BinaryPlist.be(bytes, at + 2, size)
    guard value <= UInt64(objectsEnd) else { throw .truncated(offset: at) }
    return (Int(value), at + 2 + size)
  }

  private mutating func object(_ index: Int, depth: Int) throws(BinaryPlistError) -> PlistValue {
    budget -= 1
    guard budget >= 0 else { throw .tooManyObjects }
    let at = try offset(of: index)
    let marker = bytes[at]
    let low = marker & 0x0F
    switch marker >> 4 {
    case 0x0:
      switch low {
      case 0x0, 0xF: return .null
      case 0x8: return .bool(false)
      case 0x9: return .bool(true)
      default: throw .invalidObject(offset: at, marker: marker)
      }
    case 0x1:
      guard low <= 4 else { throw .invalidObject(offset: at, marker: marker) }
      let size = 1 << Int(low)
      try need(at + 1, size)
      // 16-byte integers: the low 8 bytes hold every value a stub can have.
      let raw = BinaryPlist.be(bytes, at + 1 + max(size - 8, 0), min(size, 8))
      return .integer(size >= 8 ? Int64(bitPattern: raw) : Int64(raw))
    case 0x2:
      switch low {
      case 2:
        try need(at + 1, 4)
        return .real(Double(Float(bitPattern: UInt32(BinaryPlist.be(bytes, at + 1, 4)))))
      case 3:
        try need(at + 1, 8)
        return .real(Double(bitPattern: BinaryPlist.be(bytes, at + 1, 8)))
      default: throw .invalidObject(offset: at, marker: marker)
      }
    case 0x3:
      guard low == 3 else { throw .invalidObject(offset: at, marker: marker) }
      try need(at + 1, 8)
      return .date(Double(bitPattern: BinaryPlist.be(bytes, at + 1, 8)))
    case 0x4:
      let (count, start) = try lengthAndStart(at, low)
      try need(start, count)
      return .data(Array(bytes[start..<(start + count)]))
    case 0x5, 0x7:
      // 0x5 is ASCII; 0x7 (UTF-8) comes from newer writers. Invalid bytes are repaired.
      let (count, start) = try lengthAndStart(at, low)
      try need(start, count)
      return .string(String(decoding: bytes[start..<(start + count)], as: UTF8.self))
    case 0x6:
      let (count, start) = try lengthAndStart(at, low)
      guard count <= objectsEnd / 2 else { throw .truncated(offset: start) }
      try need(start, count * 2)
      var units: [UInt16] = []
      units.reserveCapacity(count)
      for k in 0..<count { units.append(UInt16(BinaryPlist.be(bytes, start + 2 * k, 2))) }
      return .string(String(decoding: units, as: UTF16.self))
    case 0x8:
      try need(at + 1, Int(low) + 1)
      return .uid(BinaryPlist.be(bytes, at + 1, min(Int(low) + 1, 8)))
    case 0xA, 0xC:
      guard depth < BinaryPlist.maxDepth else { throw .tooDeep(offset: at) }
      let (count, start) = try lengthAndStart(at, low)
      guard count <= objectsEnd / refSize else { throw .truncated(offset: start) }
      try need(start, count * refSize)
      var items: [PlistValue] = []
      for k in 0..<count {
        items.append(try object(try reference(at: start + k * refSize), depth: depth + 1))
      }
      return .array(items)
    case 0xD:
      guard depth < BinaryPlist.maxDepth else { throw .tooDeep(offset: at) }
      let (count, start) = try lengthAndStart(at, low)
      guard count <= objectsEnd / (2 * refSize) else { throw .truncated(offset: start) }
      try need(start, count * 2 * refSize)
      var dict = [String: PlistValue](minimumCapacity: count)
      for k in 0..<count {
        let keyAt = start + k * refSize
        guard case .string(let key) = try object(try reference(at: keyAt), depth: depth + 1) else {
          throw .nonStringKey(offset: keyAt)
        }
        let value = try object(try reference(at: start + (count + k) * refSize), depth: depth + 1)
        dict[key] = value
      }
      return .dictionary(dict)
    default:
      throw .invalidObject(offset: at, marker: marker)
    }
  }
}
