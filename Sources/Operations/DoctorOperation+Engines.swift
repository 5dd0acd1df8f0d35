import AutomergeCodec
import Platform
import Storage

/// The sync engines' own state that needs a person (issue 27): rclone bisync's listings of
/// this folder left by an aborted run, and Syncthing's `.stversions` holding versions of a
/// document with changes the document lacks.
extension DoctorOperation {
  /// Adds the findings about rclone bisync's listings of `root` in `bisyncDirectory` (its
  /// work directory, `~/.cache/rclone/bisync` by default; nil: not looked at).
  ///
  /// bisync names the listings of a pair `PATH1..PATH2.path1.lst` (and `.path2.lst`), each
  /// path with its leading `/` dropped and every other `/` made `_`. After a critical abort it
  /// renames them `.lst-err` and refuses to run until `--resync`; after a safety abort (too
  /// many deletes) the `.lst-new` files of the failed run stay.
  static func examineBisync(
    root: AbsolutePath, bisyncDirectory: AbsolutePath?, into report: inout DoctorReport,
    fileSystem: any FileSystem
  ) {
    guard let directory = bisyncDirectory,
      let names = try? fileSystem.contentsOfDirectory(directory)
    else { return }
    let encoded = String(root.string.drop { $0 == "/" }).replacing("/", with: "_")
    let ours = names.filter {
      $0.hasPrefix(encoded + "..") || $0.contains(".." + encoded + ".path")
    }
    if let error = ours.sorted().first(where: { $0.hasSuffix(".lst-err") }) {
      report.add(
        .bisyncAborted, directory.appending(error).string,
        "rclone bisync of this folder stopped at a critical error; it refuses to run again",
        fix: "run the same rclone bisync once with --resync, under mn lock (docs/sync-engines.md)")
    } else if let new = ours.sorted().first(where: { $0.hasSuffix(".lst-new") }) {
      report.add(
        .bisyncAborted, directory.appending(new).string,
        "the last rclone bisync of this folder aborted (too many deletes?), or one runs now",
        fix: "run it again under mn lock, with --force for a small folder (docs/sync-engines.md)")
    }
  }

  /// Adds a finding for each version in Syncthing's `.stversions` that holds changes its
  /// document lacks. Syncthing names a version `NAME~YYYYMMDD-HHMMSS.EXT` in the document's
  /// folder under `.stversions`; a version that does not decode is left alone (it is not a
  /// document of the folder).
  static func examineSyncthingVersions(
    root: AbsolutePath, listing: FolderListing, into report: inout DoctorReport,
    fileSystem: any FileSystem
  ) {
    let versions = root.appending(".stversions")
    guard (try? fileSystem.info(versions))??.kind == .directory else { return }
    for document in listing.documents {
      let name = document.logicalName
      guard let logical = LogicalName(name), let folder = logical.parent else { continue }
      let file = logical.lastComponent
      guard file.hasSuffix(".automerge") else { continue }
      let stem = String(file.dropLast(".automerge".count))
      let directory = versions.appending(folder)
      guard let entries = try? fileSystem.contentsOfDirectory(directory) else { continue }
      var held: Set<ChangeHash>?
      for entry in entries.sorted()
      where entry.hasPrefix(stem + "~") && entry.hasSuffix(".automerge") {
        guard
          let version = try? AutomergeFile.decode(
            fileSystem.readFile(directory.appending(entry), limit: maxDocumentSize), keepOps: false,
            keepChunks: false)
        else { continue }
        if held == nil {
          held =
            (try? AutomergeFile.decode(
              fileSystem.readFile(document.path, limit: maxDocumentSize),
              keepOps: false,
              keepChunks: false)).map { Set($0.changes.map(\.hash)) } ?? []
        }
        let missing = version.changes.count { !(held ?? []).contains($0.hash) }
        guard missing > 0 else { continue }
        let stamp = entry.dropFirst(stem.count + 1).dropLast(".automerge".count)
        let versionPath = directory.appending(entry)
        let copy = root.appending(folder).appending("\(stem).sync-conflict-\(stamp).automerge")
        report.add(
          .syncthingVersion, versionPath.logicalName(in: root)?.string ?? versionPath.string,
          "a Syncthing version of '\(name)' holds \(count(missing, "change", "changes")) the document lacks",
          fix: "cp \(ShellQuote.word(versionPath.string)) \(ShellQuote.word(copy.string))"
            + " && mn merge-conflicts \(ShellQuote.word(name))")
      }
    }
  }
}
