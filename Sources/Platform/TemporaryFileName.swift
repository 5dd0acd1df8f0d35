/// The names of mn's own temporary files: `.NAME.mn-XXXXXX.nosync` beside the target `NAME`
/// (mn.md §6), and `.NAME.mn-XXXXXX.backup`, the backup item of a replace in a File Provider
/// folder (the displaced original, examined and then removed: `ItemReplacingFileSystem`).
///
/// The `.nosync` suffix keeps them off iCloud; the backup item has no excluded name, since
/// renaming a synced item to one is what a provider takes for a deletion. The scan recognises
/// both so that `doctor` can report, and the next writer holding the lock can merge and
/// remove, the ones a crash left. `AtomicFile` writes the first (its
/// `temporaryName(for:random:)` is the one spelling), `backupName(for:token:)` the second;
/// this is the exact recognizer: a leading `.`, a non-empty target, `.mn-`, six letters or
/// digits, `.nosync` or `.backup`.
public enum TemporaryFileName {
  /// The length of the random token.
  public static let tokenLength = 6
  /// The characters a token is made of.
  public static let tokenAlphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

  /// The temporary's name for a target and a token (`tokenLength` characters of
  /// `tokenAlphabet`, chosen by the caller).
  public static func make(for targetName: String, token: String) -> String {
    AtomicFile.temporaryName(for: targetName, random: token)
  }

  /// The suffix of a replace's backup item (`backupName(for:token:)`).
  public static let backupSuffix = ".backup"

  /// The name under which a replace in a File Provider folder keeps the displaced original
  /// beside the target `targetName` (`.NAME.mn-XXXXXX.backup`).
  public static func backupName(for targetName: String, token: String) -> String {
    "." + targetName + AtomicFile.temporaryMarker + token + backupSuffix
  }

  /// The target's file name, when `fileName` is one of mn's temporaries; nil otherwise.
  public static func target(of fileName: String) -> String? {
    // Most names fail here without allocating (`.` first, `c` of `.nosync` or `p` of
    // `.backup` last).
    guard
      NameBytes.withBytes(
        fileName, { $0.first == NameBytes.dot && ($0.last == 0x63 || $0.last == 0x70) })
    else {
      return nil
    }
    let bytes = Array(fileName.utf8)
    let tail = 4 + tokenLength + 7  // ".mn-" token ".nosync" (or ".backup", as long)
    guard bytes.count > 1 + tail, bytes[0] == NameBytes.dot,
      NameBytes.hasSuffix(bytes, ".nosync") || NameBytes.hasSuffix(bytes, ".backup")
    else { return nil }
    let at = bytes.count - tail
    guard NameBytes.matches(bytes, at: at, ".mn-"),
      bytes[(at + 4)..<(at + 4 + tokenLength)].allSatisfy(NameBytes.isAlnum)
    else { return nil }
    let target = NameBytes.string(bytes[1..<at])
    return NameBytes.isValidComponent(target) ? target : nil
  }
}
