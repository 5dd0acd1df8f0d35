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
    let y = NameBytes.pad(year, 4)
    let m = NameBytes.pad(month, 2)
    return DocumentName(
      kind: .month(year: year, month: month), logicalName: "records/\(y)/\(m).automerge")
  }

  /// Parses a logical name; nil unless it is exactly a document's (no `./`, no trailing `/`).
  public init?(logicalName: String) {
    let bytes = Array(logicalName.utf8)
    if bytes.elementsEqual("tags.automerge".utf8) {
      self = .tags
      return
    }
    // records/YYYY/MM.automerge
    guard bytes.count == 25, bytes[0..<8].elementsEqual("records/".utf8), bytes[12] == 0x2F,
      let year = NameBytes.number(bytes, 8..<12), let month = NameBytes.number(bytes, 13..<15),
      bytes[15...].elementsEqual(".automerge".utf8), (1...12).contains(month)
    else { return nil }
    self.init(kind: .month(year: year, month: month), logicalName: logicalName)
  }

  /// Parses a file name inside a directory given by its logical path (`""` for the root).
  public init?(directory: String, fileName: String) {
    self.init(logicalName: directory.isEmpty ? fileName : directory + "/" + fileName)
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
  public func path(root: String) -> String {
    FolderLayout.path(root: root, logicalName: logicalName)
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
