#!/usr/bin/env bash
# A short tour of mn over a copy of examples/sample, in a temporary HOME that is removed after.
# Usage: scripts/demo.sh PATH-TO-MN
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mn-demo.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_STATE_HOME="$tmp/home/.local/state"
unset MINUTA_STORAGE MN_BACKUP_DIR
mkdir -p "$HOME/Documents"
cp -R "$here/examples/sample" "$HOME/Documents/Minuta"
cd "$tmp"

mn() { "$bin" "$@"; }
bold=""; plain=""
if [ -t 1 ]; then bold=$'\033[1m'; plain=$'\033[0m'; fi
step() {
  printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"
  local status=0
  "$@" || status=$?
  [ "$status" = 0 ] || printf '(exit %s)\n' "$status"
}

echo "A copy of examples/sample is the local data folder ~/Documents/Minuta (HOME=$HOME)."
step mn --version
step mn resolve --explain
step mn ls --long
step mn ls --conflicts --json
step mn doc info records/2026/09.automerge
step mn doc heads records/2026/09.automerge
step mn doc show records/2026/10.automerge
step mn doctor
step mn export -o "$tmp/minuta.tar.gz"
step mn merge-conflicts --dry-run
step mn merge-conflicts
step mn ls --long
icloud="$(mn resolve --icloud)"
mkdir -p "$icloud"
cp -R "$here/examples/second-device/." "$icloud/"
echo
echo "Another device has already put files into iCloud Drive ($icloud)."
step mn migrate --dry-run
step mn migrate --yes
step mn resolve
step mn ls --long
step mn doctor
echo
echo "The tour ran in $tmp, which is now removed."
