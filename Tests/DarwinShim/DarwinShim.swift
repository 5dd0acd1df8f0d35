// The Apple symbols that Sources/Storage/DarwinSyncProvider.swift uses, and only those,
// declared for Linux so that the DarwinCompileCheck target can type-check that file here
// (mn.md §15). Test-only: nothing links it into mn, and nothing runs these bodies; each only
// returns an inert value. Every declaration gives the page of Apple's documentation (and,
// for C, the SDK header) whose signature it copies. Where Swift on Linux has no equivalent
// type (`AutoreleasingUnsafeMutablePointer`), the nearest one takes its place, named here.

// MARK: - <sys/resource.h> (macOS SDK; man page setiopolicy_np(3))

/// `#define IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES 3`, <sys/resource.h>.
public let IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES: Int32 = 3
/// `#define IOPOL_SCOPE_PROCESS 0`, <sys/resource.h>.
public let IOPOL_SCOPE_PROCESS: Int32 = 0
/// `#define IOPOL_SCOPE_THREAD 1`, <sys/resource.h>.
public let IOPOL_SCOPE_THREAD: Int32 = 1
/// `#define IOPOL_MATERIALIZE_DATALESS_FILES_OFF 1`, <sys/resource.h>.
public let IOPOL_MATERIALIZE_DATALESS_FILES_OFF: Int32 = 1
/// `#define IOPOL_MATERIALIZE_DATALESS_FILES_ON 2`, <sys/resource.h>.
public let IOPOL_MATERIALIZE_DATALESS_FILES_ON: Int32 = 2

/// `int setiopolicy_np(int iotype, int scope, int policy);`, <sys/resource.h>.
public func setiopolicy_np(_ iotype: Int32, _ scope: Int32, _ policy: Int32) -> Int32 { 0 }

/// `int getiopolicy_np(int iotype, int scope);`, <sys/resource.h>.
public func getiopolicy_np(_ iotype: Int32, _ scope: Int32) -> Int32 { 0 }

// MARK: - Foundation

/// `class NSError`: https://developer.apple.com/documentation/foundation/nserror
public final class NSError: Error {}

/// `struct URLResourceKey`, with `static let ubiquitousItemDownloadingStatusKey:
/// URLResourceKey`:
/// https://developer.apple.com/documentation/foundation/urlresourcekey/ubiquitousitemdownloadingstatuskey
public struct URLResourceKey: Hashable, Sendable {
  public let rawValue: String
  public static let ubiquitousItemDownloadingStatusKey = URLResourceKey(
    rawValue: "NSURLUbiquitousItemDownloadingStatusKey")
  /// `static let isUbiquitousItemKey: URLResourceKey`:
  /// https://developer.apple.com/documentation/foundation/urlresourcekey/isubiquitousitemkey
  public static let isUbiquitousItemKey = URLResourceKey(rawValue: "NSURLIsUbiquitousItemKey")
}

/// `struct URLUbiquitousItemDownloadingStatus` with `static let current`, `downloaded`,
/// `notDownloaded`:
/// https://developer.apple.com/documentation/foundation/urlubiquitousitemdownloadingstatus
public struct URLUbiquitousItemDownloadingStatus: Hashable, Sendable {
  public let rawValue: String
  public static let current = URLUbiquitousItemDownloadingStatus(rawValue: "current")
  public static let downloaded = URLUbiquitousItemDownloadingStatus(rawValue: "downloaded")
  public static let notDownloaded = URLUbiquitousItemDownloadingStatus(rawValue: "notDownloaded")
}

/// `struct URLResourceValues`, with `var ubiquitousItemDownloadingStatus:
/// URLUbiquitousItemDownloadingStatus? { get }`:
/// https://developer.apple.com/documentation/foundation/urlresourcevalues/ubiquitousitemdownloadingstatus
public struct URLResourceValues {
  public var ubiquitousItemDownloadingStatus: URLUbiquitousItemDownloadingStatus? { nil }
  /// `var isUbiquitousItem: Bool? { get }`:
  /// https://developer.apple.com/documentation/foundation/urlresourcevalues/isubiquitousitem
  public var isUbiquitousItem: Bool? { nil }
}

/// `struct URL`: `init(fileURLWithPath path: String)`
/// (https://developer.apple.com/documentation/foundation/url/init(fileurlwithpath:)),
/// `var path: String { get }` (https://developer.apple.com/documentation/foundation/url/path),
/// `func resourceValues(forKeys keys: Set<URLResourceKey>) throws -> URLResourceValues`
/// (https://developer.apple.com/documentation/foundation/url/resourcevalues(forkeys:)).
public struct URL: Hashable, Sendable {
  public var path: String
  public init(fileURLWithPath path: String) { self.path = path }
  public func resourceValues(forKeys keys: Set<URLResourceKey>) throws -> URLResourceValues {
    URLResourceValues()
  }
}

/// `struct Date`, `var timeIntervalSince1970: TimeInterval { get }` (`TimeInterval` is
/// `Double`): https://developer.apple.com/documentation/foundation/date/timeintervalsince1970
public struct Date: Sendable {
  public var timeIntervalSince1970: Double
}

