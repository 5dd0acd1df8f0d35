import Platform

/// Puts a zip's entry times in UTC as libarchive's output streams past (reproducible zips).
///
/// A zip stores each entry's date and time as a DOS date and time in local time, and
/// libarchive computes them with `localtime_r`, from the process's time zone; it takes no other
/// zone. So that a reproducible zip has the same bytes in every time zone without changing the
/// process's time zone (a process-wide setting that another thread may be reading),
/// libarchive writes its headers as usual and the four bytes of each header's date and time
/// are then replaced by the DOS fields of the entry's time in UTC, computed here:
/// - in each local file header at offset 10: libarchive writes the header when
///   `archive_write_header` is called, at the byte offset its format layer has reached
///   (`archive_filter_bytes(archive, 0)`), which the writer records first;
/// - in each central directory record at offset 12: the directory is written at close, from
///   the offset reached then; its bytes are held until close, walked record by record and
///   checked to hold one record per entry, in the entries' order.
///
/// The extended-timestamp field libarchive adds (`UT`) holds the time in seconds since the
/// epoch, which does not depend on the zone.
final class ZipUTCTimes {
  /// A local header's offset in the output and its entry's four bytes (time, then date).
  private var headers: [(offset: Int64, stamp: [UInt8])] = []
  /// The first header whose time bytes have not all gone past.
  private var next = 0
  /// Bytes handed on so far.
  private var passed: Int64 = 0
  /// Where the central directory starts, once the writer is closing.
  private var directoryStart: Int64?
  /// The bytes from `directoryStart` on, held until close.
  private var held: [UInt8] = []

  /// The DOS date and time of `seconds` in UTC, as a zip header stores them: the time
  /// (`hour << 11 | minute << 5 | second / 2`), then the date
  /// (`(year - 1980) << 9 | month << 5 | day`), each little-endian. Times outside DOS's
  /// range are clamped to 1980-01-01 00:00:00 and 2107-12-31 23:59:58, as libarchive does.
  static func dosFields(_ seconds: Int64) -> [UInt8] {
    let t = UTCDateTime(secondsSinceEpoch: seconds)
    var time: Int
    var date: Int
    if t.year < 1980 {
      (time, date) = (0, 1 << 5 | 1)
    } else if t.year > 2107 {
      (time, date) = (23 << 11 | 59 << 5 | 29, 127 << 9 | 12 << 5 | 31)
    } else {
      time = t.hour << 11 | t.minute << 5 | t.second / 2
      date = (t.year - 1980) << 9 | t.month << 5 | t.day
    }
    return [UInt8(time & 0xFF), UInt8(time >> 8), UInt8(date & 0xFF), UInt8(date >> 8)]
  }

  /// Records that a local header for an entry of time `seconds` starts at `offset`.
  func header(at offset: Int64, seconds: Int64) {
    headers.append((offset, Self.dosFields(seconds)))
  }

  /// Records that the central directory starts at `offset` (the writer is closing).
  func directory(at offset: Int64) {
    directoryStart = offset
  }

  /// The part of `chunk` (the next bytes of the output) to hand on now, with the local
  /// headers' times in it replaced; bytes of the central directory are held instead.
  func pass(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
    let start = passed
    passed += Int64(chunk.count)
    var keep = chunk.count
    if let directoryStart, passed > directoryStart {
      keep = Int(max(0, directoryStart - start))
      held += chunk[keep...]
    }
    var out = Array(chunk[..<keep])
    let end = start + Int64(keep)
    while next < headers.count {
      let field = headers[next].offset + 10
      if field >= end { break }
      for k in 0..<4 where field + Int64(k) >= start && field + Int64(k) < end {
        out[Int(field + Int64(k) - start)] = headers[next].stamp[k]
      }
      guard field + 4 <= end else { break }
      next += 1
    }
    return out
  }

  /// The held central directory and end records with each record's time replaced.
  ///
  /// - Throws: `ArchiveError.writeFailed` when the records are not one per entry.
  func finish(label: String) throws(ArchiveError) -> [UInt8] {
    let signature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
    func le16(_ i: Int) -> Int { Int(held[i]) | Int(held[i + 1]) << 8 }
    var at = 0
    var index = 0
    while at + 46 <= held.count, Array(held[at..<(at + 4)]) == signature {
      guard index < headers.count else { break }
      held.replaceSubrange((at + 12)..<(at + 16), with: headers[index].stamp)
      at += 46 + le16(at + 28) + le16(at + 30) + le16(at + 32)
      index += 1
    }
    guard index == headers.count, next == headers.count else {
      throw .writeFailed(path: label, detail: "cannot put the zip's entry times in UTC")
    }
    defer { held = [] }
    return held
  }
}
