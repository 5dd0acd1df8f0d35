// libFuzzer entry point for the Automerge decoder, quick summary, materializers, merger and
// document encoder (`make fuzz`).
// Built by scripts/fuzz.sh together with Sources/AutomergeCodec (as that module); not part of the package.

/// Rewrites the checksum of every type 0 and 1 chunk so that mutations reach the parsers
/// behind the checksum check instead of all failing there.
func fixChecksums(_ bytes: inout [UInt8]) {
  var offset = 0
  while offset + 10 <= bytes.count, bytes[offset..<offset + 4] == [0x85, 0x6f, 0x4a, 0x83] {
    var length = 0
    var shift = 0
    var i = offset + 9
    while i < bytes.count, shift < 35 {
      length |= Int(bytes[i] & 0x7f) << shift
      shift += 7
      i += 1
      if bytes[i - 1] & 0x80 == 0 { break }
    }
    let end = i + length
    guard end <= bytes.count else { return }
    if bytes[offset + 8] <= 1 {
      let hash = SHA256.hash(bytes, (offset + 8)..<end).bytes
      for k in 0..<4 { bytes[offset + 4 + k] = hash[k] }
    }
    offset = end
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  var bytes = Array(UnsafeBufferPointer(start: data, count: size))
  fixChecksums(&bytes)
  _ = try? QuickSummary.summarize(bytes)
  _ = try? Materializer.materializeDocumentChunk(bytes, typed: true)
  guard let file = try? AutomergeFile.decode(bytes) else { return 0 }
  _ = try? Materializer.materialize(file.changes, typed: true)
  checkMerge([bytes, bytes])
  // The encoder: decode -> save as one document chunk -> decode gives the same changes.
  // save refuses what a document cannot hold (fine), and checks the read-back itself: its
  // `verificationFailed` is an encoder bug, so it fails the run instead of being skipped.
  // The read-back is checked again here from the outside.
  let saved: SavedDocument
  do {
    saved = try DocumentEncoder.save(bytes)
  } catch AutomergeSaveError.verificationFailed(let why) {
    fatalError("doc save does not round-trip: \(why)")
  } catch {
    return 0
  }
  guard let back = try? AutomergeFile.decode(saved.bytes),
    back.heads == file.heads,
    Set(back.changes.map(\.hash)) == Set(file.changes.map(\.hash))
  else { fatalError("doc save does not round-trip") }
  guard let again = try? DocumentEncoder.save(saved.bytes), again.bytes == saved.bytes else {
    fatalError("doc save of its own output differs")
  }
  // The merger on the same changes in two forms (the saved one starts with a document
  // chunk, which `mergeAndVerify` reads as `verify` reads a file when it comes first).
  checkMerge([bytes, saved.bytes])
  checkMerge([saved.bytes, bytes])
  return 0
}

/// `mergeAndVerify` gives `merge`'s answer (the same result, or the same refusal),
/// and its output reads back as the union.
func checkMerge(_ inputs: [[UInt8]]) {
  let plain = Result { try AutomergeMerge.merge(inputs) }
  let checked = Result { try AutomergeMerge.mergeAndVerify(inputs) }
  switch (plain, checked) {
  case (.success(let p), .success(let c)):
    guard c.holdsEveryChange, c.result.bytes == p.bytes, c.result.base == p.base,
      c.result.added == p.added, c.result.heads == p.heads,
      c.result.missingDependencies == p.missingDependencies
    else {
      fatalError("mergeAndVerify differs from merge, or does not read back")
    }
  case (.failure(let p as AutomergeMergeError), .failure(let c as AutomergeMergeError)):
    guard p == c else { fatalError("merge refusals differ: \(p), \(c)") }
  default:
    fatalError("merge and mergeAndVerify disagree: \(plain), \(checked)")
  }
}
