#if MN_DARWIN_SHIM
  import DarwinLibcShim
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An error number from a failed system call (swift-system: Errno).
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
  /// The raw C `errno` value.
  public var rawValue: Int32

  /// Wraps a raw `errno` value.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// The current thread's `errno`.
  public static var current: Errno { Errno(rawValue: errno) }

  public static let notPermitted = Errno(rawValue: EPERM)
  public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
  public static let interrupted = Errno(rawValue: EINTR)
  public static let ioError = Errno(rawValue: EIO)
  public static let permissionDenied = Errno(rawValue: EACCES)
  public static let fileExists = Errno(rawValue: EEXIST)
  public static let crossDevice = Errno(rawValue: EXDEV)
  public static let notDirectory = Errno(rawValue: ENOTDIR)
  public static let isDirectory = Errno(rawValue: EISDIR)
  public static let noSpace = Errno(rawValue: ENOSPC)
  public static let readOnlyFileSystem = Errno(rawValue: EROFS)
  public static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
  public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
  public static let brokenPipe = Errno(rawValue: EPIPE)
  public static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
  public static let quotaExceeded = Errno(rawValue: EDQUOT)
  public static let invalidArgument = Errno(rawValue: EINVAL)
  public static let notSupported = Errno(rawValue: ENOTSUP)
  public static let notImplemented = Errno(rawValue: ENOSYS)
  public static let notATerminal = Errno(rawValue: ENOTTY)
  /// `EDEADLK`: on macOS, the read of a dataless file while materialization is off. mn
  /// takes it to mean "not downloaded" wherever a file is read (mn.md §15).
  public static let deadlock = Errno(rawValue: EDEADLK)
  /// `EFBIG`: also what `FileSystem.readFile` throws past its size limit.
  public static let fileTooLarge = Errno(rawValue: EFBIG)

  /// The system's message, lowercased in the style of mn's errors ("no such file or directory").
  public var description: String {
    guard let text = strerror(rawValue) else { return "error \(rawValue)" }
    let message = String(cString: text)
    guard let first = message.first else { return message }
    return first.lowercased() + message.dropFirst()
  }

  /// Whether the error means "out of space" (ENOSPC or EDQUOT).
  public var isNoSpace: Bool { self == .noSpace || self == .quotaExceeded }

  /// Whether the error is a file system's refusal of `exchange` or `renameExclusive`
  /// (EINVAL, ENOTSUP, ENOSYS: e.g. some FUSE mounts), so that the caller falls back.
  public var isExchangeRefusal: Bool {
    self == .invalidArgument || self == .notSupported || self == .notImplemented
  }
}

/// A failed file-system operation: what was done, to which path, and the `errno`.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The operation in words: "open", "read", "rename", ...
  public var operation: String
  /// The path the operation was applied to.
  public var path: String
  public var errno: Errno

  public init(_ operation: String, _ path: String, _ errno: Errno) {
    self.operation = operation
    self.path = path
    self.errno = errno
  }

  /// The error of `operation` on `path`, which it names by its text.
  public init(_ operation: String, _ path: AbsolutePath, _ errno: Errno) {
    self.init(operation, path.string, errno)
  }

  public var description: String {
    if meansNotDownloaded {
      return "cannot \(operation) '\(path)': not downloaded (see 'mn fetch')"
    }
    return "cannot \(operation) '\(path)': \(errno)"
  }

  /// Whether the error says that the file is not downloaded (`EDEADLK`, mn.md §15), never
  /// that it is empty or missing.
  public var meansNotDownloaded: Bool { errno == .deadlock }
}
