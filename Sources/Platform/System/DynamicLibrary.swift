#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A shared library opened at run time (`dlopen`, `dlsym`): what loads libarchive (and
/// could load any library) only when a verb needs it, not at every start.
public enum DynamicLibrary {
  /// Opens the library `name` (a path or a name the loader searches for) with its symbols
  /// bound now and kept local; nil when it cannot be loaded (`lastError` says why).
  public static func open(_ name: String) -> UnsafeMutableRawPointer? {
    dlopen(name, RTLD_NOW | RTLD_LOCAL)
  }

  /// The address of `name` in the library `handle`, or nil (`lastError` says why).
  public static func symbol(_ handle: UnsafeMutableRawPointer, _ name: String)
    -> UnsafeMutableRawPointer?
  {
    _ = dlerror()
    return dlsym(handle, name)
  }

  /// Closes a library that `open` returned.
  public static func close(_ handle: UnsafeMutableRawPointer) {
    dlclose(handle)
  }

  /// The message of the last `open` or `symbol` failure, if any (`dlerror`).
  public static func lastError() -> String? {
    dlerror().map { String(cString: $0) }
  }
}
