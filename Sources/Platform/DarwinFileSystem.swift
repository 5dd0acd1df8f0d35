// Darwin's side of LiveFileSystem: `struct stat`'s own fields, `F_FULLFSYNC`, `renamex_np`.
// Built on Darwin, and on Linux by the DarwinCompileCheckPlatform target with MN_DARWIN_SHIM
// against Tests/DarwinLibcShim (mn.md §15).
#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Darwin)
  import Darwin
#endif

#if canImport(Darwin) || MN_DARWIN_SHIM
  extension LiveFileSystem {
    /// Darwin's `st_mtimespec` and `st_flags` (`UF_DATALESS` and the other BSD flags).
    static func modificationAndFlags(_ st: stat) -> (Int64, Int64, UInt32) {
      (Int64(st.st_mtimespec.tv_sec), Int64(st.st_mtimespec.tv_nsec), UInt32(st.st_flags))
    }

    /// `fcntl(F_FULLFSYNC)` (the data on the medium, not in the drive's cache), `fsync`
    /// where the file system refuses it (`durableSync`).
    static func fullSync(_ fd: Int32, path: AbsolutePath) throws(FileSystemError) {
      try durableSync(path, full: { fcntl(fd, F_FULLFSYNC) }, plain: { fsync(fd) })
    }

    /// `renamex_np(RENAME_SWAP)`: the two names exchanged in one step.
    func swap(_ a: AbsolutePath, _ b: AbsolutePath) throws(FileSystemError) {
      _ = try retrying("exchange", a) { renamex_np(a.string, b.string, UInt32(RENAME_SWAP)) }
    }

    /// `renamex_np(RENAME_EXCL)`: a rename that fails with `EEXIST` rather than replace.
    func renameExclusively(_ from: AbsolutePath, to: AbsolutePath) throws(FileSystemError) {
      _ = try retrying("rename", from) {
        renamex_np(from.string, to.string, UInt32(RENAME_EXCL))
      }
    }
  }
#endif
