#if canImport(Darwin)
  import Darwin
#endif

/// macOS dataless files: File Provider placeholders that keep the real name.
///
/// Since macOS 14, iCloud Drive no longer writes `.icloud` stubs on the Mac: a file that is
/// not downloaded is the file itself, with `SF_DATALESS` in `st_flags`, and reading it makes
/// the system download it ("materialize"). Listing must never do that, so a command turns
/// materialization off for the whole process before walking a folder. Elsewhere there are
/// no dataless files and both functions do nothing.
public enum DatalessFiles {
  /// Whether this system has dataless files, so that telling one needs `lstat` (its
  /// flags): a directory entry's type does not say it.
  public static var areDetected: Bool {
    #if canImport(Darwin)
      return true
    #else
      return false
    #endif
  }

  /// Whether `info` (from `lstat`) describes a dataless file.
  public static func isDataless(_ info: FileInfo) -> Bool {
    #if canImport(Darwin)
      return info.flags & UInt32(SF_DATALESS) != 0
    #else
      return false
    #endif
  }

  /// Turns off the materialization of dataless files for this process, so that reading
  /// one fails (`EDEADLK`) instead of downloading it. The corresponding C function is
  /// `setiopolicy_np(IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_PROCESS,
  /// IOPOL_MATERIALIZE_DATALESS_FILES_OFF)`. Does nothing where there are no dataless files.
  ///
  /// - Throws: `Errno` when the system refuses.
  public static func disableMaterializationForProcess() throws(Errno) {
    #if canImport(Darwin)
      let result = setiopolicy_np(
        IOPOL_TYPE_VFS_MATERIALIZE_DATALESS_FILES, IOPOL_SCOPE_PROCESS,
        IOPOL_MATERIALIZE_DATALESS_FILES_OFF)
      if result != 0 { throw Errno.current }
    #endif
  }
}