/// `class FileManager`: `class var \`default\`: FileManager { get }`
/// (https://developer.apple.com/documentation/foundation/filemanager/default),
/// `func startDownloadingUbiquitousItem(at url: URL) throws`
/// (https://developer.apple.com/documentation/foundation/filemanager/startdownloadingubiquitousitem(at:)),
/// `func setUbiquitous(_ flag: Bool, itemAt url: URL, destinationURL: URL) throws`
/// (https://developer.apple.com/documentation/foundation/filemanager/setubiquitous(_:itemat:destinationurl:)).
public final class FileManager: @unchecked Sendable {
  public static let `default` = FileManager()
  public func startDownloadingUbiquitousItem(at url: URL) throws {}
  public func setUbiquitous(_ flag: Bool, itemAt url: URL, destinationURL: URL) throws {}
}

/// `class Thread`, `class func detachNewThread(_ block: @escaping @Sendable () -> Void)`:
/// https://developer.apple.com/documentation/foundation/thread/detachnewthread(_:)
public final class Thread {
  public static func detachNewThread(_ block: @escaping @Sendable () -> Void) {}
}

/// `typealias NSErrorPointer = AutoreleasingUnsafeMutablePointer<NSError?>?`
/// (https://developer.apple.com/documentation/foundation/nserrorpointer); Linux has no
/// `AutoreleasingUnsafeMutablePointer`, and `&error` converts to this pointer as to that one.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// `protocol NSFilePresenter`:
/// https://developer.apple.com/documentation/foundation/nsfilepresenter
public protocol NSFilePresenter: AnyObject {}

/// `class NSFileCoordinator` (Foundation/NSFileCoordinator.h):
/// - `init(filePresenter filePresenterOrNil: (any NSFilePresenter)?)`
///   https://developer.apple.com/documentation/foundation/nsfilecoordinator/init(filepresenter:)
/// - `func coordinate(readingItemAt url: URL, options: NSFileCoordinator.ReadingOptions = [],
///   error outError: NSErrorPointer, byAccessor reader: (URL) -> Void)`
///   https://developer.apple.com/documentation/foundation/nsfilecoordinator/coordinate(readingitemat:options:error:byaccessor:)
/// - `func coordinate(writingItemAt url: URL, options: NSFileCoordinator.WritingOptions = [],
///   error outError: NSErrorPointer, byAccessor writer: (URL) -> Void)`
///   https://developer.apple.com/documentation/foundation/nsfilecoordinator/coordinate(writingitemat:options:error:byaccessor:)
public final class NSFileCoordinator {
  /// `struct NSFileCoordinator.ReadingOptions: OptionSet` (`NSUInteger` raw value):
  /// https://developer.apple.com/documentation/foundation/nsfilecoordinator/readingoptions
  public struct ReadingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
  }

  /// `struct NSFileCoordinator.WritingOptions: OptionSet`, with `static var forDeleting`
  /// (`NSFileCoordinatorWritingForDeleting = 1 << 0`), Foundation/NSFileCoordinator.h:
  /// https://developer.apple.com/documentation/foundation/nsfilecoordinator/writingoptions
  public struct WritingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let forDeleting = WritingOptions(rawValue: 1 << 0)
  }

  public init(filePresenter filePresenterOrNil: (any NSFilePresenter)?) {}

  public func coordinate(
    readingItemAt url: URL, options: NSFileCoordinator.ReadingOptions = [],
    error outError: NSErrorPointer, byAccessor reader: (URL) -> Void
  ) {}

  public func coordinate(
    writingItemAt url: URL, options: NSFileCoordinator.WritingOptions = [],
    error outError: NSErrorPointer, byAccessor writer: (URL) -> Void
  ) {}
}

/// `class NSFileVersion` (Foundation/NSFileVersion.h):
/// - `class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]?`
///   https://developer.apple.com/documentation/foundation/nsfileversion/unresolvedconflictversionsofitem(at:)
/// - `class func removeOtherVersionsOfItem(at url: URL) throws`
///   https://developer.apple.com/documentation/foundation/nsfileversion/removeotherversionsofitem(at:)
/// - `var url: URL { get }`
///   https://developer.apple.com/documentation/foundation/nsfileversion/url
/// - `var localizedNameOfSavingComputer: String? { get }`
///   https://developer.apple.com/documentation/foundation/nsfileversion/localizednameofsavingcomputer
/// - `var modificationDate: Date? { get }`
///   https://developer.apple.com/documentation/foundation/nsfileversion/modificationdate
/// - `var isResolved: Bool { get set }`
///   https://developer.apple.com/documentation/foundation/nsfileversion/isresolved
/// - `func remove() throws`
///   https://developer.apple.com/documentation/foundation/nsfileversion/remove()
/// - `func value(forKey key: String) -> Any?` (from `NSObject`, key-value coding)
///   https://developer.apple.com/documentation/objectivec/nsobject/1412591-value
public final class NSFileVersion {
  public func value(forKey key: String) -> Any? { nil }
  public class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]? { nil }
  public class func removeOtherVersionsOfItem(at url: URL) throws {}
  public var url: URL { URL(fileURLWithPath: "/") }
  public var localizedNameOfSavingComputer: String? { nil }
  public var modificationDate: Date? { nil }
  public var isResolved: Bool = false
  public func remove() throws {}
}
