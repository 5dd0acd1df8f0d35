import Foundation
import Testing

@testable import Platform
@testable import Storage
@testable import TestSupport

@Suite struct DiscoveryTests {
  /// A fresh temporary HOME with the given directories and files.
  final class Home {
    let path: String
    init() throws {
      path =
        FileManager.default.temporaryDirectory
        .appendingPathComponent("mn-discovery-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func mkdir(_ rel: String) throws {
      try FileManager.default.createDirectory(
        atPath: path + "/" + rel, withIntermediateDirectories: true)
    }
    func write(_ rel: String, _ text: String) throws {
      let full = path + "/" + rel
      try FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try text.write(toFile: full, atomically: false, encoding: .utf8)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
  }

  func run(_ home: Home, flag: String? = nil, vars: [String: String] = [:]) -> Discovery {
    var variables = ["HOME": home.path]
    variables.merge(vars) { $1 }
    return Discovery.run(
      DiscoveryInput(
        flag: flag, variables: variables, currentDirectory: AbsolutePath(home.path),
        isDarwin: false),
      fileSystem: LiveFileSystem())
  }

  @Test func nothingFound() throws {
    let home = try Home()
    let found = run(home)
    #expect(found.root == nil)
    #expect(found.candidates.map(\.source) == [.flag, .env, .pointer, .icloud, .local])
    #expect(found.explicitMissing == nil)
  }

  @Test func localThenICloudWins() throws {
    let home = try Home()
    try home.mkdir("Documents/Minuta")
    #expect(run(home).source == .local)
    try home.mkdir("Library/Mobile Documents/iCloud~tools~minuta~app/Documents")
    let found = run(home)
    #expect(found.source == .icloud)
    #expect(
      found.root?.string == home.path
        + "/Library/Mobile Documents/iCloud~tools~minuta~app/Documents")
    #expect(found.candidates[4].note.contains("earlier step"))
  }

  @Test func pointerWithWhitespaceAndXDG() throws {
    let home = try Home()
    try home.mkdir("Documents/Minuta")
    try home.mkdir("elsewhere")
    try home.write("cfg/minuta/storage-path.txt", "  \(home.path)/elsewhere\n\n")
    let found = run(home, vars: ["XDG_CONFIG_HOME": home.path + "/cfg"])
    #expect(found.source == .pointer)
    #expect(found.root?.string == home.path + "/elsewhere")
    #expect(found.warnings.isEmpty)
  }

  @Test func stalePointerWarnsAndContinues() throws {
    let home = try Home()
    try home.mkdir("Documents/Minuta")
    try home.write(".config/minuta/storage-path.txt", "\(home.path)/gone")
    let found = run(home)
    #expect(found.source == .local)
    #expect(found.warnings.count == 1)
    #expect(found.warnings[0].contains("does not exist"))
    #expect(found.candidates[2].note.contains("stale"))
  }

  @Test func relativePointerIsIgnored() throws {
    let home = try Home()
    try home.write(".config/minuta/storage-path.txt", "relative/path")
    let found = run(home)
    #expect(found.root == nil)
    #expect(found.warnings.first?.contains("absolute") == true)
  }

  @Test func envBeatsPointerAndFlagBeatsEnv() throws {
    let home = try Home()
    try home.mkdir("a")
    try home.mkdir("b")
    #expect(run(home, vars: ["MINUTA_STORAGE": home.path + "/a"]).source == .env)
    let found = run(home, flag: "b", vars: ["MINUTA_STORAGE": home.path + "/a"])
    #expect(found.source == .flag)
    #expect(found.root?.string == home.path + "/b")
  }

  @Test func explicitMissingStops() throws {
    let home = try Home()
    try home.mkdir("Documents/Minuta")
    let found = run(home, flag: "/nonexistent/x")
    #expect(found.root == nil)
    #expect(found.explicitMissing == AbsolutePath("/nonexistent/x"))
    let env = run(home, vars: ["MINUTA_STORAGE": "/nonexistent/y"])
    #expect(env.root == nil)
    #expect(env.explicitMissing == AbsolutePath("/nonexistent/y"))
  }

  @Test func backupDirectoryOrder() {
    #expect(
      WellKnownPaths.backupDirectory(
        variables: ["MN_BACKUP_DIR": "/b", "HOME": "/h"], isDarwin: false)
        == "/b")
    #expect(
      WellKnownPaths.backupDirectory(
        variables: ["XDG_STATE_HOME": "/s", "HOME": "/h"], isDarwin: false)
        == "/s/minuta/backups")
    #expect(
      WellKnownPaths.backupDirectory(variables: ["HOME": "/h"], isDarwin: false)
        == "/h/.local/state/minuta/backups")
    #expect(
      WellKnownPaths.backupDirectory(variables: ["HOME": "/h"], isDarwin: true)
        == "/h/Library/Application Support/Minuta/Backups")
  }
}
