import AutomergeCodec
import Platform
import Threads

/// A file to put in an archive: where it is on disk, its name in the archive and its kind.
///
/// The folder scan produces these; `.nosync` files and mn temporaries are left out by it.
public struct ExportFile: Sendable, Equatable {
  /// The path relative to the data folder's root, `/`-separated (`records/2026/09.automerge`).
  public var relativePath: String
  /// The file's absolute path (for a placeholder: the placeholder's; it is not read).
  public var absolutePath: AbsolutePath
  public var kind: ArchiveManifest.Kind

  public init(relativePath: String, absolutePath: AbsolutePath, kind: ArchiveManifest.Kind) {
    self.relativePath = relativePath
    self.absolutePath = absolutePath
    self.kind = kind
  }

  /// The same file with its archive path under `prefix/` (for backups of several folders).
  public func prefixed(by prefix: String) -> ExportFile {
    ExportFile(relativePath: prefix + "/" + relativePath, absolutePath: absolutePath, kind: kind)
  }
}

/// Reads a document's change count and heads (the Automerge codec, connected by the caller).
public typealias DocumentInspector =
  @Sendable (_ bytes: [UInt8]) throws -> (changes: Int, heads: [String])

/// Where an archive goes.
public enum ExportOutput: Sendable, Equatable {
  /// A file, written to a temporary beside it and renamed into place when complete.
  case file(AbsolutePath)
  /// An open descriptor (standard output for `-o -`), written in order; `label` names it
  /// in errors.
  case descriptor(FileDescriptor, label: String)
}

/// How to write an archive.
public struct ExportOptions: Sendable {
  public var format: ArchiveFormat
  /// Fixed times, no owners, no gzip timestamp: the same files give the same bytes.
  public var reproducible: Bool
  /// Read the archive back and check every digest against the manifest.
  public var verify: Bool
  /// List placeholders as missing instead of refusing (`--allow-placeholders`).
  public var allowPlaceholders: Bool
  /// Archive a document that the inspector cannot read (as a document without `changes`
  /// and `heads`) instead of refusing. Backups set this: a damaged file still gets saved.
  public var includeUnreadableDocuments: Bool
  /// The tool's version for the manifest.
  public var version: String
  /// The top folder inside the archive.
  public var topFolder: String
  /// Mode of a new output file (before the umask).
  public var permissions: FilePermissions
  /// Caps for reading sources and the verification read.
  public var limits: ArchiveLimits

  public init(
    format: ArchiveFormat, version: String, reproducible: Bool = false, verify: Bool = true,
    allowPlaceholders: Bool = false, includeUnreadableDocuments: Bool = false,
    topFolder: String = "Minuta", permissions: FilePermissions = 0o644,
    limits: ArchiveLimits = .standard
  ) {
    self.format = format
    self.version = version
    self.reproducible = reproducible
    self.verify = verify
    self.allowPlaceholders = allowPlaceholders
    self.includeUnreadableDocuments = includeUnreadableDocuments
    self.topFolder = topFolder
    self.permissions = permissions
    self.limits = limits
  }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Equatable {
  /// The archive's path; nil when it went to a descriptor.
  public var path: AbsolutePath?
  public var format: ArchiveFormat
  /// The number of files in the archive (the manifest not counted).
  public var entries: Int
  /// Placeholders listed as missing.
  public var missing: [String]
  /// Documents archived without change count and heads because the inspector failed.
  public var unreadableDocuments: [String]
  /// The archive's size in bytes.
  public var bytes: Int64
  /// The archive's SHA-256, hex.
  public var sha256: String
  /// Whether the archive was read back and matched its manifest.
  public var verified: Bool
  /// The manifest written into the archive.
  public var manifest: ArchiveManifest
}

/// Writes a data folder's files as an archive (`mn export`, backups).
public enum Exporter {
  /// The modification time of every entry, and the manifest's `created`, in reproducible
  /// mode: 1980-01-02T00:00:00Z, within zip's DOS times (written in UTC: `ZipUTCTimes`).
  public static let reproducibleTime: Int64 = 315_619_200

