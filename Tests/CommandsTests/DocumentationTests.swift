import Foundation
import Testing

@testable import Commands

/// The README and `docs/` agree with the code and with one another: every relative link
/// resolves, and what the README lists (verbs, exit statuses, environment variables, the
/// two commands a newcomer types) is what the command table and the Makefile hold.
@Suite struct DocumentationTests {
  /// A Markdown file of the package, by its path relative to the package root.
  struct Page {
    var path: String
    var text: String

    init(path: String, text: String) {
      self.path = path
      self.text = text
    }

    init(_ path: String) throws {
      self.path = path
      text = try String(
        contentsOf: TestSupport.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The lines outside fenced code blocks.
    var prose: [Substring] {
      var inFence = false
      var lines: [Substring] = []
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
          inFence.toggle()
        } else if !inFence {
          lines.append(line)
        }
      }
      return lines
    }

    /// The targets of the inline links `[text](target)` outside code blocks.
    var linkTargets: [String] {
      var targets: [String] = []
      for line in prose {
        var rest = line[...]
        while let open = rest.range(of: "](") {
          let after = rest[open.upperBound...]
          guard let close = after.firstIndex(of: ")") else { break }
          targets.append(String(after[..<close]))
          rest = after[close...]
        }
      }
      return targets
    }

    /// GitHub's anchors of the headings: lowercased, spaces to hyphens, punctuation dropped.
    var anchors: Set<String> {
      var result: Set<String> = []
      for line in prose where line.hasPrefix("#") {
        let title = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
        var anchor = ""
        for character in title.lowercased() {
          if character == " " {
            anchor.append("-")
          } else if character.isLetter || character.isNumber || character == "-"
            || character == "_"
          {
            anchor.append(character)
          }
        }
        result.insert(anchor)
      }
      return result
    }

    /// The prose lines of the section under `## title`, up to the next `## ` heading.
    func section(_ title: String) -> [Substring] {
      let lines = prose
      guard let start = lines.firstIndex(of: "## \(title)"[...]) else { return [] }
      let body = lines[(start + 1)...]
      return Array(body.prefix(while: { !$0.hasPrefix("## ") }))
    }
  }

  /// README.md, every file in docs/ and each target's README.md.
  static func pages() throws -> [Page] {
    let root = TestSupport.packageRoot
    var paths = ["README.md"]
    let docs = try FileManager.default.contentsOfDirectory(
      atPath: root.appendingPathComponent("docs").path)
    paths += docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    let sources = try FileManager.default.contentsOfDirectory(
      atPath: root.appendingPathComponent("Sources").path)
    for target in sources.sorted()
    where FileManager.default.fileExists(
      atPath: root.appendingPathComponent("Sources/\(target)/README.md").path)
    {
      paths.append("Sources/\(target)/README.md")
    }
    return try paths.map(Page.init)
  }

  @Test func everyRelativeLinkResolves() throws {
    let pages = try Self.pages()
    var checked = 0
    for page in pages {
      for target in page.linkTargets {
        if target.contains("://") || target.hasPrefix("mailto:") { continue }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : nil
        let here = TestSupport.packageRoot.appendingPathComponent(page.path)
        let resolved =
          file.isEmpty
          ? here : here.deletingLastPathComponent().appendingPathComponent(file).standardizedFileURL
        checked += 1
        guard FileManager.default.fileExists(atPath: resolved.path) else {
          Issue.record("\(page.path): the link \(target) names no file")
          continue
        }
        guard let fragment, resolved.pathExtension == "md" else { continue }
        let linked = try String(contentsOf: resolved, encoding: .utf8)
        let anchors = Page(path: resolved.path, text: linked).anchors
        #expect(anchors.contains(fragment), "\(page.path): the link \(target) names no heading")
      }
    }
    #expect(checked > 30, "the README and docs/ link to one another")
  }

  @Test func theReadmeIsShort() throws {
    let lines = try Page("README.md").text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count < 250, "README.md has \(lines.count) lines: move detail into docs/")
  }

  @Test func theReadmeToursEveryVerb() throws {
    let tour = try Page("README.md").section("A tour of the verbs").joined(separator: "\n")
    for spec in CommandTable.commands where !spec.flags.contains(.hidden) {
      #expect(tour.contains("`\(spec.name)`"), "the README's tour does not name \(spec.name)")
    }
  }

  @Test func theReadmeListsEveryExitStatus() throws {
    var listed: [Int32] = []
    for line in try Page("README.md").section("Exit status") where line.hasPrefix("| ") {
      let cell = line.dropFirst(2).prefix(while: { $0 != " " })
      if let code = Int32(cell) { listed.append(code) }
    }
    #expect(listed == ExitStatus.allCases.map(\.rawValue))
  }

  @Test func theReadmeNamesEveryEnvironmentVariable() throws {
    let section = try Page("README.md").section("Environment").joined(separator: "\n")
    for variable in CommandTable.environment {
      #expect(section.contains(variable.name), "the README does not name \(variable.name)")
    }
  }

  /// `make demo` and `make test` are what the README tells a newcomer to type, targets of
  /// the Makefile, and (`make test`) what CI runs.
  @Test func theTwoCommandsAreTheMakefilesAndCIs() throws {
    let readme = try Page("README.md").text
    let makefile = try Page("Makefile").text.split(separator: "\n")
    let ci = try Page(".ci/run").text.split(separator: "\n")
    for target in ["demo", "test"] {
      #expect(readme.contains("```sh\nmake \(target)\n```"), "README: make \(target)")
      #expect(makefile.contains { $0.hasPrefix("\(target):") }, "Makefile: \(target):")
    }
    #expect(ci.contains("make test"))
  }
}
