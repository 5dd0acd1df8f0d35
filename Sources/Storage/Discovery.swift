import Platform

/// Where a data folder was found (mn.md §2).
public enum DiscoverySource: String, Sendable, CaseIterable {
  case flag
  case env
  case pointer
  case icloud
  case local
}

/// One step of discovery: what was looked at, and why it was or was not chosen.
public struct DiscoveryCandidate: Sendable, Equatable {
  public var source: DiscoverySource
  /// The path looked at; nil when the step had nothing to look at (no variable set).
  public var path: AbsolutePath?
  public var exists: Bool
  /// Why the step was or was not chosen, in words.
  public var note: String
}

/// The outcome of discovery: the chosen root (if any), every step, and warnings.
public struct Discovery: Sendable {
  public var root: AbsolutePath?
  public var source: DiscoverySource?
  public var candidates: [DiscoveryCandidate]
  /// Problems to tell the user about even when a root was found (a stale pointer).
  public var warnings: [String]
  /// Set when an explicit choice (flag or variable) names a folder that does not exist.
  public var explicitMissing: AbsolutePath?
}

/// The inputs of discovery, passed in so that Storage reads no environment of its own.
public struct DiscoveryInput: Sendable {
  /// `--root`, as given.
  public var flag: String?
  /// Environment variables (`MINUTA_STORAGE`, `HOME`, `XDG_CONFIG_HOME`).
  public var variables: [String: String]
  /// The current directory, for relative `--root` and `MINUTA_STORAGE` values.
  public var currentDirectory: AbsolutePath
  /// Whether to use the macOS locations of the pointer file.
  public var isDarwin: Bool

  public init(
    flag: String?, variables: [String: String], currentDirectory: AbsolutePath, isDarwin: Bool
  ) {
    self.flag = flag
    self.variables = variables
    self.currentDirectory = currentDirectory
    self.isDarwin = isDarwin
  }
}

/// The well-known locations of mn.md §2.
public enum WellKnownPaths {
  /// The iCloud Drive container of Minuta under `home`.
  public static func icloud(home: AbsolutePath) -> AbsolutePath {
    home.appending("Library/Mobile Documents/iCloud~tools~minuta~app/Documents")
  }

  /// The local default folder under `home`.
  public static func local(home: AbsolutePath) -> AbsolutePath {
    home.appending("Documents/Minuta")
  }

  /// `$HOME`, or nil when it is not set (or empty).
  public static func home(variables: [String: String]) -> AbsolutePath? {
    nonEmpty(variables["HOME"]).map { AbsolutePath($0) }
  }

  /// The pointer file `storage-path.txt`, or nil when neither HOME nor XDG_CONFIG_HOME is set.
  public static func pointerFile(variables: [String: String], isDarwin: Bool) -> AbsolutePath? {
    if isDarwin {
      return home(variables: variables)?.appending(
        "Library/Application Support/Minuta/storage-path.txt")
    }
    if let config = nonEmpty(variables["XDG_CONFIG_HOME"]), config.hasPrefix("/") {
      return AbsolutePath(config).appending("minuta/storage-path.txt")
    }
    return home(variables: variables)?.appending(".config/minuta/storage-path.txt")
  }

  /// The backup directory of mn.md §8: `$MN_BACKUP_DIR` as it is set (it may be relative:
  /// the caller makes it absolute), else the state directory.
  public static func backupDirectory(variables: [String: String], isDarwin: Bool) -> String? {
    if let dir = nonEmpty(variables["MN_BACKUP_DIR"]) { return dir }
    if isDarwin {
      return home(variables: variables)?.appending("Library/Application Support/Minuta/Backups")
        .string
    }
    if let state = nonEmpty(variables["XDG_STATE_HOME"]), state.hasPrefix("/") {
      return AbsolutePath(state).appending("minuta/backups").string
    }
    return home(variables: variables)?.appending(".local/state/minuta/backups").string
  }