  /// Writes `files` as an archive.
  ///
  /// Entries are `TOP/<relativePath>`, sorted by path (byte order), followed by the
  /// manifest `TOP/.mn-manifest.json`, which comes last so that each file is read exactly
  /// once: what is hashed is what is archived. A file output is written to a temporary
  /// `.NAME.mn-XXXXXX.nosync` beside it, verified, fsynced and renamed into place; on any
  /// failure the temporary is removed and the output is left as it was.
  ///
  /// - Parameters:
  ///   - root: the data folder, recorded as the manifest's `source`.
  ///   - files: what to archive.
  ///   - output: a file path or an open descriptor.
  ///   - options: format, verification, reproducibility, version.
  ///   - now: seconds since the epoch, for the manifest and the manifest entry's time.
  ///   - fileSystem: where to read and write.
  ///   - inspect: reads a document's change count and heads; nil leaves them out.
  ///   - random: the `XXXXXX` of the temporary name.
  ///   - progress: called with each file's relative path before it is archived (a progress
  ///     bar); nil by default.
  /// - Returns: the summary.
  /// - Throws: `ArchiveError`: `.placeholdersPresent`, `.invalidExportPath`,
  ///   `.cannotCreateOutput`, `.io`, `.sourceChanged`, `.unreadableDocument`,
  ///   `.entryTooLarge`, `.writeFailed`, or a reader error when verification fails.
  public static func export(
    root: String, files: [ExportFile], output: ExportOutput, options: ExportOptions, now: Int64,
    fileSystem: FileSystem, inspect: DocumentInspector?,
    random: () -> String = AtomicFile.randomSuffix, progress: ((String) -> Void)? = nil
  ) throws(ArchiveError) -> ExportSummary {
    let sorted = try checkedFiles(files)
    let placeholders = sorted.filter { $0.kind == .placeholder }.map(\.relativePath)
    if !placeholders.isEmpty, !options.allowPlaceholders {
      throw .placeholdersPresent(placeholders)
    }

    switch output {
    case .descriptor(let fd, let label):
      var collected: [UInt8]? = options.verify ? [] : nil
      let sink = ArchiveSink(fileSystem: fileSystem, fd: fd, label: label) { chunk in
        if collected != nil {
          // Past the cap the copy is dropped and the summary says "not verified".
          if (collected?.count ?? 0) + chunk.count > options.limits.maxArchiveSize {
            collected = nil
          } else {
            collected?.append(contentsOf: chunk)
          }
        }
      }
      var summary = try write(
        root: root, files: sorted, sink: sink, label: label, options: options, now: now,
        fileSystem: fileSystem, inspect: inspect, progress: progress)
      if let collected {
        try verify(collected, manifest: summary.manifest, limits: options.limits)
        summary.verified = true
      }
      return summary

    case .file(let output):
      let path = output.string
      let fd: FileDescriptor
      let temporary: AbsolutePath
      do {
        (fd, temporary) = try AtomicFile.createTemporary(
          beside: output, permissions: options.permissions, fileSystem: fileSystem,
          random: random)
      } catch let error as FileSystemError {
        throw .cannotCreateOutput(path: path, error)
      } catch {
        throw .writeFailed(path: path, detail: "\(error)")
      }
      var open = true
      // The read-back check runs on a second thread that follows the writer through the
      // file (never past what was written), so that it costs next to no time on a machine
      // with two cores; it still reads every byte from the file.
      let watermark = WriteWatermark()
      let readBack =
        options.verify
        ? Worker.start { [limits = options.limits] in
          ArchiveReader.readBack(
            path: temporary, fileSystem: fileSystem, limits: limits, watermark: watermark)
        } : nil
      var finished = false
      defer {
        if !finished {
          watermark.end(.abandoned)
          _ = readBack?.join()
        }
      }
      do throws(ArchiveError) {
        let sink = ArchiveSink(fileSystem: fileSystem, fd: fd, label: temporary.string) {
          watermark.advance(by: $0.count)
        }
        var summary = try write(
          root: root, files: sorted, sink: sink, label: path, options: options, now: now,
          fileSystem: fileSystem, inspect: inspect, progress: progress)
        summary.path = output
        do {
          try fileSystem.sync(fd, path: temporary)
          open = false
          try fileSystem.close(fd, path: temporary)
        } catch let error as FileSystemError {
          throw ArchiveError.io(error)
        } catch {
          throw ArchiveError.writeFailed(path: path, detail: "\(error)")
        }
        if options.verify {
          watermark.end(.finished)
          finished = true
          // Without a second thread (none could be made), the same pass, now.
          let result =
            readBack?.join()
            ?? ArchiveReader.readBack(
              path: temporary, fileSystem: fileSystem, limits: options.limits, watermark: nil)
          try result.get().check(summary.manifest)
          summary.verified = true
        }
        do {
          try fileSystem.rename(temporary, to: output)
        } catch let error as FileSystemError {
          throw ArchiveError.cannotCreateOutput(path: path, error)
        } catch {
          throw ArchiveError.writeFailed(path: path, detail: "\(error)")
        }
        // The archive is in place; a failed directory sync cannot undo that.
        try? fileSystem.syncDirectory(output.parent)
        return summary
      } catch {
        if open { try? fileSystem.close(fd, path: temporary) }
        try? fileSystem.removeFile(temporary)
        throw error
      }
    }
  }

