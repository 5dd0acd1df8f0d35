/// The key of a stored op of a document chunk (§7.3, §8.2), in the document's terms: a map
/// key by its index in the chunk's string table, a list element by the packed id of its
/// insert op (`Reconstruction.pack`, document actor indices).
enum StoredKey: Equatable {
  /// A map key: its index in `Reconstruction.strings` (each string run has its own entry,
  /// so equal keys may have different indices; `Reconstruction.sameKey` compares bytes).
  case map(Int)
  /// The start of a sequence (an insert at its head).
  case head
  /// A list or text element: the packed id of its insert op.
  case element(UInt64)
}
