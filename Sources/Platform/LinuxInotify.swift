#if os(Linux)
  import Glibc

  extension ChangeNotifiers {
    /// Linux's notifier: inotify.
    static func systemNotifier(fileSystem: any FileSystem, wakeDescriptor: Int32?)
      throws(ChangeNotifierError) -> any ChangeNotifier
    {
      try LinuxInotify(fileSystem: fileSystem, wakeDescriptor: wakeDescriptor)
    }
  }

  /// Change notifications through Linux inotify: one watch per directory of the folder.
  ///
  /// A directory that appears is watched at once, with every directory already inside it
  /// (a sync client may create `records/2027/` and `records/2027/01.automerge` before the
  /// watch is in place: the caller rescans on `.directoryAdded`). A queue overflow
  /// (`IN_Q_OVERFLOW`) becomes `.overflow`. `wait` is `poll(2)` on the inotify descriptor
  /// and the wake descriptor, so an idle watcher makes no system call at all.
  public final class LinuxInotify: ChangeNotifier {
    private let fileSystem: any FileSystem
    private let wakeDescriptor: Int32?
    private let descriptor: Int32
    /// The path of each watch descriptor, and back.
    private var paths: [Int32: AbsolutePath] = [:]
    private var watches: [AbsolutePath: Int32] = [:]
    private var root: AbsolutePath?
    private var rootWatch: Int32?
    /// Watching an ancestor for the root to come back (`watchForAppearance`).
    private var watchingAncestor = false
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    /// The directories refused for want of resources (`ENOSPC`, `ENOMEM`).
    private var refused: Set<AbsolutePath> = []
    /// Tests only: a watch of a path for which this returns an error fails with it, as the
    /// kernel's would (a real exhausted limit cannot be set from a test safely).
    var refuseWatch: ((AbsolutePath) -> Errno?)?

    public var unwatched: [AbsolutePath] { refused.sorted { $0.string.precedesByBytes($1.string) } }

    private static let directoryMask = UInt32(
      IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO
        | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
    private static let ancestorMask = UInt32(
      IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// Opens an inotify instance. The corresponding C function is `inotify_init1`.
    ///
    /// - Parameters:
    ///   - fileSystem: Lists directories to watch each one.
    ///   - wakeDescriptor: Ends a `wait` with `.woken` when readable (it is not read).
    /// - Throws: `ChangeNotifierError.systemCall` when the system refuses (no more instances).
    public init(fileSystem: any FileSystem, wakeDescriptor: Int32?) throws(ChangeNotifierError) {
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { throw .systemCall("inotify_init1", .current) }
      self.fileSystem = fileSystem
      self.wakeDescriptor = wakeDescriptor
      self.descriptor = fd
    }

    deinit { Glibc.close(descriptor) }

    public func watchTree(root: AbsolutePath) throws(ChangeNotifierError) {
      dropAll()
      watchingAncestor = false
      self.root = root
      // The root may be a link to the folder: follow it (IN_DONT_FOLLOW is not given).
      switch add(root, mask: Self.directoryMask) {
      case .success(let wd): rootWatch = wd
      case .failure(let error) where Self.isLimit(error): break
      case .failure(let error): throw .systemCall("inotify_add_watch '\(root)'", error)
      }
      for directory in ChangeNotifiers.subdirectories(of: root, fileSystem: fileSystem) {
        add(directory, mask: Self.directoryMask | UInt32(IN_DONT_FOLLOW))
      }
    }

    public func watchForAppearance(of root: AbsolutePath) throws(ChangeNotifierError) {
      dropAll()
      self.root = root
      rootWatch = nil
      watchingAncestor = true
      let ancestor = ChangeNotifiers.nearestAncestor(of: root, fileSystem: fileSystem)
      if case .failure(let error) = add(ancestor, mask: Self.ancestorMask) {
        throw .systemCall("inotify_add_watch '\(ancestor)'", error)
      }
    }

    public func wait(timeout: Double?) throws(ChangeNotifierError) -> [ChangeEvent] {
      var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
      if let wake = wakeDescriptor {
        fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
      }
      let milliseconds =
        timeout.map { Int32(min(max($0, 0) * 1000, 86_400_000).rounded(.up)) } ?? -1
      let ready = poll(&fds, nfds_t(fds.count), milliseconds)
      if ready < 0 {
        if Errno.current == .interrupted { return [.woken] }
        throw .systemCall("poll", .current)
      }
      var events: [ChangeEvent] = []
      if fds.count > 1 && fds[1].revents != 0 { events.append(.woken) }
      if fds[0].revents != 0 { try drain(into: &events) }
      return events
    }

    /// Reads every queued inotify event. The corresponding C function is `read`.
    private func drain(into events: inout [ChangeEvent]) throws(ChangeNotifierError) {
      while true {
        let count = buffer.withUnsafeMutableBytes {
          Glibc.read(descriptor, $0.baseAddress, $0.count)
        }
        if count < 0 {
          let error = Errno.current
          if error == .interrupted { continue }
          if error == .wouldBlock { return }
          throw .systemCall("read inotify", error)
        }
        if count == 0 { return }
        decode(count, into: &events)
      }
    }

    /// Turns `count` bytes of `struct inotify_event` records into events.
    private func decode(_ count: Int, into events: inout [ChangeEvent]) {
      let header = MemoryLayout<inotify_event>.size
      var offset = 0
      while offset + header <= count {
        let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
          let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
          let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
          let length = raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
          return (wd, mask, Int(length))
        }
        let nameStart = offset + header
        let nameEnd = min(nameStart + length, count)
        var end = nameStart
        while end < nameEnd && buffer[end] != 0 { end += 1 }
        let name = String(decoding: buffer[nameStart..<end], as: UTF8.self)
        offset = nameStart + length
        handle(wd: wd, mask: mask, name: name, into: &events)
      }
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into events: inout [ChangeEvent]) {
      if mask & UInt32(IN_Q_OVERFLOW) != 0 {
        events.append(.overflow)
        return
      }
      if watchingAncestor {
        if mask & UInt32(IN_IGNORED) == 0 { events.append(.ancestorChanged) }
        return
      }
      let isRoot = wd == rootWatch
      if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
        if let path = paths[wd], mask & UInt32(IN_IGNORED) != 0 {
          paths[wd] = nil
          watches[path] = nil
        }
        if isRoot {
          rootWatch = nil
          events.append(.rootGone)
        }
        return
      }
      guard let directory = paths[wd], !name.isEmpty else { return }
      let path = directory.appending(name)
      let isDirectory = mask & UInt32(IN_ISDIR) != 0
      if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
        if isDirectory {
          forget(under: path)
        } else {
          events.append(.removed(path))
        }
      } else if isDirectory {
        if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
          add(path, mask: Self.directoryMask | UInt32(IN_DONT_FOLLOW))
          for below in ChangeNotifiers.subdirectories(of: path, fileSystem: fileSystem) {
            add(below, mask: Self.directoryMask | UInt32(IN_DONT_FOLLOW))
          }
          events.append(.directoryAdded(path))
        }
      } else {
        events.append(.changed(path))
      }
    }

    /// Whether a refused watch is the system's limit (then the directory is `unwatched`),
    /// not a directory that vanished or cannot be read.
    static func isLimit(_ error: Errno) -> Bool {
      error == .noSpace || error == Errno(rawValue: ENOMEM)
    }

    /// Adds a watch; a refusal for want of resources puts the path in `unwatched`. The
    /// corresponding C function is `inotify_add_watch`.
    @discardableResult
    private func add(_ path: AbsolutePath, mask: UInt32) -> Result<Int32, Errno> {
      let wd: Int32
      if let error = refuseWatch?(path) {
        wd = -1
        errno = error.rawValue
      } else {
        wd = inotify_add_watch(descriptor, path.string, mask)
      }
      guard wd >= 0 else {
        let error = Errno.current
        if Self.isLimit(error) && !watchingAncestor { refused.insert(path) }
        return .failure(error)
      }
      refused.remove(path)
      if let old = paths[wd], old != path { watches[old] = nil }
      paths[wd] = path
      watches[path] = wd
      return .success(wd)
    }

    /// Removes the watches of a directory that was renamed away and of everything below it
    /// (a removed directory's watches go by themselves, with `IN_IGNORED`).
    private func forget(under gone: AbsolutePath) {
      refused = refused.filter { !$0.isInside(gone) }
      for (watched, wd) in watches where watched.isInside(gone) {
        inotify_rm_watch(descriptor, wd)
        watches[watched] = nil
        paths[wd] = nil
      }
    }

    private func dropAll() {
      for wd in paths.keys { inotify_rm_watch(descriptor, wd) }
      paths.removeAll()
      watches.removeAll()
      refused.removeAll()
      rootWatch = nil
    }
  }
#endif
