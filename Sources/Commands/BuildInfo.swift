/// Where this build of mn came from, for `mn --version`.
///
/// `make release` writes the commit into `BuildInfo+Generated.swift` (not checked in) and
/// compiles with `-D MN_BUILD_COMMIT`; any other build, a plain `swift build` included,
/// says `unknown`.
enum BuildInfo {
  #if MN_BUILD_COMMIT
    /// The commit the build was made from (`git describe --always --dirty`).
    static let commit = generatedBuildCommit
  #else
    /// The commit the build was made from: not recorded by this build.
    static let commit = "unknown"
  #endif

  /// `mn --version`'s line: `mn 0.1.0 (commit 1a2b3c4d5e6f)`.
  static var versionLine: String { "mn \(CommandTable.version) (commit \(commit))" }
}
