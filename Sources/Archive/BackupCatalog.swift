import Platform

/// The backups in the backup folder: listing, verifying and pruning them (mn.md §13).
///
/// Only files that mn itself wrote are ever considered: regular files (never links) named as
/// `Backup.make` names them, `minuta-backup-YYYYMMDD-HHMMSS-<verb>[-N].tar.gz`, whose
/// manifest says `"tool": "mn"`. Every other file in the folder is left alone, and so is a
/// backup that does not read back intact (`damaged`): pruning never deletes one, and it
/// counts for no rule.
///
/// Pruning holds the backup folder's own lock (`.mn-backups.lock`), so that two mn
/// processes pruning at once with different policies cannot together delete what each one
/// keeps. It needs no data folder lock: backups live outside every data folder, and a
/// backup being written appears only when complete (renamed into place).
public enum BackupCatalog {
  /// The lock file that `prune` holds, inside the backup folder.
  public static let lockFileName = ".mn-backups.lock"

  /// What a backup's file name says.
  public struct Name: Sendable, Equatable {
    /// When it was taken, seconds since the epoch (UTC, to the second).
    public var time: Int64
    /// The verb that took it (`merge-conflicts`, `migrate`, `restore`, `watch`).
    public var verb: String
    /// 1 for the first backup of a second, 2, 3, ... for the next ones (`-2` in the name).
    public var sequence: Int

    public init(time: Int64, verb: String, sequence: Int = 1) {
      self.time = time
      self.verb = verb
      self.sequence = sequence
    }

    /// Parses `minuta-backup-YYYYMMDD-HHMMSS-<verb>[-N].tar.gz`; nil for any other name.
    public init?(_ fileName: String) {
      let prefix = "minuta-backup-"
      let suffix = ".tar.gz"
      guard fileName.hasPrefix(prefix), fileName.hasSuffix(suffix) else { return nil }
      let body = Array(fileName.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count))
      // YYYYMMDD-HHMMSS-x: at least 17 bytes.
      guard body.count >= 17, body[8] == UInt8(ascii: "-"), body[15] == UInt8(ascii: "-")
      else { return nil }
      func number(_ range: Range<Int>) -> Int? {
        var value = 0
        for byte in body[range] {
          guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
          value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
      }
      guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
        let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
        (1...12).contains(month), (1...Name.daysIn(month: month, year: year)).contains(day),
        hour < 24, minute < 60, second < 60
      else { return nil }
      var verb = String(decoding: body[16...], as: UTF8.self)
      var sequence = 1
      if let dash = verb.lastIndex(of: "-") {
        let tail = verb[verb.index(after: dash)...]
        if let n = Int(tail), n >= 2, tail.first != "0", tail.allSatisfy(\.isASCII) {
          sequence = n
          verb = String(verb[..<dash])
        }
      }
      guard !verb.isEmpty,
        verb.unicodeScalars.allSatisfy({
          $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
        })
      else { return nil }
      let days = Name.daysFromCivil(year: year, month: month, day: day)
      self.time = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
      self.verb = verb
      self.sequence = sequence
    }

    static func daysIn(month: Int, year: Int) -> Int {
      switch month {
      case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
      case 4, 6, 9, 11: return 30
      default: return 31
      }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// days_from_civil, the inverse of `UTCDateTime`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
      let y = Int64(month <= 2 ? year - 1 : year)
      let era = (y >= 0 ? y : y - 399) / 400
      let yoe = y - era * 400
      let m = Int64(month)
      let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
      let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
      return era * 146_097 + doe - 719_468
    }
  }

  /// What a backup that reads back intact holds, from its manifest.
  public struct Contents: Sendable, Equatable {
    /// The documents it holds (placeholders not counted).
    public var documents: Int
    /// Every file it lists, placeholders included.
    public var files: Int
    /// Files that were not downloaded, listed but absent.
    public var placeholders: Int
    /// The data folder (or folders) it was taken from.
    public var source: String
    /// The manifest's `created` (ISO 8601 UTC).
    public var created: String
    /// The version of the tool that wrote it.
    public var version: String
    /// The tool that wrote it (`mn`).
    public var tool: String
  }

  /// A backup in the folder.
  public struct Entry: Sendable, Equatable {
    /// The file's path.
    public var path: AbsolutePath
    /// The file name.
    public var fileName: String
    public var name: Name
    /// The file as `lstat` saw it before it was read (size, device, inode, mtime).
    public var info: FileInfo
    /// The contents when it read back intact, else why it did not.
    public var state: Result<Contents, ArchiveError>

    /// Its size in bytes.
    public var size: Int64 { info.size }

    /// Whether it read back intact.
    public var isIntact: Bool {
      if case .success = state { return true }
      return false
    }
  }

  /// The backup folder's backups, oldest first.
  public struct Listing: Sendable, Equatable {
    /// The folder, as given.
    public var directory: AbsolutePath
    /// Whether the folder exists (no folder: no backups yet).
    public var exists: Bool
    /// mn's backups, oldest first (by time, then sequence).
    public var entries: [Entry]
    /// Files with a backup's name that mn did not write (another tool's manifest, or not a
    /// regular file): never touched.
    public var foreign: [String]
  }