  static func nonEmpty(_ value: String?) -> String? {
    guard let value, !value.isEmpty else { return nil }
    return value
  }
}

extension Discovery {
  /// Runs the five discovery steps of mn.md §2 in order; the first hit wins, but every step
  /// is still evaluated so that `--explain` can show it.
  ///
  /// - Parameters:
  ///   - input: The flag, environment and current directory.
  ///   - fileSystem: Used to check which folders exist and to read the pointer file.
  /// - Returns: The outcome; `root` is nil when no step found a folder.
  public static func run(_ input: DiscoveryInput, fileSystem: any FileSystem) -> Discovery {
    var result = Discovery(
      root: nil, source: nil, candidates: [], warnings: [], explicitMissing: nil)

    func isDirectory(_ path: AbsolutePath) -> Bool {
      (try? fileSystem.infoFollowingLinks(path))??.kind == .directory
    }

    func consider(
      _ source: DiscoverySource, _ path: AbsolutePath?, explicit: Bool, unset: String
    ) {
      guard let path else {
        result.candidates.append(
          DiscoveryCandidate(source: source, path: nil, exists: false, note: unset))
        return
      }
      let exists = isDirectory(path)
      let note: String
      if result.root != nil || result.explicitMissing != nil {
        note = exists ? "exists; an earlier step was chosen" : "does not exist"
      } else if exists {
        note = "chosen"
        result.root = path
        result.source = source
      } else if explicit {
        note = "does not exist (an explicit choice: discovery stops here)"
        result.explicitMissing = path
      } else {
        note = "does not exist"
      }
      result.candidates.append(
        DiscoveryCandidate(source: source, path: path, exists: exists, note: note))
    }

    let cwd = input.currentDirectory
    consider(
      .flag, input.flag.map { AbsolutePath(normalizing: $0, relativeTo: cwd) },
      explicit: true, unset: "no --root given")
    consider(
      .env,
      WellKnownPaths.nonEmpty(input.variables["MINUTA_STORAGE"]).map {
        AbsolutePath(normalizing: $0, relativeTo: cwd)
      }, explicit: true, unset: "MINUTA_STORAGE is not set")

    // The pointer file: one absolute path, surrounding white space ignored.
    let pointerFile = WellKnownPaths.pointerFile(
      variables: input.variables, isDarwin: input.isDarwin)
    if let pointerFile,
      let bytes = try? fileSystem.readFile(pointerFile, limit: 64 * 1024)
    {
      let text = String(decoding: bytes, as: UTF8.self)
      let target = String(
        text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
      if target.isEmpty || !target.hasPrefix("/") {
        let reason = target.isEmpty ? "is empty" : "does not hold an absolute path"
        result.warnings.append("pointer file '\(pointerFile)' \(reason); ignored")
        result.candidates.append(
          DiscoveryCandidate(
            source: .pointer, path: nil, exists: false, note: "pointer file \(reason)"))
      } else {
        let normalized = AbsolutePath(target).normalized
        consider(.pointer, normalized, explicit: false, unset: "")
        if !isDirectory(normalized) {
          result.warnings.append(
            "pointer file '\(pointerFile)' names '\(normalized)', which does not exist")
          if let last = result.candidates.indices.last {
            result.candidates[last].note =
              "stale pointer in '\(pointerFile)': target does not exist"
          }
        }
      }
    } else {
      result.candidates.append(
        DiscoveryCandidate(
          source: .pointer, path: pointerFile, exists: false,
          note: pointerFile == nil ? "HOME is not set" : "no pointer file"))
    }

    let home = WellKnownPaths.home(variables: input.variables)
    consider(.icloud, home.map(WellKnownPaths.icloud), explicit: false, unset: "HOME is not set")
    consider(.local, home.map(WellKnownPaths.local), explicit: false, unset: "HOME is not set")
    return result
  }
}
