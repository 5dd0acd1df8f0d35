import Platform

/// The live process's sync provider and the file system every verb reads and writes
/// through: on Darwin, `DarwinSyncProvider` behind a `CoordinatedFileSystem` with the
/// download of dataless files turned off for the process (DarwinLiveSync.swift); elsewhere
/// no provider, and the live file system as it is, without a wrapper's indirection.
public enum LiveSync {
  #if !canImport(Darwin)
    /// - Parameters:
    ///   - base: The live file system (or the test-only pausing one over it).
    ///   - home: `$HOME`, which tells the synced folders apart; nil when it is not set.
    ///   - warn: Says a line on standard error.
    /// - Returns: `NoSyncProvider` and `base` itself.
    public static func make(base: any FileSystem, home: AbsolutePath?, warn: (String) -> Void)
      -> (provider: any SyncProvider, fileSystem: any FileSystem)
    {
      (NoSyncProvider(), base)
    }
  #endif
}
