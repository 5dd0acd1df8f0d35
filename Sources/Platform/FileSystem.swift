/// What kind of object a path names (from `lstat`, links not followed).
public enum FileKind: Sendable, Equatable {
  case regular
  case directory
  case symlink
  case other
}

/// The parts of `struct stat` that mn uses.
public struct FileInfo: Sendable, Equatable {
  public var kind: FileKind
  public var size: Int64
  /// Permission bits (`st_mode & 0o7777`).
  public var permissions: FilePermissions
  /// Modification time, seconds since the epoch.
  public var modificationSeconds: Int64
  /// Modification time, the nanoseconds part.
  public var modificationNanoseconds: Int64
  public var device: UInt64
  public var inode: UInt64
  /// BSD `st_flags` (Darwin; always 0 elsewhere). `SF_DATALESS` marks a placeholder.
  public var flags: UInt32

  public init(
    kind: FileKind, size: Int64, permissions: FilePermissions = 0o644,
    modificationSeconds: Int64 = 0,
    modificationNanoseconds: Int64 = 0, device: UInt64 = 0, inode: UInt64 = 0, flags: UInt32 = 0
  ) {
    self.kind = kind
    self.size = size
    self.permissions = permissions
    self.modificationSeconds = modificationSeconds
    self.modificationNanoseconds = modificationNanoseconds
    self.device = device
    self.inode = inode
    self.flags = flags
  }
}

/// One entry of a directory listing with its `lstat` information.
public struct DirectoryEntry: Sendable, Equatable {
  /// The name, a single path component.
  public var name: String
  /// What kind of object it is; nil when `error` is set.
  public var kind: FileKind?
  /// The information; nil when `error` is set, and when only the kind was looked up (the
  /// kind the directory entry said).
  public var info: FileInfo?
  /// Why `lstat` failed, when it did.
  public var error: Errno?
  /// The content of a regular file that was read (`readFile(_:in:limit:)`).
  public var content: [UInt8]?
  /// Why reading it failed, when it did (`EFBIG` past the limit).
  public var readError: Errno?

  /// An entry with its information (its kind is the information's).
  public init(
    name: String, info: FileInfo?, error: Errno? = nil, content: [UInt8]? = nil,
    readError: Errno? = nil
  ) {
    self.name = name
    self.kind = info?.kind
    self.info = info
    self.error = error
    self.content = content
    self.readError = readError
  }

  /// An entry known by its kind only.
  public init(name: String, kind: FileKind) {
    self.name = name
    self.kind = kind
  }
}

/// One name of a directory listing with the kind its directory entry gives (`d_type`).
public struct DirectoryItem: Sendable, Equatable {
  /// The name, a single path component.
  public var name: String
  /// The kind the directory entry says; nil where the file system leaves it to `lstat`
  /// (`DT_UNKNOWN`), and in the portable form.
  public var kind: FileKind?

  public init(name: String, kind: FileKind?) {
    self.name = name
    self.kind = kind
  }
}

/// A directory opened for calls relative to it (`info(_:in:)`, `readFile(_:in:limit:)`).
public struct OpenDirectory: Sendable {
  /// The directory's path, as it was opened.
  public var path: AbsolutePath
  /// The open descriptor; nil in the portable form, whose relative calls join the path.
  public var descriptor: FileDescriptor?

  public init(path: AbsolutePath, descriptor: FileDescriptor?) {
    self.path = path
    self.descriptor = descriptor
  }

  /// The path of `name` (one component) in this directory.
  public func path(of name: String) -> AbsolutePath { path.appending(name) }
}

extension FileSystem {
  /// No early writeback: `sync` does all of it.
  public func startWriteback(_ fd: FileDescriptor, offset: Int64, length: Int64) {}

  /// The portable form: `contentsOfDirectory`, then `info` for each entry.
  public func contentsOfDirectoryWithInfo(_ path: AbsolutePath) throws -> [DirectoryEntry] {
    try contentsOfDirectory(path).compactMap { examine($0, in: path) }
  }

  /// The portable form: `contentsOfDirectory`, with no kinds (the caller then asks `info`).
  public func directoryItems(_ path: AbsolutePath) throws -> [DirectoryItem] {
    try contentsOfDirectory(path).map { DirectoryItem(name: $0, kind: nil) }
  }

  /// The names in a directory with their kinds: the directory entry's, else `lstat`'s. An
  /// entry that vanished in between, or whose `lstat` fails, is left out.
  public func directoryItemsWithKinds(_ path: AbsolutePath) throws -> [DirectoryItem] {
    let items = try directoryItems(path)
    guard items.contains(where: { $0.kind == nil }) else { return items }
    let directory = try openDirectory(path)
    defer { closeDirectory(directory) }
    return items.compactMap { item in
      if item.kind != nil { return item }
      guard let info = try? info(item.name, in: directory) else { return nil }
      return DirectoryItem(name: item.name, kind: info.kind)
    }
  }

