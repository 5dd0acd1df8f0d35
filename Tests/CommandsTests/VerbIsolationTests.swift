import Foundation
import Testing

/// No verb file names another verb's type (issue 28): like git's builtins, verbs share code
/// through `Sources/Commands/Shared`, never by calling one another. The verb types are read
/// off the files themselves, so a new verb is covered without a change here.
@Suite struct VerbIsolationTests {
  /// The files of `Sources/Commands/Verbs`, by name, with their text.
  static func verbFiles() throws -> [(name: String, text: String)] {
    let folder = TestSupport.packageRoot.appendingPathComponent("Sources/Commands/Verbs")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".swift") }.sorted()
    return try names.map { name in
      (name, try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
    }
  }

  /// The verb types: each top-level type whose body declares a `spec` (the other types of a
  /// verb's files, `String` extended there, are not verbs).
  static func verbTypes(_ files: [(name: String, text: String)]) -> Set<String> {
    var types: Set<String> = []
    for file in files {
      var current: String?
      for line in file.text.split(separator: "\n", omittingEmptySubsequences: false) {
        if let name = declaredTypes(String(line)).first { current = name }
        if line.contains("static let spec = CommandSpec("), let current { types.insert(current) }
      }
    }
    return types
  }

  /// The names a file declares or extends at top level (`enum Ls {`, `extension Ls {`,
  /// `extension Ls.Output {`: `Ls`).
  static func declaredTypes(_ text: String) -> Set<String> {
    var names: Set<String> = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      for keyword in ["enum ", "struct ", "extension "] where line.hasPrefix(keyword) {
        let rest = line.dropFirst(keyword.count)
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        if !name.isEmpty { names.insert(String(name)) }
      }
    }
    return names
  }

  /// The code of `text` without comments and the text of string literals, where a verb's
  /// name may appear as a word (an interpolation's code is kept).
  static func code(_ text: String) -> String {
    var out = ""
    var inBlock = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if let fence = line.range(of: "\"\"\"") {
        // A multi-line literal opens or closes on this line; its text is not code.
        if !inBlock { out += code(line: line[..<fence.lowerBound]) }
        out += "\n"
        inBlock.toggle()
        continue
      }
      out += (inBlock ? "" : code(line: line)) + "\n"
    }
    return out
  }

  /// One line's code: what lies outside string literals and before a `//` comment.
  static func code(line: Substring) -> String {
    // Each open literal, and each open interpolation with its depth of parentheses.
    enum Nesting { case string, interpolation(Int) }
    var stack: [Nesting] = []
    var kept = ""
    var characters = Array(line)[...]
    while let character = characters.popFirst() {
      switch stack.last {
      case .string:
        if character == "\\" {
          if characters.first == "(" {
            characters.removeFirst()
            stack.append(.interpolation(1))
          } else {
            _ = characters.popFirst()
          }
        } else if character == "\"" {
          stack.removeLast()
        }
      case .interpolation(let depth):
        if character == "\"" {
          stack.append(.string)
          continue
        }
        if character == "(" { stack[stack.count - 1] = .interpolation(depth + 1) }
        if character == ")" {
          stack.removeLast()
          if depth > 1 { stack.append(.interpolation(depth - 1)) } else { continue }
        }
        kept.append(character)
      case nil:
        if character == "/" && characters.first == "/" { return kept }
        if character == "\"" {
          stack.append(.string)
        } else {
          kept.append(character)
        }
      }
    }
    return kept
  }

  /// The words (identifiers) of `code`.
  static func words(_ code: String) -> Set<String> {
    var words: Set<String> = []
    var current = ""
    for character in code {
      if character.isLetter || character.isNumber || character == "_" {
        current.append(character)
      } else {
        if !current.isEmpty { words.insert(current) }
        current = ""
      }
    }
    if !current.isEmpty { words.insert(current) }
    return words
  }

  @Test func theVerbTypesAreFound() throws {
    let types = Self.verbTypes(try Self.verbFiles())
    // A few verbs, named here so that a broken reading of the files fails loudly.
    for verb in ["Ls", "MergeConflicts", "Watch", "Migrate", "Resolve", "Fetch"] {
      #expect(types.contains(verb), "\(verb) is not found as a verb type")
    }
    #expect(!types.contains("String") && !types.contains("FetchOptionNames"))
  }

  @Test func theCheckSeesAReference() {
    let text = """
      extension Watch {
        // Ls.select in a comment is not a reference.
        static let note = "Ls.select in a string is not one either"
        static func run() { _ = Ls.select }
      }
      """
    let words = Self.words(Self.code(text))
    #expect(words.contains("Ls"))
    #expect(Self.declaredTypes(text) == ["Watch"])
    #expect(!Self.words(Self.code("// Ls\nlet a = \"Ls\"\n")).contains("Ls"))
    #expect(Self.words(Self.code("let a = \"(\\(Ls.name))\"\n")).contains("Ls"))
  }

  @Test func noVerbFileNamesAnotherVerb() throws {
    let files = try Self.verbFiles()
    let verbs = Self.verbTypes(files)
    for file in files {
      let own = Self.declaredTypes(file.text)
      let named = Self.words(Self.code(file.text)).intersection(verbs).subtracting(own)
      #expect(
        named.isEmpty,
        """
        Sources/Commands/Verbs/\(file.name) names \(named.sorted().joined(separator: ", ")): \
        move what they share to Sources/Commands/Shared
        """)
    }
  }
}
