import Archive
import Platform
import Storage

/// What a path that changed is to `mn watch`: the names it acts on, told by name alone.
public enum WatchPathKind: Sendable, Equatable {
  /// A conflict copy of a document (a name the conflict-copy table matches, mn.md §3).
  case copy
  /// A placeholder of a document or of a copy (`.NAME.icloud`, `NAME.nextcloud`, …).
  case placeholder
  /// A document itself (the app's writes, a sync client's): never merged as a copy, but in
  /// a synced folder its change is when iCloud may have kept a conflict version of it.
  case document
  /// Anything else: a temporary, another file.
  case other
}

/// Names `mn watch` reads: changed paths, and its own backups (mn.md §12).
public enum WatchPaths {
  /// What `path` is, inside the data folder at `root`.
  ///
  /// A document rewritten by the app (under the lock, or not) is `.document`: only names that
  /// the conflict-copy table matches, in a folder that holds their document, are copies.
  public static func kind(of path: AbsolutePath, root: AbsolutePath) -> WatchPathKind {
    guard let relative = path.logicalName(in: root), !relative.isRoot
    else { return .other }
    let name = relative.lastComponent
    let folder = DocumentFolder(logicalPath: (relative.parent ?? .root).string)
    guard folder.documentCount > 0 else { return .other }
    if let (_, realName) = Placeholder.parseFileName(name) {
      return isCopyOrDocument(realName, in: folder) ? .placeholder : .other
    }
    if folder.documentIndex(named: name) != nil { return .document }
    guard folder.mayHoldCopy(named: name), let copy = ConflictCopy.parse(fileName: name),
      folder.documentIndex(named: copy.canonicalName) != nil
    else { return .other }
    return .copy
  }

  private static func isCopyOrDocument(_ name: String, in folder: DocumentFolder) -> Bool {
    if folder.documentIndex(named: name) != nil { return true }
    guard folder.mayHoldCopy(named: name), let copy = ConflictCopy.parse(fileName: name) else {
      return false
    }
    return folder.documentIndex(named: copy.canonicalName) != nil
  }

  /// The reason scheduled backups carry in their names (`minuta-backup-…-watch.tar.gz`).
  public static let backupReason = "watch"
  /// The reason of the backups taken before a merge.
  public static let mergeBackupReason = "watch-merge"

  /// When the newest scheduled backup of the folder at `root` (or of one it was migrated
  /// from) in `directory` was written, read off the names `Backup.make` gives
  /// (`minuta-backup-YYYYMMDD-HHMMSS-watch[-N].tar.gz`, UTC); nil when there is none or the
  /// folder cannot be read. A restart then does not back up again before the period is over,
  /// and another folder's backups in a shared backup folder do not put this one's off.
  ///
  /// The candidates are read back newest first until one is of this folder: at start, once.
  public static func lastScheduledBackup(
    of root: AbsolutePath, in directory: AbsolutePath, fileSystem: any FileSystem
  ) -> Double? {
    guard let names = try? fileSystem.contentsOfDirectory(directory) else { return nil }
    let ours = BackupLineage.ofFolder(root, in: directory, fileSystem: fileSystem)
    let candidates = names.compactMap { name in scheduledBackupTime(name).map { (name, $0) } }
    for (name, time) in candidates.sorted(by: { $0.1 > $1.1 }) {
      let path = directory.appending(name)
      if case .success(let contents) = BackupCatalog.inspect(path: path, fileSystem: fileSystem),
        ours(contents.source)
      {
        return time
      }
    }
    return nil
  }

  /// The time in a scheduled backup's name; nil for any other name.
  public static func scheduledBackupTime(_ name: String) -> Double? {
    let prefix = "minuta-backup-"
    let suffix = ".tar.gz"
    guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
    let middle = Array(name.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count))
    // YYYYMMDD-HHMMSS-watch, then nothing or -N.
    let reason = Array("-\(backupReason)".utf8)
    guard middle.count >= 15 + reason.count, middle[8] == 0x2D,
      Array(middle[15..<(15 + reason.count)]) == reason
    else { return nil }
    let tail = middle[(15 + reason.count)...]
    if !tail.isEmpty {
      guard tail.first == 0x2D, tail.count > 1, tail.dropFirst().allSatisfy(NameBytes.isDigit)
      else { return nil }
    }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for byte in middle[range] {
        guard NameBytes.isDigit(byte) else { return nil }
        value = value * 10 + Int64(byte - 0x30)
      }
      return value
    }
    guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
      let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    return Double(daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil,
  /// the inverse of `UTCDateTime`'s).
  static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }
}
