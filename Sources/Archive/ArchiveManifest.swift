import AutomergeCodec

/// The manifest `Minuta/.mn-manifest.json` that `mn export` writes into every archive
/// (mn.md §8): which files the archive holds, with their sizes and SHA-256 digests, plus
/// the documents' change counts and heads, and the placeholders it is missing.
public struct ArchiveManifest: Sendable, Equatable {
  /// The manifest's entry name under the top folder.
  public static let entryName = ".mn-manifest.json"

  /// What a listed file is.
  public enum Kind: String, Sendable, Equatable {
    /// An Automerge document (`tags.automerge`, `records/YYYY/MM.automerge`).
    case document
    /// Any other file in the data folder.
    case other
    /// A file that was not downloaded: listed, but absent from the archive.
    case placeholder
  }

  /// One listed file.
  public struct File: Sendable, Equatable {
    /// The path relative to the top folder, `/`-separated.
    public var path: String
    public var kind: Kind
    /// The size in bytes; nil for a placeholder.
    public var size: Int64?
    /// The SHA-256 digest, 64 lowercase hex digits; nil for a placeholder.
    public var sha256: String?
    /// For documents: the number of changes; nil when unknown.
    public var changes: Int?
    /// For documents: the head hashes, hex; nil when unknown.
    public var heads: [String]?

    public init(
      path: String, kind: Kind, size: Int64? = nil, sha256: String? = nil, changes: Int? = nil,
      heads: [String]? = nil
    ) {
      self.path = path
      self.kind = kind
      self.size = size
      self.sha256 = sha256
      self.changes = changes
      self.heads = heads
    }
  }

  /// Always "mn" when written by mn.
  public var tool: String
  /// The version of the tool that wrote it.
  public var version: String
  /// When it was written, ISO 8601 UTC (`2026-09-06T15:45:12Z`).
  public var created: String
  /// The data folder it was written from, absolute.
  public var source: String
  /// The files, sorted by path (byte order).
  public var files: [File]

  public init(tool: String = "mn", version: String, created: String, source: String, files: [File])
  {
    self.tool = tool
    self.version = version
    self.created = created
    self.source = source
    self.files = files
  }

  /// The manifest as a JSON value, fields in the order of mn.md §8.
  public var json: JSONValue {
    let list: [JSONValue] = files.map { file in
      var members: [(String, JSONValue)] = [("path", .string(file.path))]
      if let size = file.size { members.append(("size", .int(size))) }
      if let sha = file.sha256 { members.append(("sha256", .string(sha))) }
      members.append(("kind", .string(file.kind.rawValue)))
      if let changes = file.changes { members.append(("changes", .int(Int64(changes)))) }
      if let heads = file.heads { members.append(("heads", .array(heads.map { .string($0) }))) }
      return .object(members)
    }
    return .object([
      ("tool", .string(tool)), ("version", .string(version)), ("created", .string(created)),
      ("source", .string(source)), ("files", .array(list)),
    ])
  }

  /// The manifest's bytes as written into an archive: indented JSON and a final newline.
  public var encoded: [UInt8] { JSONWriter.document(json) }

  /// Parses a manifest.
  ///
  /// - Throws: `ArchiveError.invalidManifest` when the bytes are not a JSON object with the
  ///   required fields, a listed path is repeated, or a file lacks its size or digest.
  public static func parse(_ bytes: [UInt8]) throws(ArchiveError) -> ArchiveManifest {
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes, maxDepth: 16)
    } catch {
      throw .invalidManifest(reason: error.description)
    }
    guard case .object = value else { throw .invalidManifest(reason: "not a JSON object") }
    func string(_ key: String, in object: JSONValue) throws(ArchiveError) -> String {
      guard let text = object[key]?.stringValue else {
        throw .invalidManifest(reason: "missing or non-string '\(key)'")
      }
      return text
    }
    let tool = try string("tool", in: value)
    let version = try string("version", in: value)
    let created = try string("created", in: value)
    let source = try string("source", in: value)
    guard let list = value["files"]?.arrayValue else {
      throw .invalidManifest(reason: "missing or non-array 'files'")
    }
    var files: [File] = []
    var seen = Set<String>()
    for item in list {
      guard case .object = item else { throw .invalidManifest(reason: "a file is not an object") }
      let path = try string("path", in: item)
      guard let kind = Kind(rawValue: try string("kind", in: item)) else {
        throw .invalidManifest(reason: "unknown kind for '\(path)'")
      }
      guard seen.insert(path).inserted else {
        throw .invalidManifest(reason: "'\(path)' is listed twice")
      }
      var file = File(path: path, kind: kind)
      if kind != .placeholder {
        guard let size = item["size"]?.int64Value, size >= 0 else {
          throw .invalidManifest(reason: "missing or invalid 'size' for '\(path)'")
        }
        let sha = try string("sha256", in: item)
        guard sha.utf8.count == 64, Hex.decode(sha) != nil else {
          throw .invalidManifest(reason: "invalid 'sha256' for '\(path)'")
        }
        file.size = size
        file.sha256 = sha.lowercased()
      }
      if let changes = item["changes"] {
        guard let count = changes.int64Value, count >= 0, count <= Int64(Int32.max) else {
          throw .invalidManifest(reason: "invalid 'changes' for '\(path)'")
        }
        file.changes = Int(count)
      }
      if let heads = item["heads"] {
        guard let array = heads.arrayValue else {
          throw .invalidManifest(reason: "invalid 'heads' for '\(path)'")
        }
        var out: [String] = []
        for head in array {
          guard let text = head.stringValue else {
            throw .invalidManifest(reason: "invalid 'heads' for '\(path)'")
          }
          out.append(text)
        }
        file.heads = out
      }
      files.append(file)
    }
    return ArchiveManifest(
      tool: tool, version: version, created: created, source: source, files: files)
  }
}
