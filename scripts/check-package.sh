#!/usr/bin/env bash
# Checks the Debian package (make check-package): lintian without errors; installed into a
# temporary root with dpkg -x, the installed mn runs and names its version and commit, the
# man pages render, the three completions load and complete, the systemd user unit verifies.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:?usage: check-package.sh DEB VERSION COMMIT}
version=${2:?}
commit=${3:?}
fail() { echo "check-package: $*" >&2; exit 1; }

# lintian is needed by this check only, so it is installed here, not by make setup.
if ! command -v lintian >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "check-package: installing lintian" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq lintian >/dev/null
fi

echo "check-package: lintian $deb"
# Every tag is shown; only errors fail (warnings are listed for the reader).
lintian --fail-on error --display-info --tag-display-limit 0 "$deb" || fail "lintian found errors"

work=$(mktemp -d "${TMPDIR:-/tmp}/mn-check-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
dpkg -x "$deb" "$root"
expected=(
  usr/bin/mn
  usr/share/man/man1/mn.1.gz usr/share/man/man1/mn-backups.1.gz
  usr/share/bash-completion/completions/mn usr/share/zsh/vendor-completions/_mn
  usr/share/fish/vendor_completions.d/mn.fish
  usr/lib/systemd/user/mn-watch.service
  usr/share/doc/mn/copyright usr/share/doc/mn/changelog.gz
)
for file in "${expected[@]}"; do [ -f "$root/$file" ] || fail "missing /$file"; done
[ "$(ls man/*.1 | wc -l)" = "$(ls "$root"/usr/share/man/man1/*.1.gz | wc -l)" ] ||
  fail "not every man page is packaged"
dpkg-deb -f "$deb" Package Version Architecture Depends

# The installed binary, in a sandbox HOME, on a copy of the sample folder.
export HOME=$work/home LC_ALL=C TZ=UTC NO_COLOR=1 PATH="$root/usr/bin:$PATH"
unset MN_BACKUP_DIR XDG_STATE_HOME XDG_CONFIG_HOME MINUTA_STORAGE
mkdir -p "$HOME/Documents"
cp -R examples/sample "$HOME/Documents/Minuta"
mn=$root/usr/bin/mn
[ "$("$mn" --version)" = "mn $version (commit $commit)" ] ||
  fail "mn --version says '$("$mn" --version)', not 'mn $version (commit $commit)'"
"$mn" --help | grep -q '^USAGE' || fail "mn --help has no USAGE"
[ "$("$mn" resolve)" = "$HOME/Documents/Minuta" ] || fail "mn resolve"
"$mn" ls >/dev/null || fail "mn ls"
"$mn" merge-conflicts -q || fail "mn merge-conflicts"
"$mn" backups | grep -q ' merge-conflicts ' || fail "mn backups lists no backup"
"$mn" backups verify -q || fail "mn backups verify"
"$mn" backups prune --keep-last 1 -q || fail "mn backups prune"
echo "check-package: mn runs: $("$mn" --version)"

# Man pages: man-db (as lintian does), else mandoc, on the compressed pages.
for page in "$root"/usr/share/man/man1/*.1.gz; do
  if command -v man >/dev/null; then
    text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>"$work/man.err") || fail "man -l $page"
    [ ! -s "$work/man.err" ] || fail "man warns about $page: $(cat "$work/man.err")"
  else
    text=$(mandoc -T utf8 "$page") || fail "mandoc $page"
  fi
  grep -q 'EXIT STATUS' <<<"$text" || fail "$page has no EXIT STATUS"
done
echo "check-package: $(ls "$root"/usr/share/man/man1 | wc -l) man pages render"

# Completions: each shell loads the installed file and completes the verb 'backups' and its
# sub-verb 'prune'.
bash_out=$(bash -c '
  source "$1"
  COMP_WORDS=(mn back); COMP_CWORD=1; _mn mn back mn; printf "%s\n" "${COMPREPLY[@]}"
  COMP_WORDS=(mn backups pr); COMP_CWORD=2; _mn mn pr backups; printf "%s\n" "${COMPREPLY[@]}"
' _ "$root/usr/share/bash-completion/completions/mn")
[ "$bash_out" = $'backups\nprune' ] || fail "bash completion: '$bash_out'"
if command -v zsh >/dev/null; then
  zsh -fc "fpath=('$root/usr/share/zsh/vendor-completions' \$fpath); autoload -Uz compinit; compinit -u -d '$work/zcompdump'; [[ \${_comps[mn]} == _mn ]]" ||
    fail "zsh does not load _mn"
fi
if command -v fish >/dev/null; then
  fish_out=$(fish --no-config -c "set -g fish_complete_path '$root/usr/share/fish/vendor_completions.d' \$fish_complete_path; complete -C 'mn backups pr'" | cut -f1)
  [ "$fish_out" = "prune" ] || fail "fish completion: '$fish_out'"
fi
echo "check-package: bash, zsh and fish completions load"

# The systemd user unit.
unit=$root/usr/lib/systemd/user/mn-watch.service
grep -qx 'ExecStart=/usr/bin/mn watch' "$unit" || fail "the unit does not run /usr/bin/mn watch"
if command -v systemd-analyze >/dev/null; then
  # As a user unit, outside a user session (its own runtime folder). ExecStart must name an
  # executable that exists: the copy verified runs the unpacked binary, the rest is as packaged.
  mkdir -m 700 "$work/run"
  sed "s|^ExecStart=/usr/bin/mn |ExecStart=$root/usr/bin/mn |" "$unit" >"$work/mn-watch.service"
  XDG_RUNTIME_DIR=$work/run SYSTEMD_LOG_LEVEL=notice \
    systemd-analyze verify --user "$work/mn-watch.service" 2>"$work/unit.err" ||
    fail "systemd-analyze verify: $(cat "$work/unit.err")"
  [ ! -s "$work/unit.err" ] || fail "systemd-analyze verify: $(cat "$work/unit.err")"
  echo "check-package: systemd-analyze verify --user passes"
else
  echo "check-package: no systemd-analyze here; the unit was not verified"
fi
echo "check-package: ok"
