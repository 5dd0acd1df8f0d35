/// A growable run of bytes in memory of its own: appending a byte is a store and an
/// increment, a run is one copy, emptying it is a store (`Array`'s append and
/// `removeAll(keepingCapacity:)` cost several times that per call, which shows on long JSON
/// listings and on the hundreds of thousands of change chunks a document check writes).
///
/// A class: a value holding one shares it when copied. Its holders (`JSONStream`, and
/// `ChangeEncoder`, which is noncopyable) own it alone.
final class ByteBuffer: ByteSink {
  private var base: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  private(set) var count = 0

  init(capacity: Int = 4096) {
    self.capacity = max(capacity, 16)
    base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// The bytes written so far.
  var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Forgets the bytes written so far; the memory is kept for what follows.
  func removeAll() { count = 0 }

  /// Makes room for `total` bytes in all, so that writing up to that many copies nothing.
  func reserve(_ total: Int) {
    if total > capacity { grow(to: total) }
  }

  /// Overwrites byte `i` (`i < count`).
  func set(_ i: Int, _ byte: UInt8) {
    precondition(i < count, "ByteBuffer index out of range")
    base[i] = byte
  }

  /// Calls `body` with the bytes written so far, in place.
  func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(start: base, count: count))
  }

  /// Appends `bytes`.
  func put(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { put($0) } }

  /// Hands the bytes written so far to `body`, in place, then forgets them (the memory is
  /// kept for what follows).
  func drain(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    defer { count = 0 }
    try body(UnsafeBufferPointer(start: base, count: count))
  }

  func put(_ byte: UInt8) {
    if count == capacity { grow(to: count + 1) }
    base[count] = byte
    count += 1
  }

  func put(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    if count + bytes.count > capacity { grow(to: count + bytes.count) }
    (base + count).initialize(from: source, count: bytes.count)
    count += bytes.count
  }

  /// Appends `count` copies of `byte` (indentation).
  func put(_ byte: UInt8, count n: Int) {
    guard n > 0 else { return }
    if count + n > capacity { grow(to: count + n) }
    (base + count).initialize(repeating: byte, count: n)
    count += n
  }

  /// Appends `n` bytes that `body` writes at the pointer it is given: a run made of several
  /// parts costs one capacity check.
  func put(count n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
    guard n > 0 else { return }
    if count + n > capacity { grow(to: count + n) }
    body(base + count)
    count += n
  }

  /// Makes room for at least `needed` bytes, doubling (at least).
  private func grow(to needed: Int) {
    var newCapacity = capacity * 2
    while newCapacity < needed { newCapacity *= 2 }
    let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newBase.initialize(from: base, count: count)
    base.deallocate()
    base = newBase
    capacity = newCapacity
  }
}

/// Where bytes go, a byte or a run at a time: JSON text, column data, change chunks.
protocol ByteSink: ~Copyable {
  mutating func put(_ byte: UInt8)
  mutating func put(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ByteSink where Self: ~Copyable {
  /// Appends `value` as unsigned LEB128 (§2), the shortest form.
  @inline(__always) mutating func putULEB(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      put(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    put(UInt8(v))
  }
}

extension Array: ByteSink where Element == UInt8 {
  mutating func put(_ byte: UInt8) { append(byte) }
  mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}
