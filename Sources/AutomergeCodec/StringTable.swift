/// The UTF-8 bytes of a string table, by entry (borrowed: valid inside the closure that
/// made it).
struct StringTable {
  let bytes: UnsafeBufferPointer<UInt8>
  let start: [Int]

  @inline(__always) subscript(_ i: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: bytes[start[i]..<start[i + 1]])
  }
}
