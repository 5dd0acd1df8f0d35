import AutomergeCodec
import Platform
import Storage

/// Document reads and writes that hold while a sync client changes the same files (mn.md §6):
/// `Replace.replace` with Automerge's merge, and a read that tells a file being replaced
/// from a damaged one.
public enum DocumentReplace {
  /// How many times a read is tried again when the file changed while it was read.
  static let readAttempts = 4

  /// Automerge's merge and containment for the replace primitive.
  ///
  /// An arrival that cannot be merged (it does not decode, or it collides) is kept beside
  /// the target as `NAME N.EXT` (N from 2), a copy's name that `ls` lists and that
  /// `merge-conflicts` reports and `repair` reads.
  public static let merger = ReplaceMerger(
    merge: { content, arrived in try DocumentTools.merge(existing: content, incoming: arrived) },
    holdsAll: { holder, version in
      guard let holder = try? AutomergeFile.decode(holder, keepOps: false),
        let version = try? AutomergeFile.decode(version, keepOps: false)
      else { return false }
      return version.changes.allSatisfy { holder.contains($0.hash) }
    },
    asideName: { name, attempt in
      let dot = name.lastIndex(of: ".") ?? name.endIndex
      return "\(name[..<dot]) \(attempt + 2)\(name[dot...])"
    })

  /// Replaces the document at `path` with `content` computed from `basis`, merging any
  /// version that arrived meanwhile (`Replace.replace` with `merger`). In an iCloud Drive
  /// or File Provider folder the whole replace runs inside one coordinated `.replacing`
  /// write (mn.md §6, §15).
  public static func replace(
    _ path: AbsolutePath, with content: [UInt8], basis: ReplaceBasis,
    fileSystem: any FileSystem, permissions: FilePermissions = 0o644,
    random: () -> String = AtomicFile.randomSuffix
  ) throws -> ReplaceOutcome {
    try CoordinatedFileSystem.run(.replacing, path, on: fileSystem) {
      try Replace.replace(
        path, with: content, basis: basis, merger: merger, fileSystem: fileSystem,
        permissions: permissions, random: random)
    }
  }

  /// A document as read: its `lstat` information before the read, its bytes, its decode.
  public struct Read: Sendable {
    public var info: FileInfo
    public var bytes: [UInt8]
    public var file: AutomergeFile

    /// The basis of a replace computed from this read.
    public var basis: ReplaceBasis { ReplaceBasis(info: info, bytes: bytes) }
  }

  /// Why `read` gave no document.
  public enum ReadFailure: Error, Sendable {
    /// Nothing at the path.
    case absent
    /// A link, a directory or another kind of file.
    case notRegularFile(FileKind)
    /// The file is not downloaded: reading it gave `EDEADLK` (a dataless file read with
    /// materialization off, mn.md §15). Callers report it as not downloaded, never as an I/O
    /// error or damage.
    case notDownloaded(FileSystemError)
    /// The file could not be read.
    case cannotRead(FileSystemError)
    /// The bytes, which did not change while they were read, are not a valid document.
    case notAutomerge(AutomergeDecodeError)
  }

  /// Reads and decodes the document at `path`. A read that does not decode because the file
  /// changed while it was read (its `lstat` before and after differ, or the bytes are not
  /// its size) is tried again, not reported as damage.
  ///
  /// - Parameters:
  ///   - path: The document.
  ///   - fileSystem: Where to read.
  ///   - known: A decode of earlier bytes, reused when the bytes are the same.
  /// - Returns: The read, or why there is none.
  public static func read(
    _ path: AbsolutePath, fileSystem: any FileSystem,
    known: (bytes: [UInt8], file: AutomergeFile)? = nil
  ) -> Result<Read, ReadFailure> {
    var attempt = 0
    while true {
      attempt += 1
      let before: FileInfo
      let bytes: [UInt8]
      do {
        guard let info = try fileSystem.info(path) else { return .failure(.absent) }
        guard info.kind == .regular else { return .failure(.notRegularFile(info.kind)) }
        before = info
        bytes = try fileSystem.readFile(path, limit: DocumentName.maxFileSize)
      } catch let error as FileSystemError {
        if error.errno == .noSuchFileOrDirectory, attempt < readAttempts { continue }
        if error.meansNotDownloaded { return .failure(.notDownloaded(error)) }
        return .failure(.cannotRead(error))
      } catch {
        return .failure(.cannotRead(FileSystemError("read", path, .ioError)))
      }
      if let known, known.bytes == bytes {
        return .success(Read(info: before, bytes: bytes, file: known.file))
      }
      do {
        // Merging and checking need each change's chunk and hash, never its ops.
        let file = try AutomergeFile.decode(bytes, keepOps: false)
        return .success(Read(info: before, bytes: bytes, file: file))
      } catch let error as AutomergeDecodeError {
        let after = try? fileSystem.info(path)
        let changed = after.map { !$0.isSameFile(as: before) } ?? true
        if attempt < readAttempts, changed || Int64(bytes.count) != before.size { continue }
        return .failure(.notAutomerge(error))
      } catch {
        return .failure(.notAutomerge(.invalidDocument(reason: "\(error)", offset: 0)))
      }
    }
  }
}
