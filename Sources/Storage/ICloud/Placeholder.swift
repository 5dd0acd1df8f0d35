import Platform

/// The kinds of placeholder (a file that is present in name only, not downloaded).
///
/// The raw value is the spelling used in `ls --json` (`"placeholder": {"kind": …}`).
public enum PlaceholderKind: String, Sendable, Hashable, CaseIterable {
  /// `dir/.NAME.icloud`, a binary property list (iCloud Drive on iOS, older macOS).
  case icloud
  /// `dir/NAME.nextcloud`, a Nextcloud virtual file.
  case nextcloud
  /// `dir/NAME.owncloud`, an ownCloud virtual file.
  case owncloud
  /// `dir/NAME` itself, marked `SF_DATALESS` (macOS File Provider; Darwin only).
  case dataless
}

/// A placeholder found on disk, standing for a file that is not downloaded.
public struct Placeholder: Sendable, Hashable {
  /// The kind.
  public var kind: PlaceholderKind
  /// The placeholder file (for `dataless`, the file itself).
  public var path: AbsolutePath
  /// The name of the file it stands for (`09.automerge`), a single path component.
  public var realName: String
  /// The size the placeholder declares for the real file, when it declares one.
  public var declaredSize: Int64?
  /// Why the stub's content could not be used (then `realName` comes from the file name).
  public var stubProblem: String?

  /// Creates a placeholder value.
  public init(
    kind: PlaceholderKind, path: AbsolutePath, realName: String, declaredSize: Int64? = nil,
    stubProblem: String? = nil
  ) {
    self.kind = kind
    self.path = path
    self.realName = realName
    self.declaredSize = declaredSize
    self.stubProblem = stubProblem
  }

  /// What a file name says about being a placeholder: its kind and the real name.
  ///
  /// `.NAME.icloud` (also `..NAME.icloud` and `.NAME-tef.icloud`, seen in the wild) is an
  /// iCloud stub for `NAME`; `NAME.nextcloud` and `NAME.owncloud` are virtual files. The
  /// real name of an iCloud stub should come from its property list when that is readable
  /// (`ICloudStub`); this is the fallback. Dataless files cannot be told by name.
  ///
  /// - Parameter fileName: a single path component.
  /// - Returns: nil when the name is not a placeholder's, or the real name would be empty.
  public static func parseFileName(_ fileName: String) -> (kind: PlaceholderKind, realName: String)?
  {
    NameBytes.withBytes(fileName) { bytes -> (PlaceholderKind, String)? in
      // Every placeholder suffix ends in "d": most names fail here.
      guard bytes.last == 0x64 else { return nil }
      var inner = bytes[...]
      let kind: PlaceholderKind
      if NameBytes.hasSuffix(bytes, ".icloud"), bytes.first == NameBytes.dot {
        kind = .icloud
        inner = inner.dropFirst().dropLast(7)
        if inner.first == NameBytes.dot { inner = inner.dropFirst() }
        if NameBytes.hasSuffix(UnsafeBufferPointer(rebasing: inner), "-tef") {
          inner = inner.dropLast(4)
        }
      } else if NameBytes.hasSuffix(bytes, ".nextcloud") {
        kind = .nextcloud
        inner = inner.dropLast(10)
      } else if NameBytes.hasSuffix(bytes, ".owncloud") {
        kind = .owncloud
        inner = inner.dropLast(9)
      } else {
        return nil
      }
      let name = NameBytes.string(UnsafeBufferPointer(rebasing: inner))
      return NameBytes.isValidComponent(name) ? (kind, name) : nil
    }
  }

  /// Builds the placeholder for a file whose name is a placeholder's, reading an iCloud
  /// stub's property list for the real name and size.
  ///
  /// An unreadable or malformed stub still counts: its name then comes from the file name,
  /// its size is unknown, and `stubProblem` says what was wrong. A name in the property list
  /// that is not a single path component (`../x`, `a/b`, empty) is ignored the same way.
  ///
  /// - Parameters:
  ///   - path: the placeholder file.
  ///   - fileName: its last component.
  ///   - fileSystem: used to read the stub.
  /// - Returns: nil when the name is not a placeholder's.
  public static func read(path: AbsolutePath, fileName: String, fileSystem: any FileSystem)
    -> Placeholder?
  {
    read(path: path, fileName: fileName) { stubContent(path, fileSystem) }
  }

  /// The bytes of the iCloud stub at `path`, or why they cannot be read.
  public static func stubContent(_ path: AbsolutePath, _ fileSystem: any FileSystem) -> Result<
    [UInt8], Errno
  > {
    do {
      return .success(try fileSystem.readFile(path, limit: ICloudStub.maxSize))
    } catch {
      return .failure((error as? FileSystemError)?.errno ?? .ioError)
    }
  }

  /// As `read(path:fileName:fileSystem:)`, with the stub's content (or why it could not be
  /// read) from `content`, which is only called for an iCloud stub.
  public static func read(
    path: AbsolutePath, fileName: String, content: () -> Result<[UInt8], Errno>
  ) -> Placeholder? {
    guard let parsed = parseFileName(fileName) else { return nil }
    return read(path: path, parsed: parsed, content: content)
  }

  /// As `read(path:fileName:content:)`, for a file name already parsed by `parseFileName`.
  static func read(
    path: AbsolutePath, parsed: (kind: PlaceholderKind, realName: String),
    content: () -> Result<[UInt8], Errno>
  ) -> Placeholder {
    let kind = parsed.kind
    var placeholder = Placeholder(kind: kind, path: path, realName: parsed.realName)
    guard kind == .icloud else { return placeholder }
    do {
      let stub = try ICloudStub.decode(try content().get())
      placeholder.declaredSize = stub.size
      if let name = stub.name {
        if NameBytes.isValidComponent(name) {
          placeholder.realName = name
        } else {
          placeholder.stubProblem = "invalid name in stub"
        }
      }
    } catch let error as BinaryPlistError {
      placeholder.stubProblem = error.description
    } catch let error as Errno {
      placeholder.stubProblem = error.description
    } catch {
      placeholder.stubProblem = "\(error)"
    }
    return placeholder
  }
}
