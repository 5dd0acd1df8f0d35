import AutomergeCodec
import Platform

extension JSONValue {
  /// A path in the JSON output: where a typed path becomes text.
  static func path(_ path: AbsolutePath) -> JSONValue { .string(path.string) }
}
