import Platform

/// The sync service whose naming scheme a conflict copy follows (mn.md §3).
///
/// The raw value is the spelling used in `ls --json` (`"service"`).
public enum ConflictService: String, Sendable, Hashable, CaseIterable {
  case icloud
  case dropbox
  case syncthing
  /// Nextcloud and ownCloud (same desktop client lineage, same names).
  case nextcloud
  case googleDrive = "google-drive"
  case onedrive
  case seafile
  case resilio
  case pcloud
  case rclone
  case unison
}

/// One conflict marker found in a name: what one service added to it.
public struct ConflictMarker: Sendable, Hashable {
  /// The service whose pattern matched.
  public var service: ConflictService
  /// The device, computer or user the name mentions, when it mentions one.
  public var device: String?
  /// The date (`YYYY-MM-DD`) or date and time (`YYYY-MM-DDTHH:MM:SS`, no zone: services
  /// write local time) the name mentions, when it mentions one.
  public var date: String?

  /// Creates a marker.
  public init(service: ConflictService, device: String? = nil, date: String? = nil) {
    self.service = service
    self.device = device
    self.date = date
  }
}

/// What a conflict copy's file name says: the name of the file it is a copy of, and who
/// made the copy.
public struct ConflictCopyName: Sendable, Hashable {
  /// The file name as found on disk.
  public var fileName: String
  /// The file name of the original, every stacked marker removed (`09.automerge`).
  public var canonicalName: String
  /// Every marker, outermost (the most recent, removed first) first; never empty.
  public var markers: [ConflictMarker]
  /// The service of the outermost marker.
  public var service: ConflictService
  /// The device or user of the outermost marker that names one.
  public var device: String?
  /// The date of the outermost marker that gives one.
  public var date: String?

  /// Creates a parsed name from its markers, outermost first.
  public init(fileName: String, canonicalName: String, markers: [ConflictMarker]) {
    self.fileName = fileName
    self.canonicalName = canonicalName
    self.markers = markers
    self.service = markers.first?.service ?? .icloud
    self.device = markers.first { $0.device != nil }?.device
    self.date = markers.first { $0.date != nil }?.date
  }
}

/// A conflict copy of a document found on disk.
public struct ConflictCopy: Sendable, Hashable {
  /// Where the copy is (its placeholder, when the copy is not downloaded).
  public var path: AbsolutePath
  /// Path relative to the data folder's root.
  public var logicalName: String
  /// What the name says.
  public var name: ConflictCopyName
  /// Set when the copy itself is a placeholder (not downloaded).
  public var placeholder: Placeholder?

  /// Creates a copy entry.
  public init(
    path: AbsolutePath, logicalName: String, name: ConflictCopyName, placeholder: Placeholder? = nil
  ) {
    self.path = path
    self.logicalName = logicalName
    self.name = name
    self.placeholder = placeholder
  }

  /// The service of the outermost marker.
  public var service: ConflictService { name.service }
  /// The device or user the name mentions.
  public var device: String? { name.device }
  /// The date the name mentions.
  public var date: String? { name.date }

  /// Parses a file name as a conflict copy; nil when it matches no pattern.
  ///
  /// Markers can stack (`09.sync-conflict-A.sync-conflict-B.automerge`, or a Syncthing copy
  /// of a Dropbox copy): they are removed one by one, the outermost first, until none is
  /// left. The patterns are the rows of `ConflictPatterns.all`, tried in order, the first
  /// match winning at each step. This only looks at the name: whether the canonical name is
  /// a document is for the layout to say (`DocumentName`).
  ///
  /// - Parameter fileName: a single path component.
  /// - Returns: the canonical name and the markers, or nil for a name no pattern matches.
  public static func parse(fileName: String) -> ConflictCopyName? {
    var bytes = Array(fileName.utf8)
    // A longer name is not a file name (NAME_MAX is 255) and would only cost time.
    guard !bytes.isEmpty, bytes.count <= 1024 else { return nil }
    var markers: [ConflictMarker] = []
    while markers.count < 32, let (rest, marker) = ConflictPatterns.stripOne(bytes) {
      markers.append(marker)
      bytes = rest
    }
    guard !markers.isEmpty else { return nil }
    return ConflictCopyName(
      fileName: fileName, canonicalName: NameBytes.string(bytes), markers: markers)
  }
}