  /// Reads `bytes` as an archive and checks that it carries `manifest` and matches it.
  static func verify(_ bytes: [UInt8], manifest: ArchiveManifest, limits: ArchiveLimits)
    throws(ArchiveError)
  {
    let read = try ArchiveReader.read(bytes: bytes, limits: limits)
    guard let found = read.manifest else { throw .missingManifest }
    guard found == manifest else {
      throw .invalidManifest(reason: "the manifest read back differs from the one written")
    }
  }

  /// The files sorted by archive path, after checking that each path is clean and unique.
  static func checkedFiles(_ files: [ExportFile]) throws(ArchiveError) -> [ExportFile] {
    var seen = Set<String>()
    for file in files {
      let path = file.relativePath
      guard !path.isEmpty, LogicalName(path) != nil, path != ArchiveManifest.entryName,
        seen.insert(path).inserted
      else {
        throw .invalidExportPath(path)
      }
    }
    return files.sorted {
      $0.relativePath.precedesByBytes($1.relativePath)
    }
  }

  /// Streams the entries and the manifest through a writer into `sink`.
  private static func write(
    root: String, files: [ExportFile], sink: ArchiveSink, label: String, options: ExportOptions,
    now: Int64, fileSystem: FileSystem, inspect: DocumentInspector?,
    progress: ((String) -> Void)?
  ) throws(ArchiveError) -> ExportSummary {
    try ArchiveLocale.withUTF8 { () throws(ArchiveError) -> ExportSummary in
      try writeEntries(
        root: root, files: files, sink: sink, label: label, options: options, now: now,
        fileSystem: fileSystem, inspect: inspect, progress: progress)
    }
  }

  private static func writeEntries(
    root: String, files: [ExportFile], sink: ArchiveSink, label: String, options: ExportOptions,
    now: Int64, fileSystem: FileSystem, inspect: DocumentInspector?,
    progress: ((String) -> Void)?
  ) throws(ArchiveError) -> ExportSummary {
    let stamp = options.reproducible ? reproducibleTime : now
    var listed: [ArchiveManifest.File] = []
    var unreadable: [String] = []
    // Documents are hashed and inspected on a second thread while the writer compresses:
    // the manifest that needs those facts is written last.
    let queue = DocumentQueue()
    let facts = Worker.start { () -> [Int: DocumentFacts] in
      var out: [Int: DocumentFacts] = [:]
      while let (index, bytes) = queue.take() { out[index] = DocumentFacts(bytes, inspect) }
      return out
    }
    var joined = false
    defer {
      if !joined {
        queue.close()
        _ = facts?.join()
      }
    }
    do {
      let writer = try ArchiveWriter(
        format: options.format, reproducible: options.reproducible, label: label,
        sink: sink.write)
      for file in files {
        progress?(file.relativePath)
        let name = options.topFolder + "/" + file.relativePath
        if file.kind == .placeholder {
          listed.append(ArchiveManifest.File(path: file.relativePath, kind: .placeholder))
          continue
        }
        let source = file.absolutePath
        guard let info = try fileSystem.info(source) else {
          throw FileSystemError("open", source, .noSuchFileOrDirectory)
        }
        guard info.kind == .regular else {
          throw ArchiveError.sourceChanged(path: source.string)
        }
        if info.size > Int64(options.limits.maxEntrySize) {
          throw ArchiveError.entryTooLarge(
            path: file.relativePath, limit: options.limits.maxEntrySize)
        }
        let mtime = options.reproducible ? reproducibleTime : info.modificationSeconds
        var entry = ArchiveManifest.File(path: file.relativePath, kind: file.kind)
        if file.kind == .document {
          let bytes = try fileSystem.readFile(source, limit: options.limits.maxEntrySize)
          entry.size = Int64(bytes.count)
          if facts != nil {
            queue.put(listed.count, bytes)
          } else {
            try DocumentFacts(bytes, inspect).fill(&entry, options, &unreadable)
          }
          try writer.addFile(
            path: name, bytes: bytes, permissions: info.permissions,
            modificationTime: mtime)
        } else {
          let digest = SHA256Digest()
          let fd = try fileSystem.openForReading(source)
          defer { try? fileSystem.close(fd, path: source) }
          try writer.addFile(
            path: name, size: info.size, permissions: info.permissions,
            modificationTime: mtime
          ) { emit in
            var buffer = [UInt8](repeating: 0, count: 65536)
            var remaining = info.size
            while true {
              let n = try buffer.withUnsafeMutableBytes {
                try fileSystem.read(fd, into: $0, path: source)
              }
              if n == 0 { break }
              if Int64(n) > remaining { throw ArchiveError.sourceChanged(path: file.relativePath) }
              remaining -= Int64(n)
              try buffer.withUnsafeBytes {
                let chunk = UnsafeRawBufferPointer(rebasing: $0[0..<n])
                digest.update(chunk)
                try emit(chunk)
              }
            }
          }
          entry.size = info.size
          entry.sha256 = Hex.encode(digest.finalize())
        }
        listed.append(entry)
      }
      if let facts {
        queue.close()
        joined = true
        let found = facts.join() ?? [:]
        for index in listed.indices where listed[index].kind == .document {
          guard let fact = found[index] else {
            throw ArchiveError.sourceChanged(path: listed[index].path)
          }
          try fact.fill(&listed[index], options, &unreadable)
        }
      }
      let manifest = ArchiveManifest(
        version: options.version, created: UTCDateTime(secondsSinceEpoch: stamp).iso8601,
        source: root, files: listed)
      try writer.addFile(
        path: options.topFolder + "/" + ArchiveManifest.entryName, bytes: manifest.encoded,
        permissions: 0o644, modificationTime: stamp)
      try writer.finish()
      return ExportSummary(
        path: nil, format: options.format,
        entries: listed.count - listed.filter { $0.kind == .placeholder }.count,
        missing: listed.filter { $0.kind == .placeholder }.map(\.path),
        unreadableDocuments: unreadable, bytes: sink.count,
        sha256: Hex.encode(sink.digest.finalize()),
        verified: false, manifest: manifest)
    } catch let error as ArchiveError {
      throw error
    } catch let error as FileSystemError {
      throw .io(error)
    } catch {
      throw .writeFailed(path: label, detail: "\(error)")
    }
  }
}

/// Forwards archive bytes to a descriptor, counting and hashing them on the way.
final class ArchiveSink {
  let fileSystem: FileSystem
  let fd: FileDescriptor
  let label: String
  let observe: ((UnsafeRawBufferPointer) -> Void)?
  let digest = SHA256Digest()
  var count: Int64 = 0
  /// Where the last early writeback started: every 8 MiB the written part is handed to the
  /// disk, so that the final `fsync` does not wait for the whole archive at once.
  private var writebackFrom: Int64 = 0
  private static let writebackStep: Int64 = 8 << 20

