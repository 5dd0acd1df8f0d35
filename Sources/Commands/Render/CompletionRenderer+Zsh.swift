extension CompletionRenderer {
  static func zsh(_ model: CompletionModel) -> String {
    typealias M = CompletionModel
    var s: [String] = [
      "#compdef mn",
      header,
      "# Zsh completion for mn: install as share/zsh/site-functions/_mn.",
      "",
      "# Sets reply to the verbs (name:abstract) after the verb path $1.",
      "_mn_verbs() {",
      "  case \"$1\" in",
    ]
    for (key, verbs) in model.verbLists {
      let entries = verbs.flatMap { verb in verb.allNames.map { M.quote($0 + ":" + verb.abstract) }
      }
      s.append("    \(M.quote(key))) reply=(\(entries.joined(separator: " "))) ;;")
    }
    s += ["    *) reply=() ;;", "  esac", "}", ""]
    s += [
      "# Sets REPLY to the canonical name of verb $2 after the verb path $1; fails for other words.",
      "_mn_verb() {",
      "  case \"$1|$2\" in",
    ]
    for node in model.nodes {
      let parent = node.path.dropLast().joined(separator: " ")
      let patterns = node.spec.allNames.map { M.quote(parent + "|" + $0) }
      s.append("    \(patterns.joined(separator: "|"))) REPLY=\(M.quote(node.spec.name)) ;;")
    }
    s += ["    *) return 1 ;;", "  esac", "}", ""]
    func entries(_ options: [OptionSpec]) -> [String] {
      options.flatMap { option in
        optionWords(option).map { M.quote($0 + ":" + HelpRenderer.optionHelp(option)) }
      }
    }
    let globalEntries = entries(model.globals).joined(separator: " ")
    s += [
      "# Sets reply to the options (name:help) of the verb path $1.", "_mn_options() {",
      "  case \"$1\" in",
    ]
    for node in model.nodes where !node.spec.options.isEmpty {
      s.append(
        "    \(M.quote(node.key))) reply=(\(entries(node.spec.options).joined(separator: " ")) \(globalEntries)) ;;"
      )
    }
    s += ["    *) reply=(\(globalEntries)) ;;", "  esac", "}", ""]
    s += [
      "# Sets reply to the options that option $2 of the verb path $1 rules out (its groups'",
      "# other members).",
      "_mn_excludes() {",
      "  case \"$1|$2\" in",
    ]
    for node in model.nodes {
      for (word, excludes) in model.exclusions(at: node) {
        s.append(
          "    \(M.quote(node.key + "|" + word))) reply=(\(excludes.map(M.quote).joined(separator: " "))) ;;"
        )
      }
    }
    s += ["    *) reply=() ;;", "  esac", "}", ""]
    s += [
      "# Sets REPLY to the value kind of option $2 of the verb path $1; fails for flags.",
      "_mn_value_kind() {",
      "  case \"$1|$2\" in",
    ]
    for node in model.nodes {
      for option in node.spec.options {
        guard let kind = option.value else { continue }
        let patterns = optionWords(option).map { M.quote(node.key + "|" + $0) }
        s.append("    \(patterns.joined(separator: "|"))) REPLY=\(M.quote(M.code(kind))) ;;")
      }
    }
    for option in model.globals {
      guard let kind = option.value else { continue }
      let patterns = optionWords(option).map { "*" + M.quote("|" + $0) }
      s.append("    \(patterns.joined(separator: "|"))) REPLY=\(M.quote(M.code(kind))) ;;")
    }
    s += ["    *) return 1 ;;", "  esac", "}", ""]
    s += [
      "# Sets REPLY to the value kind of positional argument $2 (from 0) of the verb path $1.",
      "_mn_argument_kind() {",
      "  case \"$1|$2\" in",
    ]
    for node in model.nodes where node.spec.name != "help" || node.path.count > 1 {
      for (index, argument) in node.spec.arguments.enumerated() {
        let pattern = M.quote(node.key + "|" + (argument.variadic ? "" : String(index)))
        s.append(
          "    \(pattern)\(argument.variadic ? "*" : "")) REPLY=\(M.quote(M.code(argument.kind))) ;;"
        )
      }
    }
    s += ["    *) return 1 ;;", "  esac", "}", ""]
    s += #"""
      # Adds the values of kind $1; $2 is the --root value.
      _mn_values() {
        local -a values rootargs
        case "$1" in
          path) _files ;;
          directory) _files -/ ;;
          document)
            [[ -n $2 ]] && rootargs=(--root "$2")
            values=("${(@f)$(mn $rootargs __complete document -- "$PREFIX" 2>/dev/null)}")
            values=(${values:#})
            compadd -a values ;;
          command) _command_names -e ;;
          choice:*) values=(${=${1#choice:}}); compadd -a values ;;
          *) return 1 ;;
        esac
      }

      _mn() {
        local cur="${words[CURRENT]}" vpath="" hpath="" helping="" root="" expect="" ended="" word
        local -i i=2 npos=0
        local -a reply seen excluded offered
        local REPLY entry
        while (( i < CURRENT )); do
          word="${words[i]}"
          i+=1
          if [[ -n $expect ]]; then
            [[ $expect == --root ]] && root="$word"
            expect=""
            continue
          fi
          if [[ -z $ended ]]; then
            case "$word" in
              --) ended=1; continue ;;
              --root=*) root="${word#--root=}"; continue ;;
              -?*=*) seen+=("${word%%=*}"); continue ;;
              -?*)
                seen+=("$word")
                _mn_value_kind "$vpath" "$word" && expect="$word"
                continue ;;
            esac
          fi
          if [[ -n $helping ]]; then
            _mn_verb "$hpath" "$word" && hpath="${hpath:+$hpath }$REPLY"
          elif (( npos == 0 )) && _mn_verb "$vpath" "$word"; then
            vpath="${vpath:+$vpath }$REPLY"
            [[ $vpath == help ]] && helping=1
          else
            npos+=1
          fi
        done
        if [[ -n $expect ]]; then
          _mn_value_kind "$vpath" "$expect" && _mn_values "$REPLY" "$root"
          return
        fi
        if [[ -z $ended && $cur == -* ]]; then
          if [[ $cur == -?*=* ]]; then
            _mn_value_kind "$vpath" "${cur%%=*}" || return 1
            compset -P '*='
            _mn_values "$REPLY" "$root"
            return
          fi
          # An option that a given one rules out is not offered.
          for word in $seen; do
            _mn_excludes "$vpath" "$word"
            excluded+=($reply)
          done
          _mn_options "$vpath"
          for entry in $reply; do
            (( ${excluded[(Ie)${entry%%:*}]} )) || offered+=("$entry")
          done
          reply=($offered)
          _describe -t options option reply
          return
        fi
        if [[ -n $helping ]]; then
          _mn_verbs "$hpath"
          _describe -t commands verb reply
        elif (( npos == 0 )) && _mn_verbs "$vpath" && (( ${#reply} )); then
          _describe -t commands verb reply
        elif _mn_argument_kind "$vpath" "$npos"; then
          _mn_values "$REPLY" "$root"
        fi
      }

      if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
        _mn "$@"
      else
        compdef _mn mn
      fi
      """#.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    return s.joined(separator: "\n") + "\n"
  }
}
