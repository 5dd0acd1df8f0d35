import Platform

/// What restoring one archive entry does to the destination.
public enum RestoreAction: Sendable, Equatable {
  /// Absent at the destination: written.
  case write
  /// A document present with other bytes: merged into the existing file.
  case merge
  /// Present with the same bytes: nothing to do.
  case unchanged
  /// A non-document file present with other bytes: left alone (and reported).
  case keepDifferent
  /// A local-only `.nosync` file (a lock, a temporary): never restored.
  case skip
}

/// The plan for restoring an archive into a destination folder (`mn restore --dry-run`).
public struct RestorePlan: Sendable, Equatable {
  /// One entry's fate.
  public struct Item: Sendable, Equatable {
    /// The path relative to the archive's top folder and to the destination.
    public var path: String
    /// `.document` or `.other`.
    public var kind: ArchiveManifest.Kind
    public var action: RestoreAction
  }

  /// The destination folder.
  public var destination: AbsolutePath
  /// Whether the destination exists (it is created otherwise).
  public var destinationExists: Bool
  /// One item per archive entry, sorted by path.
  public var items: [Item]

  /// The items with a given action.
  public func items(_ action: RestoreAction) -> [Item] { items.filter { $0.action == action } }
}

/// What a restore did.
public struct RestoreReport: Sendable, Equatable {
  /// Paths written because they were absent.
  public var written: [String] = []
  /// Documents merged into an existing file (and changed by it).
  public var merged: [String] = []
  /// Paths that were already identical, or whose merge added nothing.
  public var unchanged: [String] = []
  /// Other files present with different content, left alone.
  public var keptDifferent: [String] = []
  /// `.nosync` entries not restored.
  public var skipped: [String] = []
  /// How each document written was replaced (mn.md §6), by path.
  public var replaces: [String: ReplaceOutcome.Summary] = [:]
}

/// `mn restore`: brings an archive's files into a folder without losing anything there.
///
/// Documents absent from the destination are written atomically, present ones are merged
/// (never overwritten); other files are written when absent and otherwise left alone. Every
/// path stays inside the destination: the entry paths were checked by `ArchiveReader`, and
/// a link, directory or special file where a file or directory goes is refused.
public enum ArchiveRestore {
  /// Whether `path` names a document: `tags.automerge` or `records/YYYY/MM.automerge`.
  /// Used for archives without a manifest.
  public static func isDocumentPath(_ path: String) -> Bool {
    if path == "tags.automerge" { return true }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "records" else { return false }
    let year = parts[1].utf8
    guard year.count == 4, year.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
    guard parts[2].hasSuffix(".automerge") else { return false }
    let month = parts[2].dropLast(".automerge".count)
    guard month.utf8.count == 2, let number = Int(month), (1...12).contains(number) else {
      return false
    }
    return true
  }

  /// Decides what restoring each entry of `archive` into `destination` does, reading the
  /// destination but changing nothing.
  ///
  /// - Parameters:
  ///   - archive: a checked archive from `ArchiveReader`.
  ///   - destination: the folder to restore into, absolute; may not exist yet.
  ///   - fileSystem: where to look.
  ///   - isDocument: the document test for archives without a manifest.
  ///   - limits: the size cap for reading existing files.
  /// - Returns: one item per entry.
  /// - Throws: `ArchiveError.destinationConflict` when something is in the way, `.io`.
  public static func plan(
    archive: ReadArchive, destination: AbsolutePath, fileSystem: FileSystem,
    isDocument: (String) -> Bool = ArchiveRestore.isDocumentPath, limits: ArchiveLimits = .standard
  ) throws(ArchiveError) -> RestorePlan {
    let exists = try destinationExists(destination, fileSystem: fileSystem)
    var items: [RestorePlan.Item] = []
    for entry in archive.entries {
      let kind = kind(of: entry.path, in: archive, isDocument: isDocument)
      let action = try decide(
        entry, kind: kind, destination: destination, exists: exists, fileSystem: fileSystem,
        limits: limits)
      items.append(RestorePlan.Item(path: entry.path, kind: kind, action: action))
    }
    return RestorePlan(destination: destination, destinationExists: exists, items: items)
  }

