// The Foundation symbols of the provider-safe replace (mn.md §6) that
// Sources/Storage/DarwinSyncProvider.swift uses, declared for Linux as DarwinShim.swift does
// the others: signatures from Apple's documentation, inert bodies, never run.

extension FileManager {
  /// `enum FileManager.SearchPathDirectory`, with `case itemReplacementDirectory` (`99`,
  /// `NSItemReplacementDirectory` in Foundation/NSPathUtilities.h):
  /// https://developer.apple.com/documentation/foundation/filemanager/searchpathdirectory/itemreplacementdirectory
  public enum SearchPathDirectory: UInt, Sendable {
    case itemReplacementDirectory = 99
  }

  /// `struct FileManager.SearchPathDomainMask: OptionSet`, with `static var userDomainMask`
  /// (`NSUserDomainMask = 1`):
  /// https://developer.apple.com/documentation/foundation/filemanager/searchpathdomainmask
  public struct SearchPathDomainMask: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let userDomainMask = SearchPathDomainMask(rawValue: 1)
  }

  /// `struct FileManager.ItemReplacementOptions: OptionSet`, with `static var
  /// withoutDeletingBackupItem` (`NSFileManagerItemReplacementWithoutDeletingBackupItem =
  /// 1 << 1`):
  /// https://developer.apple.com/documentation/foundation/filemanager/itemreplacementoptions/withoutdeletingbackupitem
  public struct ItemReplacementOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let withoutDeletingBackupItem = ItemReplacementOptions(rawValue: 1 << 1)
  }

  /// `func url(for directory: FileManager.SearchPathDirectory, in domain:
  /// FileManager.SearchPathDomainMask, appropriateFor url: URL?, create shouldCreate: Bool)
  /// throws -> URL`:
  /// https://developer.apple.com/documentation/foundation/filemanager/url(for:in:appropriatefor:create:)
  public func url(
    for directory: FileManager.SearchPathDirectory, in domain: FileManager.SearchPathDomainMask,
    appropriateFor url: URL?, create shouldCreate: Bool
  ) throws -> URL { URL(fileURLWithPath: "/") }

  /// `func replaceItemAt(_ originalItemURL: URL, withItemAt newItemURL: URL, backupItemName:
  /// String? = nil, options: FileManager.ItemReplacementOptions = []) throws -> URL?`:
  /// https://developer.apple.com/documentation/foundation/filemanager/replaceitemat(_:withitemat:backupitemname:options:)
  public func replaceItemAt(
    _ originalItemURL: URL, withItemAt newItemURL: URL, backupItemName: String? = nil,
    options: FileManager.ItemReplacementOptions = []
  ) throws -> URL? { nil }
}
