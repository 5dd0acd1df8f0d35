import Platform

/// The name of a document: `tags.automerge` or `records/YYYY/MM.automerge` (mn.md §1).
///
/// YYYY is four ASCII digits, MM is `01` to `12`. The logical name is the path relative to
/// the data folder's root, with `/` separators. Names are ASCII, so canonically equivalent
/// spellings (NFC/NFD) cannot differ, and comparing them as bytes or as Strings agrees.
/// Ordered by the bytes of the logical name (`records/…` before `tags.automerge`).
public struct DocumentName: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Which document.
  public enum Kind: Hashable, Sendable {
    case tags
    case month(year: Int, month: Int)
  }

  /// The extension of every document.
  public static let fileExtension = ".automerge"
  /// The largest document file read (256 MiB; a Minuta month is well under 1 MiB): a file
  /// above it is refused as a document, never read whole.
  public static let maxFileSize = 256 << 20
  /// The tag list.
  public static let tags = DocumentName(kind: .tags, logicalName: "tags.automerge")

  public let kind: Kind
  /// The path relative to the root: `tags.automerge`, `records/2026/09.automerge`.
  public let logicalName: String

  private init(kind: Kind, logicalName: String) {
    self.kind = kind
    self.logicalName = logicalName
  }

  /// The document of one month; nil when `year` is not 0...9999 or `month` not 1...12.
  public static func month(year: Int, month: Int) -> DocumentName? {
    guard (0...9999).contains(year), (1...12).contains(month) else { return nil }
    // records/YYYY/MM.automerge, written byte by byte (the scan makes one per file it sees).
    let logicalName = String(unsafeUninitializedCapacity: 25) { out in
      for i in 0..<25 { out[i] = monthTemplate[i] }
      var at = 8
      NameBytes.putDigits(year, width: 4, into: out, at: &at)
      at += 1
      NameBytes.putDigits(month, width: 2, into: out, at: &at)
      return 25
    }
    return DocumentName(kind: .month(year: year, month: month), logicalName: logicalName)
  }

  private static let monthTemplate = Array("records/0000/00.automerge".utf8)

  /// Parses a logical name; nil unless it is exactly a document's (no `./`, no trailing `/`).
  public init?(logicalName: String) {
    // The folder part (`records/YYYY`, or none), then the file name in it: the folder says.
    let bytes = Array(logicalName.utf8)
    let slash = bytes.lastIndex(of: 0x2F)
    if slash == 0 { return nil }
    let directory = slash.map { NameBytes.string(bytes[..<$0]) } ?? ""
    let fileName = slash.map { NameBytes.string(bytes[($0 + 1)...]) } ?? logicalName
    guard let name = DocumentFolder(logicalPath: directory).document(named: fileName) else {
      return nil
    }
    self = name
  }

  /// Parses a file name (one path component) inside a directory given by its logical path
  /// (`""` for the root).
  public init?(directory: String, fileName: String) {
    guard let name = DocumentFolder(logicalPath: directory).document(named: fileName) else {
      return nil
    }
    self = name
  }

  /// The logical path of the directory holding the document (`""` or `records/2026`).
  public var directory: String {
    switch kind {
    case .tags: return ""
    case .month(let year, _): return "records/" + NameBytes.pad(year, 4)
    }
  }

  /// The file name (`tags.automerge`, `09.automerge`).
  public var fileName: String {
    switch kind {
    case .tags: return "tags.automerge"
    case .month(_, let month): return NameBytes.pad(month, 2) + ".automerge"
    }
  }

  /// The absolute path of the document in the data folder at `root`.
  public func path(root: AbsolutePath) -> AbsolutePath {
    root.appending(logicalName)
  }

  /// The byte order of the logical names, read off the kinds: `records/…` before
  /// `tags.automerge`, months by year and month (zero-padded in the name, so the numbers
  /// order as the bytes do). Comparing the names' bytes costs far more when sorting.
  public static func < (a: DocumentName, b: DocumentName) -> Bool {
    switch (a.kind, b.kind) {
    case (.month(let y1, let m1), .month(let y2, let m2)): return (y1, m1) < (y2, m2)
    case (.month, .tags): return true
    case (.tags, _): return false
    }
  }

  public var description: String { logicalName }
}

