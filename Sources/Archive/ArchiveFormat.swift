/// The archive formats mn writes (and reads): a tar (POSIX pax, restricted), optionally
/// compressed, or a zip.
public enum ArchiveFormat: String, CaseIterable, Sendable {
  case tar = "tar"
  case tarGz = "tar.gz"
  case tarXz = "tar.xz"
  case tarZst = "tar.zst"
  case zip = "zip"

  /// The format named on the command line (`--format`): `tar`, `tar.gz` (also `tgz`,
  /// `gz`), `tar.xz` (`txz`, `xz`), `tar.zst` (`tzst`, `zst`, `zstd`), `zip`; case-insensitive.
  /// Nil for any other name.
  public init?(name: String) {
    switch name.lowercased() {
    case "tar": self = .tar
    case "tar.gz", "tgz", "gz", "gzip", "targz": self = .tarGz
    case "tar.xz", "txz", "xz", "tarxz": self = .tarXz
    case "tar.zst", "tzst", "zst", "zstd", "tar.zstd", "tarzst": self = .tarZst
    case "zip": self = .zip
    default: return nil
    }
  }

  /// The format that an output file name's extension implies (`x.tar.gz`, `x.tgz`, `x.zip`,
  /// ...); nil when the extension is not one of them.
  public init?(fileName: String) {
    let lower = fileName.lowercased()
    let table: [(String, ArchiveFormat)] = [
      (".tar.gz", .tarGz), (".tgz", .tarGz), (".tar.xz", .tarXz), (".txz", .tarXz),
      (".tar.zst", .tarZst), (".tar.zstd", .tarZst), (".tzst", .tarZst), (".tar", .tar),
      (".zip", .zip),
    ]
    guard let match = table.first(where: { lower.hasSuffix($0.0) }) else { return nil }
    self = match.1
  }

  /// The usual file extension, without the dot: `tar.gz`, `zip`, ...
  public var fileExtension: String { rawValue }
}
