import Platform

/// `mn watch --service systemd|launchd`: the unit or agent that runs the watcher (mn.md §12).
///
/// `systemdUnit` and `launchAgent` are pure: packaging uses the same functions (with
/// `/usr/bin/mn`), so that there is one source for the unit.
extension Watch {
  /// The launchd label, also the agent's file name without `.plist`.
  static let launchdLabel = "tools.minuta.mn-watch"
  /// The unit's file name.
  static let systemdUnitName = "mn-watch.service"

  /// A systemd user unit that runs `executable watch ARGUMENTS…`.
  static func systemdUnit(executable: String, arguments: [String] = []) -> String {
    let command = ([executable, "watch"] + arguments).map(systemdQuoted).joined(separator: " ")
    return """
      [Unit]
      Description=Keep the Minuta data folder healthy (mn watch)
      Documentation=man:mn-watch(1)

      [Service]
      Type=simple
      ExecStart=\(command)
      Restart=on-failure
      RestartSec=10

      [Install]
      WantedBy=default.target

      """
  }

  /// A LaunchAgent property list that runs `executable watch ARGUMENTS…` at login and again
  /// whenever it stops with a failure, its standard output (`--json`'s lines) and standard
  /// error going to `logPath`.
  static func launchAgent(executable: String, arguments: [String] = [], logPath: String) -> String {
    let program = ([executable, "watch"] + arguments).map {
      "    <string>\(xmlEscaped($0))</string>\n"
    }.joined()
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
        <key>Label</key>
        <string>\(launchdLabel)</string>
        <key>ProgramArguments</key>
        <array>
      \(program)  </array>
        <key>RunAtLoad</key>
        <true/>
        <key>KeepAlive</key>
        <dict>
          <key>SuccessfulExit</key>
          <false/>
        </dict>
        <key>ProcessType</key>
        <string>Background</string>
        <key>StandardOutPath</key>
        <string>\(xmlEscaped(logPath))</string>
        <key>StandardErrorPath</key>
        <string>\(xmlEscaped(logPath))</string>
      </dict>
      </plist>

      """
  }

  /// The unit or agent for `mn watch` run with this invocation's other options.
  static func service(_ kind: ServiceKind, _ call: Invocation, _ env: Environment) -> String {
    let arguments = serviceArguments(call, env)
    let executable = runningExecutable(env) ?? "/usr/bin/mn"
    if kind == .launchd {
      let home = env.variables["HOME"] ?? "/tmp"
      return launchAgent(
        executable: executable, arguments: arguments,
        logPath: AbsolutePath(home).appending("Library/Logs/mn-watch.log").string)
    }
    return systemdUnit(executable: executable, arguments: arguments)
  }

  /// The options of this run that the service should run with: `--root` and every watch
  /// option but `--service` and `--once`, paths made absolute.
  static func serviceArguments(_ call: Invocation, _ env: Environment) -> [String] {
    var arguments: [String] = []
    if let root = call.global.root {
      arguments += [
        "--root",
        AbsolutePath(normalizing: root, relativeTo: env.currentDirectory).string,
      ]
    }
    let left = [Options.service.spec.name, Options.once.spec.name]
    for option in spec.options where !left.contains(option.name) {
      if option.value == nil {
        if call.isGiven(option) { arguments.append("--" + option.name) }
      } else if var value = call.word(for: option) {
        if option.value == .path {
          value =
            AbsolutePath(normalizing: value, relativeTo: env.currentDirectory).string
        }
        arguments += ["--" + option.name, value]
      }
    }
    return arguments
  }

  /// The path of the running `mn` for a service to run: the path it was started as
  /// (`servicePath`); nil when the system does not say.
  static func runningExecutable(_ env: Environment) -> String? {
    ExecutablePath.current(readLink: { try env.fileSystem.readLink(AbsolutePath($0)) }).map {
      servicePath($0, currentDirectory: env.currentDirectory)
    }
  }

  /// `started` made absolute (links not followed), and a Homebrew keg's versioned path
  /// (`PREFIX/Cellar/mn/VERSION/bin/mn`) replaced by the keg's stable link
  /// (`PREFIX/opt/mn/bin/mn`), which survives an upgrade.
  static func servicePath(_ started: String, currentDirectory: AbsolutePath) -> String {
    let path = AbsolutePath(normalizing: started, relativeTo: currentDirectory)
      .string
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard let cellar = parts.lastIndex(of: "Cellar"), parts.count == cellar + 5,
      parts[cellar + 1] == "mn", parts[cellar + 3] == "bin"
    else { return path }
    return (parts[..<cellar] + ["opt", "mn", "bin", parts[cellar + 4]]).joined(separator: "/")
  }

  /// A word for `ExecStart=`: quoted when it holds anything but plain characters; `%` and
  /// `$` doubled (systemd.service(5), "Command lines"; systemd.unit(5), "Specifiers").
  static func systemdQuoted(_ word: String) -> String {
    var escaped = ""
    for character in word {
      switch character {
      case "%": escaped += "%%"
      case "$": escaped += "$$"
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      default: escaped.append(character)
      }
    }
    let plain =
      !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "/._-+=:,@".contains($0) }
    return plain ? escaped : "\"\(escaped)\""
  }

  static func xmlEscaped(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(character)
      }
    }
    return out
  }
}
