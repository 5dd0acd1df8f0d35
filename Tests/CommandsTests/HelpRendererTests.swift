import Testing

@testable import Commands

/// Golden help output (Snapshots/help-*.txt); `MN_RECORD=1` re-records.
@Suite struct HelpRendererTests {
  @Test func topLevel() {
    TestSupport.assertSnapshot(
      HelpRenderer.topLevel(commands: CommandTable.commands, globals: CommandTable.globalOptions),
      named: "help-top")
  }

  @Test(arguments: CommandTable.commands.map(\.name))
  func verb(_ name: String) {
    let text = HelpRenderer.help(
      for: [name], commands: CommandTable.commands, globals: CommandTable.globalOptions)
    TestSupport.assertSnapshot(text ?? "", named: "help-\(name)")
  }

  @Test(arguments: [[], ["export"], ["doc"], ["doc", "merge"], ["merge-conflicts"], ["resolve"]])
  func testTable(_ path: [String]) {
    let text = HelpRenderer.help(
      for: path, commands: TestSupport.commands, globals: CommandTable.globalOptions)
    TestSupport.assertSnapshot(
      text ?? "", named: "test-table-help" + path.map { "-" + $0 }.joined())
  }

  @Test func linesFitEightyColumns() {
    for (path, _) in CommandTableTests.allPaths {
      let table =
        CommandTable.commands.command(at: path) != nil
        ? CommandTable.commands : TestSupport.commands
      let text =
        HelpRenderer.help(for: path, commands: table, globals: CommandTable.globalOptions) ?? ""
      for line in text.split(separator: "\n") {
        #expect(line.count <= 80 || !line.contains(" "), "\(path): \(line)")
      }
    }
  }

  @Test func wrapping() {
    #expect(
      TextLayout.wrap("aaa bbb ccc", width: 8, first: "> ", rest: "  ") == [
        "> aaa", "  bbb", "  ccc",
      ])
    #expect(TextLayout.wrap("", first: "x", rest: "") == ["x"])
    let paragraphs = TextLayout.paragraphs("one\ntwo\n\n  code\n  more\n\nthree")
    #expect(paragraphs.map(\.verbatim) == [false, true, false])
  }
}
