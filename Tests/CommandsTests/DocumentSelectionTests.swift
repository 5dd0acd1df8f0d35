import Foundation
import Operations
import Platform
import Testing

@testable import Commands

/// How `PATH…` arguments that select no document are reported: as typed, by every verb.
@Suite struct DocumentSelectionTests {
  /// Runs `arguments` through the dispatcher in an empty data folder, from its root.
  func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
    let directory = try TestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let err = BufferSink()
    let env = Environment(
      system: SystemContext(
        variables: ["HOME": directory.path], fileSystem: LiveFileSystem(), now: { 0 }),
      currentDirectory: AbsolutePath(directory.path), stdout: BufferSink(), stderr: err)
    let status = CLI.run(["--root", directory.path] + arguments, env)
    return (status, err.text)
  }

  @Test(arguments: ["ls", "log", "fetch", "repair", "compact", "merge-conflicts"])
  func everyVerbNamesTheArgumentAsTyped(_ verb: String) throws {
    let result = try run([verb, "records/2030/"])
    #expect(result.status == Commands.ExitStatus.noInput.rawValue)
    #expect(result.stderr == "mn: error: no such document 'records/2030/'\n", "\(verb)")
  }
}
