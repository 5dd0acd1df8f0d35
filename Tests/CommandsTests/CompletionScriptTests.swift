import Foundation
import Testing

@testable import Commands

/// The completion scripts, run in real bash, zsh and fish.
@Suite struct CompletionScriptTests {
  /// A scratch directory with the scripts of a table, a stub `mn` on PATH and a few files.
  final class Sandbox {
    let root: URL
    var bin: URL { root.appendingPathComponent("bin") }
    var scripts: URL { root.appendingPathComponent("completions") }
    var files: URL { root.appendingPathComponent("files") }

    init(commands: [CommandSpec]) throws {
      root = try TestSupport.temporaryDirectory()
      let fm = FileManager.default
      for url in [
        bin, scripts, files, files.appendingPathComponent("sub"),
        root.appendingPathComponent("home"),
      ] {
        try fm.createDirectory(at: url, withIntermediateDirectories: true)
      }
      try "".write(to: files.appendingPathComponent("file.txt"), atomically: true, encoding: .utf8)
      for (name, text) in CompletionRenderer.scripts(
        commands: commands, globals: TestSupport.globals)
      {
        try text.write(to: scripts.appendingPathComponent(name), atomically: true, encoding: .utf8)
      }
      // The stub stands for `mn __complete document`: two sets of names, by --root.
      let stub = """
        #!/bin/sh
        root=""
        if [ "$1" = "--root" ]; then root="$2"; shift 2; fi
        [ "$1" = "__complete" ] && [ "$2" = "document" ] || exit 64
        shift 2
        [ "$1" = "--" ] && shift
        if [ -n "$root" ]; then set -- "$1" records/1999/01.automerge
        else set -- "$1" tags.automerge records/2026/09.automerge records/2026/10.automerge; fi
        prefix="$1"; shift
        for name in "$@"; do case "$name" in "$prefix"*) echo "$name" ;; esac; done
        """
      let stubURL = bin.appendingPathComponent("mn")
      try stub.write(to: stubURL, atomically: true, encoding: .utf8)
      try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stubURL.path)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var environment: [String: String] {
      [
        "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
        "HOME": root.appendingPathComponent("home").path,
        "XDG_CONFIG_HOME": root.appendingPathComponent("home/.config").path,
        "XDG_DATA_HOME": root.appendingPathComponent("home/.local/share").path,
      ]
    }
  }

  static func quoted(_ word: String) -> String { CompletionModel.quote(word) }