  /// The portable form: nothing is opened; the relative calls join the path.
  public func openDirectory(_ path: AbsolutePath) throws -> OpenDirectory {
    OpenDirectory(path: path, descriptor: nil)
  }

  /// The portable form: nothing to close.
  public func closeDirectory(_ directory: OpenDirectory) {}

  /// The portable form: `info` of the joined path.
  public func info(_ name: String, in directory: OpenDirectory) throws -> FileInfo? {
    try info(directory.path(of: name))
  }

  /// The portable form: `info` of the joined path, then `readFile` when it is a regular file.
  public func readFile(_ name: String, in directory: OpenDirectory, limit: Int) throws
    -> DirectoryEntry?
  {
    let path = directory.path(of: name)
    guard let info = try info(path) else { return nil }
    var entry = DirectoryEntry(name: name, info: info)
    guard info.kind == .regular else { return entry }
    do {
      entry.content = try readFile(path, limit: limit)
    } catch {
      entry.readError = (error as? FileSystemError)?.errno ?? .ioError
    }
    return entry
  }

  /// The entry `name` of the directory `directory` with its `lstat` information, or the
  /// error; nil when it does not exist.
  private func examine(_ name: String, in directory: AbsolutePath) -> DirectoryEntry? {
    do {
      guard let info = try info(directory.appending(name)) else { return nil }
      return DirectoryEntry(name: name, info: info)
    } catch {
      return DirectoryEntry(
        name: name, info: nil, error: (error as? FileSystemError)?.errno ?? .ioError)
    }
  }
}

/// An open file descriptor handed out by a `FileSystem`.
public struct FileDescriptor: Sendable, Hashable {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }
}