  /// Reads an archive back and checks it against its manifest, which must be present.
  ///
  /// One streaming pass: the content is hashed, not kept in memory.
  ///
  /// - Parameters:
  ///   - path: the archive.
  ///   - fileSystem: where to read it.
  ///   - limits: the size caps.
  /// - Returns: what its manifest lists, or the error that shows it damaged
  ///   (`ArchiveError.missingManifest`, `.manifestMismatch`, `.corruptArchive`, `.io`, ...).
  public static func inspect(
    path: AbsolutePath, fileSystem: FileSystem, limits: ArchiveLimits = .standard
  ) -> Result<Contents, ArchiveError> {
    let walk: ArchiveReader.Walk
    switch ArchiveReader.readBack(
      path: path, fileSystem: fileSystem, limits: limits, watermark: nil)
    {
    case .success(let value): walk = value
    case .failure(let error): return .failure(error)
    }
    let archive: ReadArchive
    do {
      archive = try walk.checked()
    } catch {
      return .failure(error)
    }
    guard let manifest = archive.manifest else { return .failure(.missingManifest) }
    return .success(
      Contents(
        documents: manifest.files.filter { $0.kind == .document }.count,
        files: manifest.files.count,
        placeholders: manifest.files.filter { $0.kind == .placeholder }.count,
        source: manifest.source, created: manifest.created, version: manifest.version,
        tool: manifest.tool))
  }

  /// Lists and reads back every backup in `directory`.
  ///
  /// - Parameters:
  ///   - directory: the backup folder.
  ///   - fileSystem: where to look.
  ///   - limits: the size caps for reading each backup.
  /// - Returns: the backups, oldest first; an empty listing when the folder does not exist.
  /// - Throws: `BackupCatalogError.cannotList` when the folder cannot be read.
  public static func list(
    directory: AbsolutePath, fileSystem: FileSystem, limits: ArchiveLimits = .standard
  ) throws(BackupCatalogError) -> Listing {
    let names: [String]
    do {
      guard let info = try fileSystem.infoFollowingLinks(directory) else {
        return Listing(directory: directory, exists: false, entries: [], foreign: [])
      }
      guard info.kind == .directory else {
        throw FileSystemError("list", directory, .notDirectory)
      }
      names = try fileSystem.contentsOfDirectory(directory)
    } catch let error as FileSystemError {
      throw .cannotList(error)
    } catch {
      throw .cannotList(FileSystemError("list", directory, .ioError))
    }
    var entries: [Entry] = []
    var foreign: [String] = []
    for fileName in names.sorted(by: { $0.precedesByBytes($1) }) {
      guard let name = Name(fileName) else { continue }
      let file = directory.appending(fileName)
      guard let info = try? fileSystem.info(file) else { continue }
      guard info.kind == .regular else {
        foreign.append(fileName)
        continue
      }
      let state = inspect(path: file, fileSystem: fileSystem, limits: limits)
      switch state {
      case .success(let contents) where contents.tool != "mn":
        foreign.append(fileName)
        continue
      case .failure(.io) where (try? fileSystem.info(file)) == nil:
        continue  // Removed while it was being read.
      default: break
      }
      entries.append(Entry(path: file, fileName: fileName, name: name, info: info, state: state))
    }
    entries.sort { a, b in
      a.name.time != b.name.time ? a.name.time < b.name.time : a.name.sequence < b.name.sequence
    }
    return Listing(directory: directory, exists: true, entries: entries, foreign: foreign)
  }

  /// One backup as prune saw it: the policy's decision, and what happened to the file.
  public struct PrunedBackup: Sendable, Equatable {
    /// What was done with a backup the policy does not keep.
    public enum Removal: Sendable, Equatable {
      /// Removed.
      case removed
      /// Would be removed (`--dry-run`).
      case wouldRemove
      /// Left in place: the file changed or was replaced since it was read.
      case changed
      /// Removing it failed.
      case failed(FileSystemError)
    }

    public var entry: Entry
    /// Why it is kept; empty for a backup to remove.
    public var reasons: [BackupRetention.Reason]
    /// For a backup to remove, what happened; nil for a kept one.
    public var removal: Removal?
  }

  /// What `prune` did.
  public struct PruneReport: Sendable, Equatable {
    public var directory: AbsolutePath
    public var policy: BackupRetention.Policy
    public var dryRun: Bool
    /// Every intact backup considered, newest first, with the policy's decision.
    public var backups: [PrunedBackup]
    /// Backups that did not read back intact: never removed, counted by no rule.
    public var damaged: [Entry]

    /// The backups removed (or, in a dry run, to remove).
    public var removed: [PrunedBackup] { backups.filter { $0.removal != nil } }
    /// The backups kept.
    public var kept: [PrunedBackup] { backups.filter { $0.removal == nil } }
  }

