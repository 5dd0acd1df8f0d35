/// The permission bits of a file's mode (`st_mode & 0o7777`), as a set (swift-system:
/// FilePermissions).
///
/// An octal literal reads as the mode it is (`0o644` is `[.ownerReadWrite, .groupRead,
/// .otherRead]`), so a call writes `permissions: 0o600` as `chmod` would; `rawValue` is the
/// number, for what prints or stores a mode (an archive entry's, a test's expectation).
public struct FilePermissions: OptionSet, Hashable, Sendable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The mode bits.
  public var rawValue: UInt32

  /// The bits `rawValue` has; any bit outside `0o7777` is the caller's to keep out.
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// The bits of an octal literal: `0o755`.
  public init(integerLiteral value: UInt32) { self.rawValue = value }

  public static let ownerRead: FilePermissions = 0o400
  public static let ownerWrite: FilePermissions = 0o200
  public static let ownerExecute: FilePermissions = 0o100
  public static let ownerReadWrite: FilePermissions = 0o600
  public static let ownerReadWriteExecute: FilePermissions = 0o700
  public static let groupRead: FilePermissions = 0o040
  public static let groupWrite: FilePermissions = 0o020
  public static let groupExecute: FilePermissions = 0o010
  public static let groupReadWrite: FilePermissions = 0o060
  public static let groupReadWriteExecute: FilePermissions = 0o070
  public static let otherRead: FilePermissions = 0o004
  public static let otherWrite: FilePermissions = 0o002
  public static let otherExecute: FilePermissions = 0o001
  public static let otherReadWrite: FilePermissions = 0o006
  public static let otherReadWriteExecute: FilePermissions = 0o007
  public static let setUserID: FilePermissions = 0o4000
  public static let setGroupID: FilePermissions = 0o2000
  public static let saveText: FilePermissions = 0o1000

  /// The read, write and execute bits of owner, group and others (`0o777`), without the
  /// set-ID and sticky bits: what an archive entry keeps.
  public static let accessBits: FilePermissions = 0o777

  /// The mode in octal, as `chmod` takes it: `644`.
  public var description: String { String(rawValue, radix: 8) }
}
