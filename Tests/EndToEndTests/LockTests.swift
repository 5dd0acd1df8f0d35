import Foundation
import Testing

/// `mn lock` run as a user runs it: a command under the data folder's write lock (mn.md §6),
/// as `flock(1)` runs one.
@Suite struct LockTests {
  /// A sandbox with an empty data folder `data`; `MN` names the binary for nested calls.
  func sandbox() throws -> Sandbox {
    let box = try Sandbox()
    try box.mkdir("data")
    box.extraEnvironment["MINUTA_STORAGE"] = box.path("data")
    box.extraEnvironment["MN"] = Sandbox.binary.path
    return box
  }

  @Test func theLockIsHeldWhileTheCommandRunsAndReleasedAfter() throws {
    let box = try sandbox()
    // From inside the command: another mn cannot have the lock; a writing verb neither.
    let r = try box.run([
      "lock", "--", "sh", "-c",
      #""$MN" lock --wait 0 -- true; echo "lock=$?"; "$MN" merge-conflicts --wait 0 -q; echo "merge=$?""#,
    ])
    #expect(r.status == 0)
    #expect(r.stdout == "lock=75\nmerge=75\n")
    #expect(r.stderr.contains("mn: error: the data folder is locked by another writer"))
    #expect(try box.run(["lock", "--wait", "0", "--", "true"]).status == 0, "released after")
    #expect(box.exists("data/.minuta.writelock.nosync"))
  }

  @Test func theExitStatusIsTheCommands() throws {
    let box = try sandbox()
    #expect(try box.run(["lock", "--", "sh", "-c", "exit 7"]).status == 7)
    #expect(try box.run(["lock", "--", "false"]).status == 1)
    // A signal ends it: 128 + the signal, as a shell says; the lock is free again.
    #expect(try box.run(["lock", "--", "sh", "-c", "kill -TERM $$"]).status == 128 + 15)
    #expect(try box.run(["lock", "--", "sh", "-c", "kill -KILL $$"]).status == 128 + 9)
    #expect(try box.run(["lock", "--wait", "0", "--", "true"]).status == 0)
  }

  @Test func theCommandGetsTheEnvironmentAndTheStreams() throws {
    let box = try sandbox()
    let r = try box.run(
      ["lock", "--", "sh", "-c", #"cat; echo "$RCLONE_CONFIG_X" >&2; echo "$1""#, "sh", "--help"],
      stdin: Data("from stdin\n".utf8),
      environment: ["RCLONE_CONFIG_X": "a variable mn never reads"])
    #expect(r.status == 0)
    #expect(r.stdout == "from stdin\n--help\n", "arguments after -- are the command's, not mn's")
    #expect(r.stderr == "a variable mn never reads\n")
  }

  @Test func aHeldLockIs75AndTheCommandDoesNotRun() throws {
    let box = try sandbox()
    let holder = try box.start([
      "lock", "--", "sh", "-c",
      "touch \(box.path("held")); while [ ! -e \(box.path("stop")) ]; do sleep 0.05; done",
    ])
    defer {
      try? box.write("stop", "")
      holder.waitUntilExit()
    }
    try waitFor { box.exists("held") }
    let r = try box.run(["lock", "--wait", "0", "--", "touch", box.path("ran")])
    #expect(r.status == 75)
    #expect(r.stderr.contains("locked by another writer"))
    #expect(!box.exists("ran"))
    try box.write("stop", "")
    holder.waitUntilExit()
    #expect(holder.terminationStatus == 0)
    #expect(try box.run(["lock", "--wait", "0", "--", "touch", box.path("ran")]).status == 0)
    #expect(box.exists("ran"))
  }

  @Test func aSigtermToMnIsPassedOnAndTheLockHeldUntilTheCommandEnds() throws {
    let box = try sandbox()
    let mn = try box.start([
      "lock", "--", "sh", "-c",
      "trap 'touch \(box.path("term")); exit 3' TERM; touch \(box.path("started")); "
        + "while :; do sleep 0.05; done",
    ])
    try waitFor { box.exists("started") }
    kill(mn.processIdentifier, SIGTERM)
    mn.waitUntilExit()
    #expect(mn.terminationReason == .exit)
    #expect(mn.terminationStatus == 3, "the command's status, after its own trap ran")
    #expect(box.exists("term"))
    #expect(try box.run(["lock", "--wait", "0", "--", "true"]).status == 0)
  }

  @Test func aDaemonTheCommandStartsDoesNotKeepTheLock() throws {
    let box = try sandbox()
    // The daemon gets only /dev/null (Python closes the rest): Foundation's Process hands
    // mn a descriptor of its own, which mn passes on as any shell would, and a daemon
    // holding it would keep the test waiting.
    let daemon =
      "import subprocess as s; print(s.Popen(['sleep', '60'], stdin=s.DEVNULL, stdout=s.DEVNULL, stderr=s.DEVNULL).pid)"
    let r = try box.run([
      "lock", "--", "sh", "-c", "readlink /proc/$$/fd/*; python3 -c \"$0\"", daemon,
    ])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n")
    let pid = Int32(lines.last ?? "") ?? 0
    #expect(pid > 0)
    defer { if pid > 0 { kill(pid, SIGKILL) } }
    #expect(!lines.contains { $0.hasSuffix(".minuta.writelock.nosync") }, "no lock descriptor")
    #expect(kill(pid, 0) == 0, "the daemon still runs")
    #expect(try box.run(["lock", "--wait", "0", "--", "true"]).status == 0)
  }

  @Test func noCommandIsAUsageErrorAndAMissingOneIs127() throws {
    let box = try sandbox()
    let none = try box.run(["lock"])
    #expect(none.status == 64)
    #expect(none.stderr.contains("missing argument 'COMMAND'"))
    let missing = try box.run(["lock", "--", "mn-no-such-command"])
    #expect(missing.status == 127)
    #expect(missing.stderr.hasPrefix("mn: error: cannot start 'mn-no-such-command'"))
    #expect(try box.run(["lock", "--", "/dev/null"]).status == 126)
    let noFolder = try box.run(["--root", box.path("absent"), "lock", "--", "true"])
    #expect(noFolder.status == 66)
  }

  /// Polls `condition` every 20 ms for up to 30 s.
  func waitFor(_ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(30)
    while !condition() {
      guard Date() < deadline else { throw CocoaError(.fileReadUnknown) }
      usleep(20_000)
    }
  }
}
