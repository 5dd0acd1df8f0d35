import Archive
import Platform
import Storage

/// Where `mn export` writes and in which format, decided from `-o`, `--format` and the clock.
struct ExportTarget {
  var output: ExportOutput
  var format: ArchiveFormat
  /// The output as the user named it (or the default name), for messages.
  var display: String

  /// The target of `call`'s `output` (`-o`) and `named` (`--format`): `-o -` is standard
  /// output (never a terminal), `-o FILE` a file whose extension must agree with
  /// `--format`, and no `-o` a new `minuta-YYYYMMDD-HHMMSS.EXT` (UTC) in the current
  /// directory.
  static func resolve(
    _ call: Invocation, output: String?, format named: ArchiveFormat?, _ env: Environment
  ) throws -> ExportTarget {
    switch output {
    case "-":
      guard !env.stdoutIsTerminal else {
        throw CommandError.archiveToTerminal
      }
      guard !call.global.json else {
        throw UsageError(
          message: "--json cannot be used with -o - (standard output carries the archive)",
          path: call.path)
      }
      return ExportTarget(
        output: .descriptor(FileDescriptor(rawValue: 1), label: "standard output"),
        format: named ?? .tarGz, display: "standard output")
    case let file?:
      let implied = ArchiveFormat(fileName: AbsolutePath(file).lastComponent)
      guard let format = named ?? implied else {
        throw UsageError(
          message: "cannot tell the archive format from '\(file)': name it .tar.gz, .tar.xz, "
            + ".tar.zst, .tar or .zip, or use --format", path: call.path)
      }
      if let implied, implied != format {
        throw UsageError(
          message: "--format \(format.rawValue) does not match the extension of '\(file)'",
          path: call.path)
      }
      return ExportTarget(
        output: .file(
          AbsolutePath(normalizing: file, relativeTo: env.currentDirectory)),
        format: format, display: file)
    case nil:
      let format = named ?? .tarGz
      let stem = "minuta-" + UTCDateTime(secondsSinceEpoch: env.nowSeconds).compact
      var name = "\(stem).\(format.fileExtension)"
      var attempt = 2
      // Never replace an earlier export made within the same second.
      while try env.fileSystem.info(env.currentDirectory.appending(name)) != nil {
        name = "\(stem)-\(attempt).\(format.fileExtension)"
        attempt += 1
      }
      return ExportTarget(
        output: .file(env.currentDirectory.appending(name)), format: format,
        display: name)
    }
  }

  /// Refuses an output inside the data folder: it would be synced to every device, exported
  /// again next time, and could replace a document.
  static func refuseInside(root: AbsolutePath, output: AbsolutePath, _ fileSystem: any FileSystem)
    throws
  {
    let inside = DataFolder.enclosingFolder(
      of: output, roots: [root], lookAlikes: false, fileSystem: fileSystem)
    if inside != nil { throw CommandError.archiveInsideDataFolder(root: root.string) }
  }
}