  /// Applies a retention policy to the backup folder: removes every intact backup that no
  /// rule keeps (mn.md §13; the rules of `BackupRetention`), the backups of each data folder
  /// (each manifest `source`) counted apart.
  ///
  /// Holds the folder's lock (`lockFileName`) throughout, unless `dryRun`. A file is removed only if it is
  /// still the regular file that was read (same device, inode, size and modification
  /// time); the name is unlinked, so a link is never followed. The folder is synced after.
  ///
  /// - Parameters:
  ///   - directory: the backup folder.
  ///   - policy: the rules' counts; an empty policy removes nothing.
  ///   - dryRun: decide, but change nothing (no lock taken, no lock file created).
  ///   - wait: how long to wait for another prune's lock, in seconds.
  ///   - fileSystem: where the backups live.
  ///   - sleep: sleeps while waiting for the lock.
  ///   - offset: the time zone's offset from UTC at a given time, for local days, weeks and
  ///     months.
  ///   - folders: which backups to consider, by their manifest's `source`; nil for all. The
  ///     rules apply to each `source`'s backups apart.
  /// - Returns: what was kept, removed and left alone.
  /// - Throws: `BackupCatalogError.cannotList`, or `.lock` when another prune holds the lock
  ///   past `wait`.
  public static func prune(
    directory: AbsolutePath, policy: BackupRetention.Policy, dryRun: Bool, wait: Double,
    fileSystem: FileSystem, sleep: (Double) -> Void, offset: (Int64) -> Int64 = { _ in 0 },
    folders: ((String) -> Bool)? = nil
  ) throws(BackupCatalogError) -> PruneReport {
    var report = PruneReport(
      directory: directory, policy: policy, dryRun: dryRun, backups: [], damaged: [])
    let exists: Bool
    do {
      exists = try fileSystem.infoFollowingLinks(directory)?.kind == .directory
    } catch let error as FileSystemError {
      throw .cannotList(error)
    } catch {
      throw .cannotList(FileSystemError("list", directory, .ioError))
    }
    guard exists else { return report }
    var lock: FileLock?
    if !dryRun {
      do {
        lock = try FileLock.acquire(
          file: directory.appending(lockFileName), timeout: wait, fileSystem: fileSystem,
          sleep: sleep)
      } catch {
        throw .lock(error)
      }
    }
    defer { lock?.release() }
    let listing = try list(directory: directory, fileSystem: fileSystem)
    report.damaged = listing.entries.filter { !$0.isIntact }
    // The rules apply to each folder's backups on their own (as `restic forget` groups by
    // paths): one folder's newer backups never push out another's, and each folder's
    // newest is kept.
    var groups: [String: [Entry]] = [:]
    for entry in listing.entries {
      guard case .success(let contents) = entry.state else { continue }
      guard folders.map({ $0(contents.source) }) ?? true else { continue }
      groups[contents.source, default: []].append(entry)
    }
    let decisions = groups.values.flatMap { entries in
      BackupRetention.apply(policy, to: entries, time: \.name.time, offset: offset)
    }.sorted { a, b in
      let (x, y) = (a.item.name, b.item.name)
      return x.time != y.time ? x.time > y.time : x.sequence > y.sequence
    }
    var removedAny = false
    for decision in decisions {
      var pruned = PrunedBackup(entry: decision.item, reasons: decision.reasons, removal: nil)
      if !decision.keep {
        pruned.removal = dryRun ? .wouldRemove : remove(decision.item, fileSystem: fileSystem)
        if pruned.removal == .removed { removedAny = true }
      }
      report.backups.append(pruned)
    }
    if removedAny { try? fileSystem.syncDirectory(directory) }
    return report
  }

  /// Unlinks `entry` if it is still the regular file that was read.
  static func remove(_ entry: Entry, fileSystem: FileSystem) -> PrunedBackup.Removal {
    do {
      guard let now = try fileSystem.info(entry.path), now.kind == .regular,
        now.device == entry.info.device, now.inode == entry.info.inode,
        now.size == entry.info.size,
        now.modificationSeconds == entry.info.modificationSeconds,
        now.modificationNanoseconds == entry.info.modificationNanoseconds
      else { return .changed }
      try fileSystem.removeFile(entry.path)
      return .removed
    } catch let error as FileSystemError {
      if error.errno == .noSuchFileOrDirectory { return .changed }
      return .failed(error)
    } catch {
      return .failed(FileSystemError("remove", entry.path, .ioError))
    }
  }
}

/// Why the backup folder could not be listed or pruned.
public enum BackupCatalogError: Error, Sendable, CustomStringConvertible {
  /// The folder exists but cannot be read.
  case cannotList(FileSystemError)
  /// Another prune held the folder's lock for the whole wait, or it could not be taken.
  case lock(LockError)

  public var description: String {
    switch self {
    case .cannotList(let error): return error.description
    case .lock(let error): return error.description
    }
  }
}
