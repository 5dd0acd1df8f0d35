import Foundation

@testable import AutomergeCodec
@testable import Platform

/// A writer that behaves like the Minuta app on one device: under the folder's write lock,
/// it loads a document (with its own last save, its memory, merged in), makes ONE change,
/// and puts the new file in place by an atomic rename.
///
/// It is `../shared/tools/am-oracle edit … --lock` (the real Automerge) when that is there,
/// else a writer of its own on the codec's encoder, so that RealSyncTests run without
/// `../shared`. Each returns the new change's hash.
struct AppWriter {
  /// The real Automerge's app-like writer, when `../shared/tools` is there.
  static let oracle: String? = {
    let path = Sandbox.packageRoot.deletingLastPathComponent()
      .appendingPathComponent("shared/tools/am-oracle").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }()

  /// The data folder this writer writes.
  let root: String
  /// Its actor, hex.
  let actor: String
  /// Where it keeps its memory (outside the synced folder).
  let stateDirectory: String
  /// Whether to use `am-oracle` when it is there (false: the codec's writer always).
  var usesOracle = true

  /// Makes one change to `document` (a logical name) putting `key`; `seq` numbers the edit.
  func edit(_ document: String, key: String, seq: Int) throws -> ChangeHash {
    let file = root + "/" + document
    let state = stateDirectory + "/" + actor + "-" + document.replacing("/", with: "_")
    try FileManager.default.createDirectory(
      atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    if usesOracle, let oracle = Self.oracle {
      let (status, output) = try tool(
        oracle,
        [
          "edit", file, "--actor", actor, "--key", key, "--seq", String(seq), "--lock",
          root + "/" + FileLock.fileName, "--state", state,
        ])
      let hex = output.trimmingCharacters(in: .whitespacesAndNewlines)
      guard status == 0, let hash = ChangeHash(hex: hex) else {
        throw CocoaError(.fileWriteUnknown, userInfo: ["am-oracle": "\(status) \(hex)"])
      }
      return hash
    }
    return try ownEdit(file, state: state, key: key, seq: seq)
  }

  /// The codec's writer: the file (and its memory) merged, one change appended, renamed over.
  func ownEdit(_ file: String, state: String, key: String, seq: Int) throws -> ChangeHash {
    let lock = try FileLock.acquire(
      root: AbsolutePath(root), timeout: 60, fileSystem: LiveFileSystem(),
      sleep: { usleep(UInt32($0 * 1e6)) })
    defer { lock.release() }
    let current = FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
    let memory = FileManager.default.contents(atPath: state).map { [UInt8]($0) } ?? []
    let base = try AutomergeMerge.merge([current, memory]).bytes
    let document = try AutomergeFile.decode(base)
    let me = ActorId(hex: actor)
    let mine = document.changes.filter { $0.actors[0] == me }
    let change = Change(
      actors: [me], seq: (mine.map(\.seq).max() ?? 0) + 1,
      startOp: (document.changes.map(\.maxOp).max() ?? 0) + 1, time: Int64(seq),
      message: "edit \(key) #\(seq)", deps: document.heads,
      ops: [
        Op(object: .root, key: .map(key), insert: false, action: .set, value: .string("v\(seq)"))
      ])
    let bytes = Data(base + change.chunk)
    let name = (file as NSString).lastPathComponent
    let temporary = (file as NSString).deletingLastPathComponent + "/.\(name).writer.nosync"
    try bytes.write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, file) == 0 else { throw POSIXError(.EIO) }
    try bytes.write(to: URL(fileURLWithPath: state))
    return change.hash
  }
}

/// Runs a program (an absolute path) and returns its exit status and standard output; its
/// standard error goes to the test's.
func tool(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws
  -> (status: Int32, output: String)
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardInput = FileHandle.nullDevice
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

extension ActorId {
  /// An actor from its hex form (an even number of hex digits).
  init(hex: String) {
    let digits = Array(hex.utf8)
    self.init(
      stride(from: 0, to: digits.count - 1, by: 2).map {
        UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) ?? 0
      })
  }
}

extension ChangeHash {
  /// A hash from its 64 hex digits; nil for anything else.
  init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 64 else { return nil }
    var bytes: [UInt8] = []
    for i in stride(from: 0, to: 64, by: 2) {
      guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else {
        return nil
      }
      bytes.append(byte)
    }
    self.init(bytes)
  }
}