  /// Completes `line` in bash: the words split as bash would (`=` separate), the last being
  /// completed (empty after a final blank).
  static func bash(_ line: String, in sandbox: Sandbox, script: URL? = nil) throws -> [String] {
    var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    if line.hasSuffix(" ") { words.append("") }
    words = words.flatMap { word -> [String] in
      guard word.hasPrefix("-"), let eq = word.firstIndex(of: "=") else { return [word] }
      return [String(word[..<eq]), "=", String(word[word.index(after: eq)...])]
    }
    let program = """
      source \(quoted((script ?? sandbox.scripts.appendingPathComponent("mn.bash")).path))
      COMP_WORDS=(\(words.map(quoted).joined(separator: " ")))
      COMP_CWORD=\(words.count - 1)
      COMP_LINE=\(quoted(line))
      COMP_POINT=${#COMP_LINE}
      _mn
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try TestSupport.run(
      "bash", ["--norc", "--noprofile", "-c", program], environment: sandbox.environment)
    #expect(result.status == 0, "bash: \(result.stderr)")
    return result.stdout.split(separator: "\n").map(String.init)
  }

  /// Completes `line` in fish with `complete -C`.
  static func fish(_ line: String, in sandbox: Sandbox, script: URL? = nil) throws -> [String] {
    let path = (script ?? sandbox.scripts.appendingPathComponent("mn.fish")).path
    let result = try TestSupport.run(
      "fish", ["--no-config", "-c", "source \(quoted(path)); complete -C \(quoted(line))"],
      environment: sandbox.environment)
    #expect(result.status == 0, "fish: \(result.stderr)")
    return result.stdout.split(separator: "\n").map {
      String($0.split(separator: "\t", maxSplits: 1).first ?? "")
    }
  }

  /// Completes `line` in an interactive zsh driven through zpty, `compadd` captured.
  static func zsh(_ line: String, in sandbox: Sandbox, scripts: URL? = nil) throws -> [String] {
    let initScript = sandbox.root.appendingPathComponent("init.zsh")
    try """
    autoload -Uz compinit
    compinit -u -D
    bindkey '^M' undefined
    bindkey '^J' undefined
    bindkey '^I' complete-word
    null-line() { print -n -- $'\\0\\r\\n' }
    compprefuncs=( null-line )
    comppostfuncs=( null-line exit )
    zstyle ':completion:*' list-grouped false
    zstyle ':completion:*' insert-tab false
    compadd() {
      if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then
        builtin compadd "$@"
        return $?
      fi
      typeset -a __hits
      builtin compadd -A __hits "$@"
      local h
      for h in $__hits; do print -r -- "MATCH:$h"; done
    }
    """.write(to: initScript, atomically: true, encoding: .utf8)
    let driver = """
      zmodload zsh/zpty
      zpty z zsh -f -i
      zpty -w z "PROMPT= ; RPROMPT= ; fpath=(\((scripts ?? sandbox.scripts).path) \\$fpath); source \(initScript.path)"
      zpty -w z \(quoted(line))$'\\t'
      integer tog=0
      local row
      while zpty -r z row; do
        if [[ $row == *$'\\0'* ]]; then
          (( tog++ )) && break || continue
        fi
        (( tog )) && print -r -- "${row%$'\\r'}"
      done
      zpty -d z
      """
    let result = try TestSupport.run(
      "timeout", ["20", "zsh", "-f", "-c", driver], environment: sandbox.environment)
    #expect(result.status == 0, "zsh: \(result.stderr)")
    return result.stdout.split(whereSeparator: \.isNewline).compactMap { row in
      row.hasPrefix("MATCH:") ? String(row.dropFirst(6)) : nil
    }
  }

  static func complete(_ shell: Shell, _ line: String, in sandbox: Sandbox) throws -> [String] {
    switch shell {
    case .bash: return try bash(line, in: sandbox)
    case .zsh: return try zsh(line, in: sandbox)
    case .fish: return try fish(line, in: sandbox)
    }
  }

  @Test func shellsAreInstalled() {
    for shell in ["bash", "zsh", "fish"] {
      #expect(TestSupport.onPath(shell), "\(shell) is not on PATH; install it to run these tests")
    }
  }

  /// Lines and what they complete to, on the test table; `{files}` is the files folder.
  static let cases: [(line: String, expected: [String])] = [
    ("mn merge-c", ["merge-conflicts"]),
    ("mn ", ["merge-conflicts", "export", "resolve", "where", "doc", "help"]),
    ("mn --json res", ["resolve"]),
    ("mn resolve --ex", ["--explain"]),
    ("mn where --ex", ["--explain"]),
    ("mn export --format ", ["tar", "tar.gz", "zip"]),
    ("mn export --format t", ["tar", "tar.gz"]),
    ("mn export --format=t", ["tar", "tar.gz"]),
    ("mn doc ", ["info", "merge"]),
    ("mn doc merge --out", ["--output"]),
    ("mn help ", ["merge-conflicts", "export", "resolve", "where", "doc", "help"]),
    ("mn help doc i", ["info"]),
    ("mn merge-conflicts rec", ["records/2026/09.automerge", "records/2026/10.automerge"]),
    ("mn merge-conflicts --wait 3 t", ["tags.automerge"]),
    ("mn --root /alt merge-conflicts rec", ["records/1999/01.automerge"]),
    ("mn merge-conflicts -- --", []),
    ("mn --root {files}/s", ["{files}/sub"]),
    ("mn doc info {files}/fi", ["{files}/file.txt"]),
    ("mn doc merge -o {files}/fi", ["{files}/file.txt"]),
    ("mn doc merge --output={files}/s", ["{files}/sub"]),
  ]

  static func normalize(_ values: [String], shell: Shell, line: String) -> Set<String> {
    let files = line.contains("/")
    return Set(
      values.map { value in
        var value = value
        // fish answers `--format=t` with whole words; the others with the value alone.
        if shell == .fish, let eq = line.split(separator: " ").last?.firstIndex(of: "="),
          let word = line.split(separator: " ").last, value.hasPrefix(word[...eq])
        {
          value = String(value.dropFirst(word[...eq].count))
        }
        while value.hasSuffix("/") { value.removeLast() }
        // zsh's _files adds the directory part as a prefix, outside the match.
        if files, let slash = value.lastIndex(of: "/") {
          value = String(value[value.index(after: slash)...])
        }
        return value
      })
  }

  @Test(arguments: Shell.allCases)
  func completesTheTestTable(_ shell: Shell) throws {
    let sandbox = try Sandbox(commands: TestSupport.commands)
    for (line, expected) in Self.cases {
      let line = line.replacing("{files}", with: sandbox.files.path)
      let expected = Self.normalize(
        expected.map { $0.replacing("{files}", with: sandbox.files.path) }, shell: .bash, line: line
      )
      let actual = Self.normalize(
        try Self.complete(shell, line, in: sandbox), shell: shell, line: line)
      #expect(actual == expected, "\(shell): '\(line)'")
    }
  }

  /// Lines on the test table's groups (`merge-conflicts --check | --dry-run`, `export
  /// --reproducible | --json`) and what they complete to: once one member is on the line,
  /// its partners are not offered, whichever form (short, long, before the verb) it took.
  static let exclusions: [(line: String, expected: [String])] = [
    ("mn merge-conflicts --dr", ["--dry-run"]),
    ("mn merge-conflicts --check --dr", []),
    ("mn merge-conflicts --ch", ["--check"]),
    ("mn merge-conflicts -n --ch", []),
    ("mn merge-conflicts --dry-run --ch", []),
    ("mn merge-conflicts --check --wa", ["--wait"]),
    ("mn export --j", ["--json"]),
    ("mn export -r --j", []),
    ("mn export --reproducible --j", []),
    ("mn export --re", ["--reproducible"]),
    ("mn export --json --re", []),
    ("mn --json export --re", []),
    ("mn --json resolve --ex", ["--explain"]),
  ]

  @Test(arguments: Shell.allCases)
  func excludedOptionsAreNotOffered(_ shell: Shell) throws {
    let sandbox = try Sandbox(commands: TestSupport.commands)
    for (line, expected) in Self.exclusions {
      let actual = Self.normalize(
        try Self.complete(shell, line, in: sandbox), shell: shell, line: line)
      #expect(actual == Set(expected), "\(shell): '\(line)'")
    }
  }

  @Test(arguments: Shell.allCases)
  func hiddenVerbsAreNotOffered(_ shell: Shell) throws {
    let sandbox = try Sandbox(commands: TestSupport.commands)
    #expect(try Self.complete(shell, "mn __", in: sandbox).isEmpty)
  }

  @Test func zshScriptParses() throws {
    let url = TestSupport.packageRoot.appendingPathComponent("completions/_mn")
    let result = try TestSupport.run("zsh", ["-n", url.path])
    #expect(result.status == 0, "\(result.stderr)")
    let bash = try TestSupport.run(
      "bash", ["-n", TestSupport.packageRoot.appendingPathComponent("completions/mn.bash").path])
    #expect(bash.status == 0, "\(bash.stderr)")
    let fish = try TestSupport.run(
      "fish",
      ["--no-execute", TestSupport.packageRoot.appendingPathComponent("completions/mn.fish").path])
    #expect(fish.status == 0, "\(fish.stderr)")
  }

  /// The checked-in scripts offer every visible verb and each verb's options.
  @Test(arguments: Shell.allCases)
  func checkedInScriptsCoverTheTable(_ shell: Shell) throws {
    let sandbox = try Sandbox(commands: [])
    let folder = TestSupport.packageRoot.appendingPathComponent("completions")
    let complete: (String) throws -> [String] = { line in
      switch shell {
      case .bash:
        return try Self.bash(line, in: sandbox, script: folder.appendingPathComponent("mn.bash"))
      case .zsh: return try Self.zsh(line, in: sandbox, scripts: folder)
      case .fish:
        return try Self.fish(line, in: sandbox, script: folder.appendingPathComponent("mn.fish"))
      }
    }
    let visible = CommandTable.commands.visible
    let verbs = Set(try complete("mn "))
    #expect(verbs == Set(visible.flatMap(\.allNames)), "\(shell): verbs")
    for spec in visible {
      let options = Set(try complete("mn \(spec.name) --"))
      for option in spec.options + CommandTable.globalOptions {
        #expect(options.contains("--\(option.name)"), "\(shell): mn \(spec.name) --\(option.name)")
      }
      if case .choice(let words) = spec.arguments.first?.kind {
        #expect(Set(try complete("mn \(spec.name) ")) == Set(words), "\(shell): mn \(spec.name)")
      }
      for sub in spec.visibleSubcommands {
        #expect(
          try complete("mn \(spec.name) ").contains(sub.name),
          "\(shell): mn \(spec.name) \(sub.name)")
      }
    }
  }
}
