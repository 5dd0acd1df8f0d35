extension CompletionRenderer {
  static func fish(_ model: CompletionModel) -> String {
    typealias M = CompletionModel
    var s: [String] = [
      header,
      "# Fish completion for mn: install as share/fish/vendor_completions.d/mn.fish.",
      "",
      "# The canonical name of verb $argv[2] after the verb path $argv[1]; fails for other words.",
      "function __fish_mn_verb",
      "    switch \"$argv[1]|$argv[2]\"",
    ]
    for node in model.nodes {
      let parent = node.path.dropLast().joined(separator: " ")
      let patterns = node.spec.allNames.map { M.fishQuote(parent + "|" + $0) }
      s += [
        "        case \(patterns.joined(separator: " "))",
        "            echo \(M.fishQuote(node.spec.name))",
      ]
    }
    s += ["        case '*'", "            return 1", "    end", "end", ""]
    s += [
      "# The value kind of option $argv[2] of the verb path $argv[1]; fails for flags.",
      "function __fish_mn_value_kind",
      "    switch \"$argv[1]|$argv[2]\"",
    ]
    for node in model.nodes {
      for option in node.spec.options {
        guard let kind = option.value else { continue }
        let patterns = optionWords(option).map { M.fishQuote(node.key + "|" + $0) }
        s += [
          "        case \(patterns.joined(separator: " "))",
          "            echo \(M.fishQuote(M.code(kind)))",
        ]
      }
    }
    for option in model.globals {
      guard let kind = option.value else { continue }
      let patterns = optionWords(option).map { M.fishQuote("*|" + $0) }
      s += [
        "        case \(patterns.joined(separator: " "))",
        "            echo \(M.fishQuote(M.code(kind)))",
      ]
    }
    s += ["        case '*'", "            return 1", "    end", "end", ""]
    s += [
      "# The options that option $argv[2] of the verb path $argv[1] rules out (its groups'",
      "# other members).",
      "function __fish_mn_excludes",
      "    switch \"$argv[1]|$argv[2]\"",
    ]
    for node in model.nodes {
      for (word, excludes) in model.exclusions(at: node) {
        s += [
          "        case \(M.fishQuote(node.key + "|" + word))",
          "            printf '%s\\n' \(excludes.map(M.fishQuote).joined(separator: " "))",
        ]
      }
    }
    s += ["    end", "end", ""]
    s += #"""
      # Prints the verb path, the count of positional arguments after it, the verb path
      # after `mn help`, the --root value, and then every option word given, a line each.
      function __fish_mn_state
          set -l tokens (commandline -opc)
          set -e tokens[1]
          set -l vpath ''
          set -l hpath ''
          set -l helping 0
          set -l root ''
          set -l expect ''
          set -l ended 0
          set -l npos 0
          set -l name
          set -l seen
          for word in $tokens
              if test -n "$expect"
                  test "$expect" = --root; and set root $word
                  set expect ''
                  continue
              end
              if test $ended = 0
                  switch $word
                      case --
                          set ended 1
                          continue
                      case '--root=*'
                          set root (string replace -- --root= '' $word)
                          continue
                      case '-?*=*'
                          set -a seen (string replace -r -- '=.*' '' $word)
                          continue
                      case '-?*'
                          set -a seen $word
                          __fish_mn_value_kind "$vpath" $word >/dev/null; and set expect $word
                          continue
                  end
              end
              if test $helping = 1
                  if set name (__fish_mn_verb "$hpath" $word)
                      set hpath (string trim -- "$hpath $name")
                  end
              else if test $npos = 0; and set name (__fish_mn_verb "$vpath" $word)
                  set vpath (string trim -- "$vpath $name")
                  test "$vpath" = help; and set helping 1
              else
                  set npos (math $npos + 1)
              end
          end
          printf '%s\n' "$vpath" $npos "$hpath" "$root" $seen
      end

      # Whether option $argv[1] is still open: no option given rules it out.
      function __fish_mn_allowed
          set -l state (__fish_mn_state)
          for word in $state[5..-1]
              contains -- $argv[1] (__fish_mn_excludes "$state[1]" $word); and return 1
          end
          return 0
      end

      # Whether the verbs after the verb path $argv[1] are wanted now.
      function __fish_mn_verbs_at
          set -l state (__fish_mn_state)
          test "$state[1]" = "$argv[1]"; and test "$state[2]" = 0; and test "$state[1]" != help
      end

      # Whether `mn help` is being given the verb path $argv[1].
      function __fish_mn_help_at
          set -l state (__fish_mn_state)
          test "$state[1]" = help; and test "$state[3]" = "$argv[1]"
      end

      # Whether the command line is at the verb path $argv[1].
      function __fish_mn_in
          set -l state (__fish_mn_state)
          test "$state[1]" = "$argv[1]"
      end

      # Whether positional argument $argv[2] (from 0; $argv[3] set: or later) of the verb
      # path $argv[1] is being completed.
      function __fish_mn_argument
          set -l state (__fish_mn_state)
          test "$state[1]" = "$argv[1]"; or return 1
          if set -q argv[3]
              test "$state[2]" -ge "$argv[2]"
          else
              test "$state[2]" = "$argv[2]"
          end
      end

      # The documents of the data folder, from `mn __complete document`.
      function __fish_mn_documents
          set -l state (__fish_mn_state)
          set -l rootargs
          test -n "$state[4]"; and set rootargs --root $state[4]
          mn $rootargs __complete document -- (commandline -ct) 2>/dev/null
      end

      complete -c mn -f
      """#.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for (key, verbs) in model.verbLists {
      for verb in verbs {
        for name in verb.allNames {
          s.append(
            "complete -c mn -n \(M.fishQuote("__fish_mn_verbs_at " + M.fishQuote(key))) -a \(M.fishQuote(name)) -d \(M.fishQuote(verb.abstract))"
          )
          s.append(
            "complete -c mn -n \(M.fishQuote("__fish_mn_help_at " + M.fishQuote(key))) -a \(M.fishQuote(name)) -d \(M.fishQuote(verb.abstract))"
          )
        }
      }
    }
    let grouped = Set(model.nodes.flatMap { $0.spec.groups.flatMap(\.names) })
    func allowed(_ option: OptionSpec) -> String {
      "__fish_mn_allowed " + M.fishQuote("--" + option.name)
    }
    for option in model.globals {
      let condition = grouped.contains(option.name) ? "-n \(M.fishQuote(allowed(option))) " : ""
      s.append("complete -c mn " + condition + fishOption(option))
    }
    for node in model.nodes {
      for option in node.spec.options {
        var test = "__fish_mn_in " + M.fishQuote(node.key)
        if M.isGrouped(option, at: node) { test += "; and " + allowed(option) }
        s.append("complete -c mn -n \(M.fishQuote(test)) " + fishOption(option))
      }
      guard node.spec.name != "help" || node.path.count > 1 else { continue }
      for (index, argument) in node.spec.arguments.enumerated() {
        let test =
          "__fish_mn_argument " + M.fishQuote(node.key) + " \(index)"
          + (argument.variadic ? " +" : "")
        s.append("complete -c mn -n \(M.fishQuote(test)) " + fishValues(argument.kind))
      }
    }
    return s.joined(separator: "\n") + "\n"
  }

  /// `-s q -l quiet -d '...'`, with what its value completes to.
  static func fishOption(_ option: OptionSpec) -> String {
    var words: [String] = []
    if let short = option.short { words += ["-s", CompletionModel.fishQuote(String(short))] }
    words += ["-l", CompletionModel.fishQuote(option.name)]
    if let kind = option.value { words.append(fishValues(kind)) }
    words += ["-d", CompletionModel.fishQuote(HelpRenderer.optionHelp(option))]
    return words.joined(separator: " ")
  }

  /// The `complete` flags that offer values of a kind.
  static func fishValues(_ kind: ValueKind) -> String {
    switch kind {
    case .path: return "-r -F"
    case .directory: return "-x -a '(__fish_complete_directories (commandline -ct) \"\")'"
    case .document: return "-x -a '(__fish_mn_documents)'"
    case .command: return "-x -a '(__fish_complete_command)'"
    case .choice(let words):
      return "-x -a " + CompletionModel.fishQuote(words.joined(separator: " "))
    case .text, .seconds, .count: return "-x"
    }
  }
}
