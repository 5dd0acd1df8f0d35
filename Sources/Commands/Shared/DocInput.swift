import AutomergeCodec
import Platform
import Storage

/// One Automerge file named on the command line (`doc`, `diff`): where it came from and its
/// bytes.
struct DocInput {
  var displayName: String
  var bytes: [UInt8]

  /// The largest file `doc` reads.
  static let limit = 1 << 31

  /// Reads `argument`: `-` is standard input; a path that does not exist is tried as a
  /// logical name inside the data folder, when one is found.
  static func read(_ argument: String, _ call: Invocation, _ env: Environment) throws -> DocInput {
    if argument == "-" { return DocInput(displayName: "-", bytes: try env.readStandardInput()) }
    let fs = env.fileSystem
    var path = AbsolutePath(normalizing: argument, relativeTo: env.currentDirectory)
    if try fs.info(path) == nil, !argument.hasPrefix("/") {
      let found = env.discover(root: call.global.root)
      if let root = found.root, try fs.info(root.appending(argument)) != nil {
        path = AbsolutePath(normalizing: argument, relativeTo: root)
      }
    }
    do {
      return DocInput(displayName: argument, bytes: try fs.readFile(path, limit: limit))
    } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {
      throw CommandError.noSuchFile(argument)
    }
  }

  /// Reads and decodes `argument` (the changes' chunks are not kept: no `doc` verb prints
  /// them).
  static func decode(
    _ argument: String, _ call: Invocation, _ env: Environment, keepOps: Bool = false
  ) throws -> (DocInput, AutomergeFile) {
    let input = try read(argument, call, env)
    return (
      input,
      try decoding(input) {
        try AutomergeFile.decode(input.bytes, keepOps: keepOps, keepChunks: false)
      }
    )
  }

  /// Runs a decode of `input`, its errors reported as an invalid file.
  static func decoding<T>(_ input: DocInput, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw CommandError.notAutomerge(name: input.displayName, error)
    }
  }
}
