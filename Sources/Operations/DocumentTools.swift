import Archive
import AutomergeCodec

/// The codec, packaged as the closures that the archive and folder layers take.
///
/// The archive layer does not depend on the codec's types; these adapters connect them.
public enum DocumentTools {
  /// The manifest facts of a document: its change count and sorted heads (hex).
  ///
  /// Read from the stored heads and chunk hashes when the file's shape allows
  /// (`QuickSummary`), else from a full decode.
  public static let inspect: DocumentInspector = { bytes in
    if let quick = try QuickSummary.summarize(bytes) {
      return (quick.changes, quick.heads.map(\.description))
    }
    let file = try AutomergeFile.decode(bytes, keepOps: false, keepChunks: false)
    return (file.changes.count, file.heads.map(\.description))
  }

  /// The lossless merge of `incoming` into `existing` (mn.md §6): `existing`'s bytes followed
  /// by the change chunks only `incoming` has; `existing` unchanged when it has them all.
  ///
  /// - Throws: `AutomergeDecodeError` when either input does not decode,
  ///   `AutomergeMergeError` when the union is not a valid document, and
  ///   `DocumentToolsError.verificationFailed` when the result does not read back as the union.
  public static func merge(existing: [UInt8], incoming: [UInt8]) throws -> [UInt8] {
    let (result, holdsEveryChange) = try AutomergeMerge.mergeAndVerify([existing, incoming])
    guard holdsEveryChange else {
      throw DocumentToolsError.verificationFailed
    }
    return result.bytes
  }
}

/// A merge whose result did not read back as the union of its inputs (a bug; nothing written).
public enum DocumentToolsError: Error, Sendable, CustomStringConvertible {
  case verificationFailed

  public var description: String {
    "the merged document does not hold every input change (nothing was written)"
  }
}
