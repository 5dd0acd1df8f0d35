import Testing

@testable import Commands

/// The unit and agent `mn watch --service` prints (mn.md §12): pure functions, the one
/// source that packaging uses too.
@Suite struct WatchServiceTests {
  @Test func theSystemdUnitForAPackagedBinary() {
    let unit = Watch.systemdUnit(executable: "/usr/bin/mn")
    #expect(
      unit == """
        [Unit]
        Description=Keep the Minuta data folder healthy (mn watch)
        Documentation=man:mn-watch(1)

        [Service]
        Type=simple
        ExecStart=/usr/bin/mn watch
        Restart=on-failure
        RestartSec=10

        [Install]
        WantedBy=default.target

        """)
  }

  @Test(arguments: [
    ("/usr/bin/mn", "/usr/bin/mn"), ("30m", "30m"), ("my data", "\"my data\""),
    ("100%", "\"100%%\""), ("$HOME", "\"$$HOME\""), ("a\"b", "\"a\\\"b\""),
    ("back\\slash", "\"back\\\\slash\""), ("", "\"\""),
    ("rclone copyto r:{rel} {}", "\"rclone copyto r:{rel} {}\""),
  ])
  func execStartWordsAreQuotedAsSystemdReadsThem(_ word: String, _ quoted: String) {
    #expect(Watch.systemdQuoted(word) == quoted)
  }

  @Test func theLaunchAgentEscapesItsStrings() {
    let plist = Watch.launchAgent(
      executable: "/opt/mn & co/mn", arguments: ["--root", "/Users/a/<data>"],
      logPath: "/Users/a/Library/Logs/mn-watch.log")
    #expect(plist.contains("<string>/opt/mn &amp; co/mn</string>\n    <string>watch</string>"))
    #expect(plist.contains("<string>/Users/a/&lt;data&gt;</string>"))
    #expect(plist.contains("<key>Label</key>\n  <string>tools.minuta.mn-watch</string>"))
    #expect(plist.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
    // Both outputs go to the log: `--json`'s lines are on standard output.
    let log = "  <string>/Users/a/Library/Logs/mn-watch.log</string>"
    #expect(plist.contains("<key>StandardOutPath</key>\n" + log))
    #expect(plist.contains("<key>StandardErrorPath</key>\n" + log))
  }

  /// The agent names the binary by the path it was started as, and Homebrew's keg by its
  /// stable `opt` link, never the versioned Cellar path that `brew upgrade` removes.
  @Test func theServiceRunsTheBinaryByAStablePath() {
    #expect(
      Watch.servicePath("/opt/homebrew/Cellar/mn/0.9.1/bin/mn", currentDirectory: "/")
        == "/opt/homebrew/opt/mn/bin/mn")
    #expect(
      Watch.servicePath("/usr/local/Cellar/mn/1.0_1/bin/mn", currentDirectory: "/")
        == "/usr/local/opt/mn/bin/mn")
    #expect(
      Watch.servicePath("/opt/homebrew/bin/mn", currentDirectory: "/") == "/opt/homebrew/bin/mn")
    #expect(Watch.servicePath("./mn", currentDirectory: "/Users/a/src") == "/Users/a/src/mn")
    #expect(
      Watch.servicePath("/opt/homebrew/Cellar/other/1/bin/mn", currentDirectory: "/")
        == "/opt/homebrew/Cellar/other/1/bin/mn")
  }
}
