// Darwin's side of LiveSystem and ExecutablePath. Built on Darwin, and on Linux by the
// DarwinCompileCheck targets with MN_DARWIN_SHIM against Tests/DarwinLibcShim (mn.md §15).
#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Darwin)
  import Darwin
  import MachO  // _NSGetExecutablePath, <mach-o/dyld.h>
#endif

#if canImport(Darwin) || MN_DARWIN_SHIM
  /// The process's environment table: Darwin's `environ` is not visible to a dynamic
  /// library, `_NSGetEnviron()` (<crt_externs.h>) is.
  func environmentTable() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    _NSGetEnviron()?.pointee
  }

  /// `_NSGetExecutablePath` (<mach-o/dyld.h>): the path given to exec, links not followed;
  /// nil when it is longer than 4096 bytes (the call fails then).
  func darwinExecutablePath() -> String? {
    var size: UInt32 = 4096
    var buffer = [CChar](repeating: 0, count: Int(size))
    guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
    return String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
#endif
