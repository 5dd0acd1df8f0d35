// Darwin's LiveSync. Built into Storage on Darwin; on Linux the DarwinCompileCheck target
// compiles this very file with MN_DARWIN_SHIM, beside DarwinSyncProvider.swift, against
// Storage's public interface (mn.md §15).
#if MN_DARWIN_SHIM
  import Platform
  import Storage
#elseif canImport(Darwin)
  import Platform
#endif

#if canImport(Darwin) || MN_DARWIN_SHIM
  extension LiveSync {
    /// Turns off the download of dataless files for the process before any file is read
    /// (mn.md §15; a failure is said with `warn`, and a read of one may then download it),
    /// and returns `DarwinSyncProvider` with `base` behind a `CoordinatedFileSystem`.
    ///
    /// - Parameters:
    ///   - base: The live file system (or the test-only pausing one over it).
    ///   - home: `$HOME`, which tells the synced folders apart; nil when it is not set.
    ///   - warn: Says a line on standard error.
    /// - Returns: The provider and the coordinated file system over `base`.
    public static func make(base: any FileSystem, home: AbsolutePath?, warn: (String) -> Void)
      -> (provider: any SyncProvider, fileSystem: any FileSystem)
    {
      if let error = DarwinSyncProvider.turnOffMaterializationForProcess() {
        warn(
          "mn: warning: cannot turn off the download of dataless files (\(error)); "
            + "a read of one may download it\n")
      }
      let provider: any SyncProvider = DarwinSyncProvider(home: home)
      return (provider, CoordinatedFileSystem(base: base, provider: provider))
    }
  }
#endif