/// Which documents a directory of the data folder can hold, read off its logical path once,
/// so that the scan can tell the documents among its entries without building a path per
/// entry.
public enum DocumentFolder: Sendable, Equatable {
  /// The root: `tags.automerge`.
  case root
  /// `records/YYYY`: the twelve months of one year.
  case year(Int)
  /// Any other directory: no documents.
  case none

  /// The folder at a logical path (`""` is the root, `records/2026` a year).
  public init(logicalPath: String) {
    if logicalPath.isEmpty {
      self = .root
      return
    }
    let utf8 = logicalPath.utf8
    guard utf8.count == 12, utf8.starts(with: "records/".utf8) else {
      self = .none
      return
    }
    var year = 0
    for byte in utf8.dropFirst(8) {
      guard NameBytes.isDigit(byte) else {
        self = .none
        return
      }
      year = year * 10 + Int(byte - 0x30)
    }
    self = .year(year)
  }

  /// How many documents the folder can hold: 1 (the root), 12 (a year), or 0.
  public var documentCount: Int {
    switch self {
    case .none: return 0
    case .root: return 1
    case .year: return 12
    }
  }

  /// The document a file name (one path component) names in this folder.
  public func document(named fileName: String) -> DocumentName? {
    documentIndex(named: fileName).flatMap(document(at:))
  }

  /// Which of the folder's documents (`0..<documentCount`) a file name names: the scan
  /// groups a folder's files by it, without building the document's name.
  public func documentIndex(named fileName: String) -> Int? {
    NameBytes.withBytes(fileName) { documentIndex(of: $0) }
  }

  /// Which of the folder's documents a plain iCloud stub's file name (`.09.automerge.icloud`)
  /// stands for. The `..NAME` and `-tef` forms, whose names are less sure, stand for none.
  public func documentIndex(ofStub fileName: String) -> Int? {
    NameBytes.withBytes(fileName) { bytes -> Int? in
      guard bytes.count > 8, bytes[0] == NameBytes.dot, NameBytes.hasSuffix(bytes, ".icloud")
      else { return nil }
      return documentIndex(of: UnsafeBufferPointer(rebasing: bytes[1..<(bytes.count - 7)]))
    }
  }

  private func documentIndex(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    switch self {
    case .none: return nil
    case .root: return NameBytes.equals(bytes, "tags.automerge") ? 0 : nil
    case .year:
      guard bytes.count == 12, NameBytes.hasSuffix(bytes, ".automerge") else { return nil }
      return Self.month(bytes).map { $0 - 1 }
    }
  }

  /// The document at an index of `documentIndex(named:)`; nil outside `0..<documentCount`.
  public func document(at index: Int) -> DocumentName? {
    guard (0..<documentCount).contains(index) else { return nil }
    switch self {
    case .none: return nil
    case .root: return .tags
    case .year(let year): return DocumentName.month(year: year, month: index + 1)
    }
  }

  /// Whether a file name can be a conflict copy of one of this folder's documents: it starts
  /// with a document's stem (`tags`, or a month `01`…`12`). Every conflict pattern keeps the
  /// stem and adds its marker after it, so any other name cannot be a copy of a document.
  public func mayHoldCopy(named fileName: String) -> Bool {
    switch self {
    case .none: return false
    case .root: return fileName.utf8.starts(with: "tags".utf8)
    case .year: return NameBytes.withBytes(fileName) { Self.month($0) } != nil
    }
  }

  /// The month of a name that starts with `01`…`12`.
  private static func month(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard bytes.count >= 2, NameBytes.isDigit(bytes[0]), NameBytes.isDigit(bytes[1]) else {
      return nil
    }
    let month = Int(bytes[0] - 0x30) * 10 + Int(bytes[1] - 0x30)
    return (1...12).contains(month) ? month : nil
  }
}
