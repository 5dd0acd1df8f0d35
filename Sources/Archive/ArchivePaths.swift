import Platform

/// Path helpers for archives, backups and restore (pure strings, or through a `FileSystem`).
public enum ArchivePaths {
  /// `path` without empty and `.` components (lexical only).
  public static func normalized(_ path: String) -> String {
    let parts = path.split(separator: "/").filter { $0 != "." }
    return "/" + parts.joined(separator: "/")
  }

  /// `path` with links resolved as far as it exists.
  public static func resolved(_ path: String, fileSystem: FileSystem) -> String {
    var existing = normalized(path)
    var rest: [String] = []
    while existing != "/" {
      if let real = try? fileSystem.realPath(existing) {
        return normalized(([real] + rest.reversed()).joined(separator: "/"))
      }
      rest.append(Paths.split(existing).name)
      existing = Paths.split(existing).directory
    }
    return normalized("/" + rest.reversed().joined(separator: "/"))
  }

  /// `mkdir -p`: creates the missing directories of `path` with `permissions`.
  public static func makeDirectories(_ path: String, permissions: UInt32, fileSystem: FileSystem)
    throws(ArchiveError)
  {
    let parts = normalized(path).split(separator: "/")
    var current = ""
    for part in parts {
      current += "/" + part
      do {
        if let info = try fileSystem.infoFollowingLinks(current) {
          guard info.kind == .directory else {
            throw FileSystemError("create directory", current, .notDirectory)
          }
          continue
        }
        do {
          try fileSystem.makeDirectory(current, permissions: permissions)
        } catch let error as FileSystemError where error.errno == .fileExists {
          // Created meanwhile by someone else: fine.
        }
      } catch let error as FileSystemError {
        throw .cannotCreateOutput(path: path, error)
      } catch {
        throw .writeFailed(path: path, detail: "\(error)")
      }
    }
  }
}