  init(
    fileSystem: FileSystem, fd: FileDescriptor, label: String,
    observe: ((UnsafeRawBufferPointer) -> Void)?
  ) {
    self.fileSystem = fileSystem
    self.fd = fd
    self.label = label
    self.observe = observe
  }

  func write(_ chunk: UnsafeRawBufferPointer) throws {
    // The label only names the target in an error; for `-o -` it is "standard output", not
    // a path, and is wrapped as it is so that the message quotes it unchanged.
    try fileSystem.write(fd, chunk, path: AbsolutePath(label))
    digest.update(chunk)
    count += Int64(chunk.count)
    if count - writebackFrom >= ArchiveSink.writebackStep {
      fileSystem.startWriteback(fd, offset: writebackFrom, length: count - writebackFrom)
      writebackFrom = count
    }
    observe?(chunk)
  }
}

/// A document's SHA-256 and, when an inspector is given, what it says of the document.
struct DocumentFacts: Sendable {
  var sha256: String
  var inspected: Result<(changes: Int, heads: [String]), any Error>?

  init(_ bytes: [UInt8], _ inspect: DocumentInspector?) {
    sha256 = SHA256Digest.hexHash(bytes)
    inspected = inspect.map { inspect in Result { try inspect(bytes) } }
  }

  /// Puts the facts into the document's manifest entry; an unreadable document is listed
  /// in `unreadable`, or refused unless the options include such documents.
  func fill(
    _ entry: inout ArchiveManifest.File, _ options: ExportOptions, _ unreadable: inout [String]
  ) throws(ArchiveError) {
    entry.sha256 = sha256
    switch inspected {
    case .success(let facts)?:
      entry.changes = facts.changes
      entry.heads = facts.heads
    case .failure(let error)?:
      if !options.includeUnreadableDocuments {
        throw .unreadableDocument(path: entry.path, reason: "\(error)")
      }
      unreadable.append(entry.path)
    case nil:
      break
    }
  }
}
