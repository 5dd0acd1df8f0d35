import Platform

/// macOS dataless files: File Provider placeholders that keep the real name.
///
/// Since macOS 14, iCloud Drive no longer writes `.icloud` stubs on the Mac: a file that is
/// not downloaded is the file itself, with `SF_DATALESS` in `st_flags`, and reading it makes
/// the system download it ("materialize"). Listing must never do that, so a command turns
/// materialization off on the listing thread (`SyncProvider.withoutMaterializing`) while it
/// walks a folder. Elsewhere the live file system never reports the flag.
public enum DatalessFiles {
  /// Whether this system has dataless files, so that telling one needs `lstat` (its
  /// flags): a directory entry's type does not say it.
  public static var areDetected: Bool { LiveSystem.isDarwin }

  /// `SF_DATALESS` in `st_flags` (`<sys/stat.h>`): the value is the same on every Darwin,
  /// and spelled out so that a simulated File Provider can set it on Linux, where the live
  /// file system always gives 0.
  public static let flag: UInt32 = 0x4000_0000

  /// Whether `info` (from `lstat`) describes a dataless file or directory.
  public static func isDataless(_ info: FileInfo) -> Bool {
    info.flags & flag != 0
  }
}
