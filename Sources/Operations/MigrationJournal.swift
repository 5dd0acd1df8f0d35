import AutomergeCodec
import Platform
import Storage

/// The record of a migration in progress: `.mn-migrate.journal.nosync` in the destination.
///
/// Written atomically (under the destination's lock) before the first step and after each
/// one, removed when the migration is finished. It names the source, so that a plain
/// `mn migrate` after an interruption resumes the same migration even when it was started
/// with `--from`; and it lists the documents, so that the finish (removing emptied source
/// directories, updating the pointer file) happens even when every document was already
/// moved. It is advice, not truth: a rerun plans again from what is on disk, and an
/// unreadable journal is ignored. The `.nosync` suffix keeps it local (never synced, never
/// listed or exported).
///
/// The format is one JSON object:
/// `{"tool": "mn", "format": 1, "source": …, "destination": …, "keepSource": …,
///   "steps": [{"name": …, "action": "move|merge|same|copy", "done": …}]}`.
public struct MigrationJournal: Sendable, Equatable {
  /// The journal's file name in the destination root.
  public static let fileName = ".mn-migrate.journal.nosync"

  /// One step: a document or file, what is done to it, and whether it is done.
  public struct Step: Sendable, Equatable {
    /// The logical name.
    public var name: String
    /// `move`, `merge`, `same` (documents) or `copy` (other files).
    public var action: String
    public var done: Bool

    public init(name: String, action: String, done: Bool = false) {
      self.name = name
      self.action = action
      self.done = done
    }
  }

  /// The source root.
  public var source: AbsolutePath
  /// The destination root.
  public var destination: AbsolutePath
  public var keepSource: Bool
  public var steps: [Step]

  public init(
    source: AbsolutePath, destination: AbsolutePath, keepSource: Bool, steps: [Step]
  ) {
    self.source = source
    self.destination = destination
    self.keepSource = keepSource
    self.steps = steps
  }

  /// The journal's path in the destination root.
  public static func path(destination: AbsolutePath) -> AbsolutePath {
    destination.appending(fileName)
  }

  /// The journal as bytes (JSON, one line per step for a human reading it).
  public func encoded() -> [UInt8] {
    let value = JSONValue.object([
      ("tool", .string("mn")), ("format", .int(1)), ("source", .string(source.string)),
      ("destination", .string(destination.string)), ("keepSource", .bool(keepSource)),
      (
        "steps",
        .array(
          steps.map {
            .object([
              ("name", .string($0.name)), ("action", .string($0.action)), ("done", .bool($0.done)),
            ])
          })
      ),
    ])
    return JSONWriter.document(value)
  }

  /// Parses a journal; nil when the bytes are not one.
  public static func decode(_ bytes: [UInt8]) -> MigrationJournal? {
    guard let value = try? JSONParser.parse(bytes), value["tool"]?.stringValue == "mn",
      value["format"]?.int64Value == 1, let source = value["source"]?.stringValue,
      let destination = value["destination"]?.stringValue, source.hasPrefix("/"),
      case .bool(let keepSource)? = value["keepSource"], let items = value["steps"]?.arrayValue
    else { return nil }
    var steps: [Step] = []
    for item in items {
      guard let name = item["name"]?.stringValue, let action = item["action"]?.stringValue,
        case .bool(let done)? = item["done"]
      else { return nil }
      steps.append(Step(name: name, action: action, done: done))
    }
    return MigrationJournal(
      source: AbsolutePath(source), destination: AbsolutePath(destination),
      keepSource: keepSource, steps: steps)
  }

  /// What `read` found.
  public enum Lookup: Sendable, Equatable {
    case none
    case found(MigrationJournal)
    /// A journal exists but cannot be read or parsed; the text says why.
    case unreadable(String)
  }

  /// Reads the journal of `destination`.
  ///
  /// - Returns: `.none` when there is none; `.unreadable` when one exists but cannot be
  ///   read or parsed (the caller warns and goes on: the journal is advice).
  public static func read(destination: AbsolutePath, fileSystem: any FileSystem) -> Lookup {
    let path = path(destination: destination)
    do {
      guard try fileSystem.info(path) != nil else { return .none }
      guard let journal = decode(try fileSystem.readFile(path, limit: 16 << 20))
      else {
        return .unreadable("'\(path)' is not a migration journal")
      }
      return .found(journal)
    } catch {
      return .unreadable("\(error)")
    }
  }

  /// Writes the journal atomically into `destination`.
  public func write(fileSystem: any FileSystem) throws {
    try AtomicFile.write(
      encoded(), to: MigrationJournal.path(destination: destination),
      fileSystem: fileSystem, permissions: 0o600)
  }

  /// Removes the journal of `destination`; a missing one is fine.
  public static func remove(destination: AbsolutePath, fileSystem: any FileSystem) throws {
    do {
      try fileSystem.removeFile(path(destination: destination))
    } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {}
  }
}
