/// The content of an iCloud `.NAME.icloud` placeholder stub: a binary property list.
///
/// iCloud Drive (iOS, macOS before 14, and copies of such folders) leaves a stub in place
/// of a file that is not downloaded. Its property list holds at least `NSURLNameKey` (the
/// real file name) and `NSURLFileSizeKey` (the real size in bytes).
public struct ICloudStub: Sendable, Hashable {
  /// The real file name (`NSURLNameKey`), when present and a string.
  public var name: String?
  /// The real size in bytes (`NSURLFileSizeKey`), when present, a whole number and not negative.
  public var size: Int64?

  /// Creates a stub value.
  public init(name: String?, size: Int64?) {
    self.name = name
    self.size = size
  }

  /// The largest stub read; real ones are a few hundred bytes.
  public static let maxSize = 64 * 1024

  /// Decodes a stub's bytes.
  ///
  /// - Parameter bytes: the whole stub file.
  /// - Returns: the name and size it declares (each nil when missing or of the wrong type).
  /// - Throws: `BinaryPlistError` when the bytes are not a binary property list whose top
  ///   object is a dictionary.
  public static func decode(_ bytes: [UInt8]) throws(BinaryPlistError) -> ICloudStub {
    guard case .dictionary(let dict) = try BinaryPlist.decode(bytes) else {
      throw .unexpectedTopObject
    }
    let size = dict["NSURLFileSizeKey"]?.integerValue.flatMap { $0 >= 0 ? $0 : nil }
    return ICloudStub(name: dict["NSURLNameKey"]?.stringValue, size: size)
  }
}
