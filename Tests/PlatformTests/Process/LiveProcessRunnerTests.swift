import Foundation
import Testing

@testable import Platform
@testable import TestSupport

@Suite struct LiveProcessRunnerTests {
  let runner = LiveProcessRunner()

  func monotonic() -> Double { ProcessInfo.processInfo.systemUptime }

  func run(_ command: String, environment: [String: String] = [:], timeout: Double = 10) throws
    -> ProcessStatus?
  {
    let child = try runner.start(shellCommand: command, environment: environment)
    return try runner.wait(
      for: child, until: monotonic() + timeout, now: monotonic,
      sleep: { Thread.sleep(forTimeInterval: $0) })
  }

  @Test func exitStatuses() throws {
    #expect(try run("true") == .exited(0))
    #expect(try run("exit 3") == .exited(3))
    #expect(try run("kill -TERM $$") == .signaled(15))
    #expect(try run("exit 3")?.succeeded == false)
  }

  @Test func theEnvironmentIsExactlyTheOneGiven() throws {
    let scratch = try ScratchFolder()
    let out = scratch.absolute("env")
    let command = "printf '%s|%s' \"$MN_TEST\" \"${HOME-unset}\" > \(ShellQuote.quote(out))"
    #expect(try run(command, environment: ["MN_TEST": "a b'c"]) == .exited(0))
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "a b'c|unset")
  }

  @Test func standardInputIsEmptyAndSigpipeIsDefault() throws {
    // `cat` would wait forever on an inherited terminal or pipe.
    #expect(try run("cat", timeout: 5) == .exited(0))
    // A writer into a closed pipe dies of SIGPIPE (not ignored as in mn itself).
    let scratch = try ScratchFolder()
    let out = scratch.absolute("status")
    #expect(
      try run("(yes; echo $? > \(ShellQuote.quote(out))) | head -c1 >/dev/null; wait") == .exited(0)
    )
    let status = try String(contentsOfFile: out, encoding: .utf8)
    #expect(status == "141\n")
  }

  @Test func aCommandPastTheDeadlineIsStopped() throws {
    let start = monotonic()
    #expect(try run("exec sleep 30", timeout: 0.3) == nil)
    #expect(monotonic() - start < 5)
  }

  @Test func aCommandThatIgnoresTermIsKilled() throws {
    let start = monotonic()
    #expect(try run("trap '' TERM; while :; do sleep 0.1; done", timeout: 0.2) == nil)
    #expect(monotonic() - start < 5)
  }

  @Test func quoting() {
    #expect(ShellQuote.quote("it's") == #"'it'\''s'"#)
    #expect(ShellQuote.word("records/2026/09.automerge") == "records/2026/09.automerge")
    #expect(ShellQuote.word("09 2.automerge") == "'09 2.automerge'")
    #expect(ShellQuote.word("") == "''")
  }
}
