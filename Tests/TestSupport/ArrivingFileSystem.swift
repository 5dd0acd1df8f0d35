import AutomergeCodec
import Foundation
import Platform

/// The steps of the replace protocol (mn.md §6) at which a sync client's version can
/// arrive, each as the file-system call that begins it.
enum ReplaceStep: String, CaseIterable, Sendable {
  /// Before the temporary is created.
  case beforeTemporary
  /// After the temporary is written and fsynced (before it is closed).
  case afterFsync
  /// Between the exchange and the examination of the displaced file.
  case afterExchange
  /// Right before a displaced file (a temporary) is removed.
  case beforeDisplacedRemoval
  /// Right before a conflict copy is removed (merge-conflicts).
  case beforeCopyRemoval

  /// The steps of a replace itself, without the copies.
  static let replace: [ReplaceStep] = [
    .beforeTemporary, .afterFsync, .afterExchange, .beforeDisplacedRemoval,
  ]

  func matches(_ operation: FaultyFileSystem.Operation, _ path: String, exchanged: Bool) -> Bool {
    switch self {
    case .beforeTemporary: operation == .createExclusive && path.contains(".mn-")
    case .afterFsync: operation == .close && path.contains(".mn-")
    case .afterExchange: operation == .syncDirectory && exchanged
    case .beforeDisplacedRemoval: operation == .removeFile && path.contains(".mn-")
    case .beforeCopyRemoval: operation == .removeFile && !path.contains(".mn-")
    }
  }
}

/// A file system on which a sync client renames a new version over `target` once, at
/// `step` (as Syncthing, Dropbox or iCloud do: its own file, then a rename).
final class ArrivingFileSystem: @unchecked Sendable {
  let faulty: FaultyFileSystem
  private var fired = false
  private var exchanged = false
  private let lock = NSLock()

  /// - Parameters:
  ///   - step: When the version arrives.
  ///   - target: The document it replaces.
  ///   - base: The file system underneath.
  ///   - version: The bytes to bring, asked for when the step comes (nil: none).
  init(
    step: ReplaceStep, target: String, base: any FileSystem = LiveFileSystem(),
    version: @escaping @Sendable () -> [UInt8]?
  ) {
    faulty = FaultyFileSystem(base: base, faults: [])
    let directory = (target as NSString).deletingLastPathComponent
    faulty.before = { [unowned self] operation, path in
      let fire: Bool = self.lock.withLock {
        if operation == .exchange { self.exchanged = true }
        // A version arrives only where the target's folder exists (a migration writes its
        // journal before it makes the document's folder).
        guard !self.fired, step.matches(operation, path, exchanged: self.exchanged),
          FileManager.default.fileExists(atPath: directory)
        else { return false }
        self.fired = true
        return true
      }
      if fire, let bytes = version() { try? SyncClient.renameOver(target, bytes) }
    }
  }

  /// Whether the step came, and the version arrived.
  var didFire: Bool { lock.withLock { fired } }
}

/// What a sync client does to a folder, for tests: it writes a file of its own and renames
/// it over the target.
enum SyncClient {
  static func renameOver(_ target: String, _ bytes: [UInt8]) throws {
    let directory = (target as NSString).deletingLastPathComponent
    let temporary = directory + "/.syncclient-\(UInt32.random(in: 0...UInt32.max)).tmp"
    try Data(bytes).write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, target) == 0 else { throw CocoaError(.fileWriteUnknown) }
  }

  /// A change by a new actor that sets `label`: a document on its own, and one more change
  /// when appended to another document's bytes.
  static func change(_ label: String) -> Change {
    Change(
      actors: [ActorId((0..<16).map { _ in UInt8.random(in: 0...255) })], seq: 1, startOp: 1,
      time: 0, message: nil, deps: [],
      ops: [Op(object: .root, key: .map(label), insert: false, action: .set, value: .string(label))]
    )
  }

  /// Another device's version of the document at `path`: what is there now (nothing when
  /// absent) plus a new change, which `arrived` records.
  static func newerVersion(of path: String, recording arrived: LockedBox<Set<ChangeHash>>)
    -> [UInt8]
  {
    let now = (try? LiveFileSystem().readFile(AbsolutePath(path), limit: 1 << 26)) ?? []
    let made = change("arrived")
    arrived.update { $0.insert(made.hash) }
    return now + made.chunk
  }
}

/// A value shared with `@Sendable` hooks.
final class LockedBox<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  init(_ value: Value) { self.value = value }
  @discardableResult func update<T>(_ body: (inout Value) -> T) -> T {
    lock.withLock { body(&value) }
  }
}
