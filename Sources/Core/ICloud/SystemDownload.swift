#if canImport(Darwin)
  import Foundation
#endif

/// Asking the operating system to download a file that is not downloaded (macOS only).
///
/// On macOS, `FileManager.startDownloadingUbiquitousItem(at:)` asks iCloud Drive (or a File
/// Provider) to bring the file's content down; it returns at once and the download goes on in
/// the background, so the caller then waits for the file. This is the one place in Core that
/// uses Foundation, and only on Darwin. Elsewhere there is no system to ask: the sync client
/// replaces placeholders on its own, and `isAvailable` is false.
public enum SystemDownload {
  /// Whether the system can be asked (Darwin).
  public static var isAvailable: Bool {
    #if canImport(Darwin)
      return true
    #else
      return false
    #endif
  }

  /// Asks the system to download the file at `path` (the real file's path, not its stub).
  ///
  /// - Throws: the system's error, when it refuses (the file is not in a synced folder);
  ///   `Errno.notPermitted` where there is no system to ask.
  public static func request(_ path: String) throws {
    #if canImport(Darwin)
      try FileManager.default.startDownloadingUbiquitousItem(at: URL(fileURLWithPath: path))
    #else
      throw Errno.notPermitted
    #endif
  }
}
