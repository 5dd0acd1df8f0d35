@_exported import DarwinShimC

// What the Darwin overlay (the Swift side of Apple's `Darwin` module) adds to the C
// declarations of DarwinShimC: the variadic calls as Swift functions, `errno` as a variable,
// the file-type bits as `mode_t`, `SIG_IGN`. Signatures as the overlay declares them.

/// `open(2)` without and with a mode (the C function is variadic).
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32) -> Int32 { -1 }
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32, _ mode: mode_t) -> Int32 { -1 }
/// `openat(2)` without and with a mode.
public func openat(_ fd: Int32, _ path: UnsafePointer<CChar>, _ oflag: Int32) -> Int32 { -1 }
public func openat(_ fd: Int32, _ path: UnsafePointer<CChar>, _ oflag: Int32, _ mode: mode_t)
  -> Int32
{ -1 }
/// `fcntl(2)` with no argument and with an `int`.
public func fcntl(_ fd: Int32, _ cmd: Int32) -> Int32 { -1 }
public func fcntl(_ fd: Int32, _ cmd: Int32, _ value: Int32) -> Int32 { -1 }

/// The calling thread's `errno` (C: `(*__error())`).
public var errno: Int32 {
  get { 0 }
  set {}
}

/// <sys/stat.h>'s file-type bits, typed `mode_t` by the overlay.
public var S_IFMT: mode_t { mode_t(0o170000) }
public var S_IFREG: mode_t { mode_t(0o100000) }
public var S_IFDIR: mode_t { mode_t(0o040000) }
public var S_IFLNK: mode_t { mode_t(0o120000) }

/// `SIG_IGN` (C: `(void (*)(int))1`).
public var SIG_IGN: sig_t { unsafeBitCast(1 as Int, to: sig_t.self) }

/// <time.h>'s `CLOCK_REALTIME` and `CLOCK_MONOTONIC`, macros naming `clockid_t`'s
/// enumerators. Swift code built against the macOS SDK uses them by these names; the importer
/// here does not follow a macro to an enumerator (DarwinShimC declares them as Darwin does),
/// so they are restated with the same values and type.
public var CLOCK_REALTIME: clockid_t { _CLOCK_REALTIME }
public var CLOCK_MONOTONIC: clockid_t { _CLOCK_MONOTONIC }
