// The Darwin change notifier: one FSEvents stream for the data folder (mn.md §12, §15).
//
// Built into Platform on Darwin. On Linux the DarwinCompileCheck target compiles this very
// file with `-D MN_DARWIN_SHIM` against DarwinShim (FSEventsShim.swift declares the
// CoreServices symbols), so that a type error here fails `make test`. What an event means is
// `FileEvents.events`, portable and tested; this file only moves events from the stream's
// queue to `wait`.
#if MN_DARWIN_SHIM
  import Platform
  import DarwinShim
  import Dispatch
  import Foundation
  import Glibc
#elseif canImport(Darwin)
  import CoreServices
  import Darwin
  import Dispatch
  import Foundation
#endif

#if MN_DARWIN_SHIM || canImport(Darwin)
  extension ChangeNotifiers {
    /// Darwin's notifier: one FSEvents stream.
    static func systemNotifier(fileSystem: any FileSystem, wakeDescriptor: Int32?)
      throws(ChangeNotifierError) -> any ChangeNotifier
    {
      try DarwinFSEvents(fileSystem: fileSystem, wakeDescriptor: wakeDescriptor)
    }
  }

  /// Change notifications through one FSEvents stream on the folder's root, with file-level
  /// events: no descriptor per file or directory (kqueue's would run into the open files
  /// limit), no walk of the tree (which would materialize dataless folders). Lost history
  /// (`MustScanSubDirs`, dropped events) is `.overflow`, a full rescan.
  ///
  /// The stream calls back on its own dispatch queue; the events wait in `Inbox`, and a byte
  /// on a pipe wakes `wait`, which polls that pipe and the wake descriptor.
  public final class DarwinFSEvents: ChangeNotifier {
    /// What the stream's callback fills and `wait` empties.
    final class Inbox: @unchecked Sendable {
      let lock = NSLock()
      var root = AbsolutePath.root
      /// When watching for the root's appearance: any event is `.ancestorChanged`.
      var ancestorOnly = false
      var events: [ChangeEvent] = []
      let signal: Int32

      init(signal: Int32) { self.signal = signal }

      func take(_ new: [ChangeEvent]) {
        guard !new.isEmpty else { return }
        lock.lock()
        events += new
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(signal, &byte, 1)
      }

      func drain() -> [ChangeEvent] {
        lock.lock()
        defer { lock.unlock() }
        let taken = events
        events = []
        return taken
      }
    }

    private let fileSystem: any FileSystem
    private let wakeDescriptor: Int32?
    private let pipeRead: Int32
    private let pipeWrite: Int32
    private let inbox: Inbox
    private let queue = DispatchQueue(label: "mn.watch.fsevents")
    private var stream: FSEventStreamRef?

    /// The stream's callback: each path and its flags through `FileEvents.events`.
    private static let callback: FSEventStreamCallback = { _, info, count, paths, flags, _ in
      guard let info else { return }
      let inbox = Unmanaged<Inbox>.fromOpaque(info).takeUnretainedValue()
      let names = paths.assumingMemoryBound(to: UnsafePointer<CChar>.self)
      var events: [ChangeEvent] = []
      for k in 0..<count {
        if inbox.ancestorOnly {
          events.append(.ancestorChanged)
          break
        }
        events += FileEvents.events(
          path: AbsolutePath(String(cString: names[k])), flags: flags[k], root: inbox.root)
      }
      inbox.take(events)
    }

    public init(fileSystem: any FileSystem, wakeDescriptor: Int32?) throws(ChangeNotifierError) {
      var ends: [Int32] = [0, 0]
      guard pipe(&ends) == 0 else { throw .systemCall("pipe", .current) }
      _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
      _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
      pipeRead = ends[0]
      pipeWrite = ends[1]
      inbox = Inbox(signal: ends[1])
      self.fileSystem = fileSystem
      self.wakeDescriptor = wakeDescriptor
    }

    deinit {
      stop()
      close(pipeRead)
      close(pipeWrite)
    }

    public func watchTree(root: AbsolutePath) throws(ChangeNotifierError) {
      try start(watching: root, root: root, ancestorOnly: false)
    }

    public func watchForAppearance(of root: AbsolutePath) throws(ChangeNotifierError) {
      try start(
        watching: ChangeNotifiers.nearestAncestor(of: root, fileSystem: fileSystem),
        root: root, ancestorOnly: true)
    }

    public func wait(timeout: Double?) throws(ChangeNotifierError) -> [ChangeEvent] {
      var descriptors = [pollfd(fd: pipeRead, events: Int16(POLLIN), revents: 0)]
      if let wake = wakeDescriptor {
        descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
      }
      let milliseconds = timeout.map { Int32(min(max($0, 0) * 1000, Double(Int32.max))) } ?? -1
      let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
      if ready < 0 {
        if Errno.current == .interrupted { return [.woken] }
        throw .systemCall("poll", .current)
      }
      var byte: UInt8 = 0
      while read(pipeRead, &byte, 1) > 0 {}
      var events = inbox.drain()
      if descriptors.count > 1, descriptors[1].revents != 0 { events.append(.woken) }
      return events
    }

    /// One stream on `path`, replacing the one running.
    private func start(watching path: AbsolutePath, root: AbsolutePath, ancestorOnly: Bool)
      throws(ChangeNotifierError)
    {
      stop()
      inbox.lock.lock()
      inbox.root = root
      inbox.ancestorOnly = ancestorOnly
      inbox.lock.unlock()
      var context = FSEventStreamContext(
        version: 0, info: Unmanaged.passUnretained(inbox).toOpaque(), retain: nil,
        release: nil, copyDescription: nil)
      guard
        let created = FSEventStreamCreate(
          nil, Self.callback, &context, [path.string as CFString] as CFArray,
          FSEventStreamEventId(kFSEventStreamEventIdSinceNow), 0.2,
          FSEventStreamCreateFlags(FileEvents.streamFlags))
      else { throw .systemCall("FSEventStreamCreate '\(path)'", .current) }
      FSEventStreamSetDispatchQueue(created, queue)
      guard FSEventStreamStart(created) else {
        FSEventStreamInvalidate(created)
        FSEventStreamRelease(created)
        throw .systemCall("FSEventStreamStart '\(path)'", .current)
      }
      stream = created
    }

    private func stop() {
      guard let stream else { return }
      FSEventStreamStop(stream)
      FSEventStreamInvalidate(stream)
      FSEventStreamRelease(stream)
      self.stream = nil
    }
  }
#endif
