import Storage

/// How discovery's outcome is told (mn.md §2): `resolve` explains it, `doctor` names the
/// step that chose the folder, and every verb that needs a folder fails the same way.
enum DiscoveryText {
  /// The error when discovery found no data folder: the one named by `--root` or
  /// `MINUTA_STORAGE` is missing, or none was found at all.
  static func notFound(_ found: Discovery) -> CommandError {
    if let missing = found.explicitMissing {
      return .dataFolderMissing(missing.string)
    }
    return .noDataFolder
  }

  /// How each discovery step is named for people.
  static let labels: [DiscoverySource: String] = [
    .flag: "--root", .env: "MINUTA_STORAGE", .pointer: "pointer file",
    .icloud: "iCloud Drive", .local: "local default",
  ]

  /// A step's name for people (its raw value when it has none).
  static func label(_ source: DiscoverySource) -> String { labels[source] ?? source.rawValue }
}