/// The file-system calls the library targets make, one method per system call (swift-system style).
///
/// No library target calls the system directly: it takes a `FileSystem`, so that tests can inject
/// failures (`EACCES`, `ENOSPC`, `EINTR`) at a chosen call. Every method throws
/// `FileSystemError` carrying the operation, the path and the `Errno`. `EINTR` is retried
/// inside the live implementation.
///
/// Every path is an `AbsolutePath` (swift-system's `FileDescriptor.open(_ path: FilePath, …)`);
/// a name inside a directory that is open (`info(_:in:)`) stays a one-component `String`.
/// Joins and containment go through `AbsolutePath` and `LogicalName`, never through text.
///
/// The requirements throw untyped: a conformer may throw more than `FileSystemError` (the
/// coordinated file system a `SyncProviderError`, a test's fault hook the "crash" it
/// simulates). `LiveFileSystem` throws `FileSystemError` only (`throws(FileSystemError)`),
/// so code that holds it by its type catches exactly that.
public protocol FileSystem: Sendable {
  /// Information about `path`, not following a final symbolic link; nil when it does not
  /// exist. The corresponding C function is `lstat`.
  func info(_ path: AbsolutePath) throws -> FileInfo?
  /// Information about `path`, following symbolic links; nil when it does not exist. The
  /// corresponding C function is `stat`.
  func infoFollowingLinks(_ path: AbsolutePath) throws -> FileInfo?
  /// The names in a directory, without `.` and `..`, in no particular order. The
  /// corresponding C functions are `opendir` and `readdir`.
  func contentsOfDirectory(_ path: AbsolutePath) throws -> [String]
  /// The names in a directory, each with its `lstat` information, in no particular order.
  /// An entry whose `lstat` fails carries the error; one that vanished in between is left
  /// out. The corresponding C functions are `opendir`, `readdir` and `fstatat`
  /// (`AT_SYMLINK_NOFOLLOW`, relative to the directory, which saves a path lookup per entry).
  func contentsOfDirectoryWithInfo(_ path: AbsolutePath) throws -> [DirectoryEntry]
  /// The names in a directory, without `.` and `..`, each with the kind its directory entry
  /// gives (`d_type`), in no particular order: no `lstat`. The corresponding C functions are
  /// `opendir` and `readdir`.
  func directoryItems(_ path: AbsolutePath) throws -> [DirectoryItem]
  /// Opens a directory for the calls relative to it; close it with `closeDirectory`. The
  /// corresponding C function is `open(O_RDONLY | O_DIRECTORY | O_CLOEXEC)`.
  func openDirectory(_ path: AbsolutePath) throws -> OpenDirectory
  /// Closes a directory `openDirectory` opened. The corresponding C function is `close`.
  func closeDirectory(_ directory: OpenDirectory)
  /// Information about `name` in `directory`, not following a final symbolic link; nil when
  /// it does not exist. The corresponding C function is `fstatat(AT_SYMLINK_NOFOLLOW)`,
  /// relative to the directory, which saves a path lookup per entry.
  func info(_ name: String, in directory: OpenDirectory) throws -> FileInfo?
  /// Opens `name` in `directory` and reads it: its information, from the open file, and for a
  /// regular file its content (at most `limit` bytes, else `readError` is `EFBIG`); nil when
  /// it does not exist. It is opened without following a link and without blocking, so that a
  /// name replaced by a link or a FIFO is never followed or waited on (a link then throws
  /// `ELOOP`). The corresponding C functions are `openat`, `fstat`, `read` and `close`; no
  /// final `read` once the size `fstat` gave has arrived.
  func readFile(_ name: String, in directory: OpenDirectory, limit: Int) throws
    -> DirectoryEntry?
  /// The whole content of a regular file; throws `EFBIG` past `limit` bytes. The
  /// corresponding C functions are `open` and `read`.
  func readFile(_ path: AbsolutePath, limit: Int) throws -> [UInt8]
  /// Creates a directory. The corresponding C function is `mkdir`.
  func makeDirectory(_ path: AbsolutePath, permissions: FilePermissions) throws
  /// Creates and opens a new file for writing, failing if it exists. The corresponding C
  /// function is `open(O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC)`.
  func createExclusive(_ path: AbsolutePath, permissions: FilePermissions) throws -> FileDescriptor
  /// Opens an existing file for reading. The corresponding C function is `open(O_RDONLY)`.
  func openForReading(_ path: AbsolutePath) throws -> FileDescriptor
  /// Opens (creating if missing) a file for locking. The corresponding C function is
  /// `open(O_CREAT | O_RDWR | O_CLOEXEC)`.
  func openForLocking(_ path: AbsolutePath) throws -> FileDescriptor
  /// Writes all of `bytes`. The corresponding C function is `write`, looped.
  func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: AbsolutePath) throws
  /// Reads up to `count` bytes into `buffer`; 0 at the end. The corresponding C function
  /// is `read`.
  func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: AbsolutePath)
    throws -> Int
  /// Flushes a file to stable storage. The corresponding C function is `fsync`.
  func sync(_ fd: FileDescriptor, path: AbsolutePath) throws
  /// Starts writing a range of a file to disk without waiting, so that a later `sync` has
  /// less left to wait for (Linux `sync_file_range`). A hint: it never fails.
  func startWriteback(_ fd: FileDescriptor, offset: Int64, length: Int64)
  /// Closes a descriptor. The corresponding C function is `close`.
  func close(_ fd: FileDescriptor, path: AbsolutePath) throws
  /// Flushes a directory's entries to stable storage: `open(O_RDONLY|O_DIRECTORY)`, `fsync`.
  func syncDirectory(_ path: AbsolutePath) throws
  /// Renames atomically within one file system. The corresponding C function is `rename`.
  func rename(_ from: AbsolutePath, to: AbsolutePath) throws
  /// Exchanges two paths atomically: each then names what the other named. Both must exist
  /// on one file system. Throws `EINVAL`, `ENOTSUP` or `ENOSYS` where the file system cannot
  /// exchange (`Errno.isExchangeRefusal`). The corresponding C functions are
  /// `renameat2(RENAME_EXCHANGE)` on Linux and `renamex_np(RENAME_SWAP)` on Darwin.
  func exchange(_ a: AbsolutePath, _ b: AbsolutePath) throws
  /// Renames atomically within one file system, failing with `EEXIST` when `to` exists
  /// (links included) rather than replacing it; `EINVAL`, `ENOTSUP` or `ENOSYS` where the
  /// file system cannot. The corresponding C functions are `renameat2(RENAME_NOREPLACE)` on
  /// Linux and `renamex_np(RENAME_EXCL)` on Darwin.
  func renameExclusive(_ from: AbsolutePath, to: AbsolutePath) throws
  /// Removes a file (not a directory). The corresponding C function is `unlink`.
  func removeFile(_ path: AbsolutePath) throws
  /// Removes an empty directory. The corresponding C function is `rmdir`.
  func removeDirectory(_ path: AbsolutePath) throws
  /// Sets permission bits. The corresponding C function is `chmod`.
  func setPermissions(_ path: AbsolutePath, _ permissions: FilePermissions) throws
  /// Takes an exclusive advisory lock without blocking; false when another holder has it.
  /// The corresponding C function is `flock(LOCK_EX | LOCK_NB)`.
  func tryLock(_ fd: FileDescriptor, path: AbsolutePath) throws -> Bool
  /// Releases the lock `tryLock` took, for every descriptor that shares its open file: a
  /// child process that inherited it (between `fork` and `exec`, before `O_CLOEXEC` closes
  /// it) would otherwise hold the lock after this process closed its own. The corresponding C
  /// function is `flock(LOCK_UN)`.
  func unlock(_ fd: FileDescriptor, path: AbsolutePath) throws
  /// The target of a symbolic link. The corresponding C function is `readlink`.
  func readLink(_ path: AbsolutePath) throws -> String
  /// The canonical absolute path, links resolved. The corresponding C function is `realpath`.
  func realPath(_ path: AbsolutePath) throws -> AbsolutePath
}