  /// Restores `archive` into `destination`: plans each entry again at the moment of writing
  /// (the caller holds the destination's write lock), then writes, merges or leaves it.
  ///
  /// - Parameters:
  ///   - archive: a checked archive from `ArchiveReader`.
  ///   - destination: the folder, absolute; created (mode 0o755) when missing.
  ///   - fileSystem: where to write.
  ///   - merger: merges an archived document into an existing one, and any version a sync
  ///     client brings while a document is replaced (mn.md §6).
  ///   - isDocument: the document test for archives without a manifest.
  ///   - limits: the size cap for reading existing files.
  ///   - random: the `XXXXXX` of temporary names.
  ///   - coordinated: runs each document's whole replace (its argument, for the target's
  ///     path) as one coordinated write in a synced folder (mn.md §6, §15); the archive layer
  ///     knows no sync provider, so the workflow above passes it in.
  /// - Returns: what was done, per path.
  /// - Throws: `ArchiveError.destinationConflict`, `.mergeFailed`, `.cannotCreateOutput`,
  ///   `.io`. Entries before the failing one stay restored (each was written atomically).
  public static func execute(
    archive: ReadArchive, destination: AbsolutePath, fileSystem: FileSystem,
    merger: ReplaceMerger, isDocument: (String) -> Bool = ArchiveRestore.isDocumentPath,
    limits: ArchiveLimits = .standard, random: () -> String = AtomicFile.randomSuffix,
    coordinated: (AbsolutePath, () throws -> ReplaceOutcome) throws -> ReplaceOutcome = {
      try $1()
    }
  ) throws(ArchiveError) -> RestoreReport {
    // Refuse before writing anything when something is in the way.
    _ = try plan(
      archive: archive, destination: destination, fileSystem: fileSystem, isDocument: isDocument,
      limits: limits)
    try ArchiveError.makeDirectories(destination, permissions: 0o755, fileSystem: fileSystem)
    var report = RestoreReport()
    for entry in archive.entries {
      let kind = kind(of: entry.path, in: archive, isDocument: isDocument)
      let action = try decide(
        entry, kind: kind, destination: destination, exists: true, fileSystem: fileSystem,
        limits: limits)
      let location = destination.appending(entry.path)
      let target = location.string
      do {
        switch action {
        case .write:
          try ArchiveError.makeDirectories(
            location.parent, permissions: 0o755, fileSystem: fileSystem)
          let mode = entry.permissions.intersection(.accessBits)
          if kind == .document {
            // Absent when decided: a version that a sync client brings meanwhile is merged.
            let outcome = try withoutActuallyEscaping(random) { random in
              try coordinated(location) {
                try Replace.replace(
                  location, with: entry.bytes, basis: .absent, merger: merger,
                  fileSystem: fileSystem, permissions: mode.isEmpty ? 0o644 : mode, random: random)
              }
            }
            report.replaces[entry.path] = outcome.summary
          } else {
            try AtomicFile.write(
              entry.bytes, to: location, fileSystem: fileSystem,
              permissions: mode.isEmpty ? 0o644 : mode, random: random)
          }
          report.written.append(entry.path)
        case .merge:
          guard let info = try fileSystem.info(location) else {
            throw ArchiveError.destinationConflict(path: target, reason: "removed meanwhile")
          }
          let existing = try fileSystem.readFile(location, limit: limits.maxEntrySize)
          let merged: [UInt8]
          do {
            merged = try merger.merge(existing, entry.bytes)
          } catch {
            throw ArchiveError.mergeFailed(path: entry.path, reason: "\(error)")
          }
          if merged == existing {
            report.unchanged.append(entry.path)
          } else {
            let outcome = try withoutActuallyEscaping(random) { random in
              try coordinated(location) {
                try Replace.replace(
                  location, with: merged, basis: ReplaceBasis(info: info, bytes: existing),
                  merger: merger, fileSystem: fileSystem, random: random)
              }
            }
            report.replaces[entry.path] = outcome.summary
            report.merged.append(entry.path)
          }
        case .unchanged: report.unchanged.append(entry.path)
        case .keepDifferent: report.keptDifferent.append(entry.path)
        case .skip: report.skipped.append(entry.path)
        }
      } catch let error as ArchiveError {
        throw error
      } catch ReplaceError.notRegularFile(let path, let kind) {
        throw .destinationConflict(path: path, reason: "not a regular file (\(kind.article))")
      } catch let error as FileSystemError {
        throw .io(error)
      } catch {
        throw .writeFailed(path: target, detail: "\(error)")
      }
    }
    return report
  }

  static func kind(of path: String, in archive: ReadArchive, isDocument: (String) -> Bool)
    -> ArchiveManifest.Kind
  {
    if let listed = archive.manifestKind(path), listed != .placeholder { return listed }
    return isDocument(path) ? .document : .other
  }

  /// Whether the destination exists as a directory (links followed: the root may be one).
  public static func destinationExists(_ destination: AbsolutePath, fileSystem: FileSystem)
    throws(ArchiveError)
    -> Bool
  {
    do {
      guard let info = try fileSystem.infoFollowingLinks(destination) else {
        return false
      }
      guard info.kind == .directory else {
        throw ArchiveError.destinationConflict(path: destination.string, reason: "not a directory")
      }
      return true
    } catch let error as ArchiveError {
      throw error
    } catch let error as FileSystemError {
      throw .io(error)
    } catch {
      throw .io(FileSystemError("stat", destination, .ioError))
    }
  }

  /// One entry's action: every directory on the way must be a real directory (no link) or
  /// absent, and the target absent or a regular file.
  static func decide(
    _ entry: ArchiveEntry, kind: ArchiveManifest.Kind, destination: AbsolutePath, exists: Bool,
    fileSystem: FileSystem, limits: ArchiveLimits
  ) throws(ArchiveError) -> RestoreAction {
    let components = entry.path.split(separator: "/").map(String.init)
    if let name = components.last, name.hasSuffix(".nosync") { return .skip }
    guard exists else { return .write }
    do {
      var current = destination
      for component in components.dropLast() {
        current = current.appending(component)
        guard let info = try fileSystem.info(current) else { return .write }
        guard info.kind == .directory else {
          throw ArchiveError.destinationConflict(
            path: current.string,
            reason: info.kind == .symlink ? "a symbolic link" : "not a directory")
        }
      }
      let target = destination.appending(entry.path)
      guard let info = try fileSystem.info(target) else { return .write }
      guard info.kind == .regular else {
        throw ArchiveError.destinationConflict(
          path: target.string,
          reason: info.kind == .directory ? "a directory" : "not a regular file")
      }
      let existing = try fileSystem.readFile(target, limit: limits.maxEntrySize)
      if existing == entry.bytes { return .unchanged }
      return kind == .document ? .merge : .keepDifferent
    } catch let error as ArchiveError {
      throw error
    } catch let error as FileSystemError {
      throw .io(error)
    } catch {
      throw .io(FileSystemError("read", destination, .ioError))
    }
  }
}
