import AutomergeCodec
import Platform
import Storage
import Threads

/// The changes of a data folder's documents, for `mn log` (mn.md §9): read from each file's
/// change metadata, never materialized.
///
/// Each document's canonical file gives its changes; each conflict copy gives the changes
/// that neither the document nor an earlier copy has (what `merge-conflicts` would add),
/// marked with the copy. Files that cannot be read are reported in `problems`, the others
/// listed.
public enum FolderLog {
  /// One change of the folder.
  public struct Entry: Sendable {
    /// The document's logical name (`records/2026/09.automerge`).
    public var document: String
    /// The conflict copy (logical name) this change is only in; nil when the document has it.
    public var copy: String?
    /// The change's metadata (its ops are not kept).
    public var change: Change
    /// The change's number of ops.
    public var ops: Int

    public init(document: String, copy: String?, change: Change, ops: Int) {
      self.document = document
      self.copy = copy
      self.change = change
      self.ops = ops
    }
  }

  /// A file that was not listed, and why.
  public struct Problem: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
      case notDownloaded
      case cannotRead(FileSystemError)
      case notAutomerge(AutomergeDecodeError)
    }
    /// The file's logical name.
    public var file: String
    public var reason: Reason
  }

  /// The listing: every change (in no particular order) and the files not read.
  public struct Listing: Sendable {
    public var entries: [Entry]
    public var problems: [Problem]
  }

  /// Reads the changes of `documents` and of their conflict copies.
  ///
  /// The files are read in order on the calling thread and decoded on up to `threads`
  /// threads (`OrderedWork`); the listing is the same for any number.
  ///
  /// - Parameters:
  ///   - documents: entries of a folder scan (`FolderListing.select`).
  ///   - root: the data folder.
  ///   - fileSystem: where to read.
  ///   - threads: how many files are decoded at once (the processors, for a live run).
  /// - Returns: the changes and the files that could not be read.
  public static func read(
    _ documents: [DocumentEntry], root: AbsolutePath, fileSystem: any FileSystem,
    threads: Int = 1
  )
    -> Listing
  {
    // Each document's file, then its copies (a copy adds what neither the document nor an
    // earlier copy has); a placeholder is listed where it stands, as not downloaded.
    var files: [(document: Int, copy: ConflictCopy?)] = []
    for (d, document) in documents.enumerated() {
      if document.state != .copiesOnly { files.append((d, nil)) }
      for copy in document.copies { files.append((d, copy)) }
    }
    var listing = Listing(entries: [], problems: [])
    var held = Set<ChangeHash>()
    var heldFor: Int?
    OrderedWork.run(
      count: files.count, width: threads,
      produce: { i -> FileStep in
        let (d, copy) = files[i]
        let document = documents[d]
        if copy?.placeholder != nil || (copy == nil && document.state == .placeholder) {
          return .failed(.notDownloaded)
        }
        let path = copy?.path ?? document.name.path(root: root)
        do {
          return .read(try fileSystem.readFile(path, limit: DocumentName.maxFileSize), path)
        } catch let error as FileSystemError {
          return .failed(error.meansNotDownloaded ? .notDownloaded : .cannotRead(error))
        } catch {
          return .failed(.cannotRead(FileSystemError("read", path, .ioError)))
        }
      },
      transform: { $0.decoded() },
      consume: { i, step in
        let (d, copy) = files[i]
        let document = documents[d]
        if heldFor != d { (held, heldFor) = ([], d) }
        switch step {
        case .failed(let reason):
          listing.problems.append(
            Problem(file: copy?.logicalName ?? document.logicalName, reason: reason))
        case .decoded(let file):
          for entry in DocumentDiff.entries(of: file, where: { !held.contains($0.hash) }) {
            held.insert(entry.change.hash)
            listing.entries.append(
              Entry(
                document: document.logicalName, copy: copy?.logicalName, change: entry.change,
                ops: entry.ops))
          }
        case .read: break  // every read is decoded
        }
      })
    return listing
  }

  /// `entries` newest first by change time; equal times by document, then author, then
  /// seq, newest first (a stable order for scripts and tests).
  ///
  /// The entries are large values: they are ordered by small keys (the documents and
  /// authors ranked once), then moved into place, never copied while sorting.
  public static func newestFirst(_ entries: [Entry]) -> [Entry] {
    let documents = Set(entries.map(\.document)).sorted { $0.precedesByBytes($1) }
    let authors = Set(entries.map(\.change.author)).sorted()
    var documentRank: [String: Int] = [:]
    for (i, d) in documents.enumerated() { documentRank[d] = i }
    var authorRank: [ActorId: Int] = [:]
    for (i, a) in authors.enumerated() { authorRank[a] = i }
    struct Key {
      var time: Int64
      var document: Int
      var author: Int
      var seq: UInt64
      var index: Int
    }
    var keys = entries.enumerated().map { i, e in
      Key(
        time: e.change.time, document: documentRank[e.document] ?? 0,
        author: authorRank[e.change.author] ?? 0, seq: e.change.seq, index: i)
    }
    keys.sort {
      if $0.time != $1.time { return $0.time > $1.time }
      if $0.document != $1.document { return $0.document < $1.document }
      if $0.author != $1.author { return $0.author < $1.author }
      return $0.seq > $1.seq
    }
    return keys.map { entries[$0.index] }
  }

  /// The shortest prefix length (in hex digits, at least `minimum`) that tells every actor
  /// of `actors` apart, as git shortens hashes; an actor that is a prefix of another is
  /// shown whole.
  public static func shortActorLength(_ actors: Set<ActorId>, minimum: Int = 7) -> Int {
    let hex = actors.map(\.description).sorted()
    var length = minimum
    for (a, b) in zip(hex, hex.dropFirst()) {
      let common = zip(a, b).prefix { $0 == $1 }.count
      length = max(length, common + 1)
    }
    return length
  }

  /// One file on its way through `read`: its bytes (and path), then its decoding, or why not.
  private enum FileStep: Sendable {
    case read([UInt8], AbsolutePath)
    case decoded(AutomergeFile)
    case failed(Problem.Reason)

    /// The bytes decoded (metadata kept, ops and chunks not); any other step as it is.
    func decoded() -> FileStep {
      guard case .read(let bytes, let path) = self else { return self }
      do {
        return .decoded(try AutomergeFile.decode(bytes, keepOps: false, keepChunks: false))
      } catch let error as AutomergeDecodeError {
        return .failed(.notAutomerge(error))
      } catch {
        return .failed(.cannotRead(FileSystemError("read", path, .ioError)))
      }
    }
  }
}
