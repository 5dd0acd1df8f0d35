#if canImport(Darwin)
  import Darwin

  /// Change notifications through kqueue on Darwin: an `EVFILT_VNODE` watch on every
  /// directory of the folder and on every regular file in it (`O_EVTONLY`, so a watch never
  /// keeps a volume from unmounting). A directory's event means "look at it again": its new
  /// entries are watched and it is reported as `.directoryChanged`. Thin on purpose: the
  /// decisions are `WatchState`'s, tested on Linux.
  public final class DarwinKqueue: ChangeNotifier {
    private let fileSystem: any FileSystem
    private let wakeDescriptor: Int32?
    private let queue: Int32
    /// Each watched path's descriptor, and back; which of them are directories.
    private var descriptors: [String: Int32] = [:]
    private var paths: [Int32: String] = [:]
    private var directories: Set<String> = []
    private var root: String?
    private var watchingAncestor = false

    public init(fileSystem: any FileSystem, wakeDescriptor: Int32?) throws(ChangeNotifierError) {
      let kq = kqueue()
      guard kq >= 0 else { throw .systemCall("kqueue", .current) }
      self.fileSystem = fileSystem
      self.wakeDescriptor = wakeDescriptor
      self.queue = kq
      if let wake = wakeDescriptor {
        var change = kevent(
          ident: UInt(wake), filter: Int16(EVFILT_READ), flags: UInt16(EV_ADD), fflags: 0,
          data: 0, udata: nil)
        _ = kevent(kq, &change, 1, nil, 0, nil)
      }
    }

    deinit {
      dropAll()
      Darwin.close(queue)
    }

    public func watchTree(root: String) throws(ChangeNotifierError) {
      dropAll()
      watchingAncestor = false
      self.root = root
      guard add(root, directory: true) else { throw .systemCall("open '\(root)'", .current) }
      addEntries(of: root)
      for directory in ChangeNotifiers.subdirectories(of: root, fileSystem: fileSystem) {
        _ = add(directory, directory: true)
        addEntries(of: directory)
      }
    }

    public func watchForAppearance(of root: String) throws(ChangeNotifierError) {
      dropAll()
      self.root = root
      watchingAncestor = true
      let ancestor = ChangeNotifiers.nearestAncestor(of: root, fileSystem: fileSystem)
      guard add(ancestor, directory: true) else {
        throw .systemCall("open '\(ancestor)'", .current)
      }
    }

    public func wait(timeout: Double?) throws(ChangeNotifierError) -> [ChangeEvent] {
      var received = [kevent](repeating: kevent(), count: 64)
      var spec = timespec()
      if let timeout {
        let t = max(timeout, 0)
        spec = timespec(tv_sec: Int(t), tv_nsec: Int((t - t.rounded(.down)) * 1e9))
      }
      let count =
        timeout == nil
        ? kevent(queue, nil, 0, &received, Int32(received.count), nil)
        : kevent(queue, nil, 0, &received, Int32(received.count), &spec)
      if count < 0 {
        if Errno.current == .interrupted { return [.woken] }
        throw .systemCall("kevent", .current)
      }
      var events: [ChangeEvent] = []
      for event in received.prefix(Int(count)) {
        let fd = Int32(event.ident)
        if fd == wakeDescriptor {
          events.append(.woken)
          continue
        }
        if watchingAncestor {
          events.append(.ancestorChanged)
          continue
        }
        guard let path = paths[fd] else { continue }
        let gone = event.fflags & UInt32(NOTE_DELETE | NOTE_RENAME | NOTE_REVOKE) != 0
        if path == root && gone {
          events.append(.rootGone)
        } else if directories.contains(path) {
          if gone {
            remove(path)
          } else {
            addEntries(of: path)
            events.append(.directoryChanged(path))
          }
        } else if gone {
          remove(path)
          events.append(.removed(path))
        } else {
          events.append(.changed(path))
        }
      }
      return events
    }

    /// Watches the entries of `directory` that are not watched yet.
    private func addEntries(of directory: String) {
      guard
        let entries = try? fileSystem.directoryItemsWithKinds(directory)
      else { return }
      for entry in entries {
        let path = AbsolutePath(directory).appending(entry.name).string
        guard descriptors[path] == nil else { continue }
        if entry.kind == .directory {
          if add(path, directory: true) { addEntries(of: path) }
        } else if entry.kind == .regular {
          _ = add(path, directory: false)
        }
      }
    }

    /// Opens `path` for events only and registers it. The corresponding C functions are
    /// `open(O_EVTONLY)` and `kevent(EV_ADD | EV_CLEAR)`.
    private func add(_ path: String, directory: Bool) -> Bool {
      let fd = open(path, O_EVTONLY | O_CLOEXEC)
      guard fd >= 0 else { return false }
      let notes = NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB | NOTE_DELETE | NOTE_RENAME | NOTE_REVOKE
      var change = kevent(
        ident: UInt(fd), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR),
        fflags: UInt32(notes), data: 0, udata: nil)
      guard kevent(queue, &change, 1, nil, 0, nil) >= 0 else {
        Darwin.close(fd)
        return false
      }
      descriptors[path] = fd
      paths[fd] = path
      if directory { directories.insert(path) }
      return true
    }

    private func remove(_ path: String) {
      guard let fd = descriptors[path] else { return }
      Darwin.close(fd)
      descriptors[path] = nil
      paths[fd] = nil
      directories.remove(path)
    }

    private func dropAll() {
      for fd in paths.keys { Darwin.close(fd) }
      descriptors.removeAll()
      paths.removeAll()
      directories.removeAll()
    }
  }
#endif
