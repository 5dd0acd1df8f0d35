/// The path the running `mn` was started as, for a service to run (`watch --service`).
public enum ExecutablePath {
  /// The path given to exec, links not followed where the system says (Darwin's
  /// `_NSGetExecutablePath`: Homebrew's `bin/mn` or `opt/mn/bin/mn`, not the versioned
  /// Cellar path behind them, which `brew upgrade` removes); on Linux `/proc/self/exe`,
  /// read with `readLink` (the kernel resolves that one). Nil when the system does not say.
  public static func current(readLink: (String) throws -> String) -> String? {
    #if canImport(Darwin) || MN_DARWIN_SHIM
      return darwinExecutablePath()
    #else
      return try? readLink("/proc/self/exe")
    #endif
  }
}
