#!/bin/sh
# make mac-check: what only a Mac can verify (docs/macos.md), in one command, with a report to
# paste into an issue.
#
# On a Mac (macOS 14 or later, Xcode 16 or its toolchain, and Homebrew's libarchive and
# libdeflate, `brew install libarchive libdeflate`, the formula's dependencies): builds mn
# and its tests, runs `swift test` (without the conformance suite), then a live smoke test
# in a scratch folder that it creates inside iCloud Drive (~/Library/Mobile
# Documents/com~apple~CloudDocs) and removes at the end: a document and a conflict copy; `ls`, `merge-conflicts`, `export`; the
# document evicted with `brctl evict` where that exists, then `ls --placeholders` and
# `fetch`; and `watch --once`. Every step prints PASS, FAIL or SKIP; the exit status is 1
# when one failed.
#
# Elsewhere it says that it needs a Mac and exits 69 (EX_UNAVAILABLE), so that no one takes
# a Linux run for a pass: `make test` is what checks the macOS side on Linux.
set -u

if [ "$(uname -s)" != Darwin ]; then
  echo "mac-check: needs a Mac (macOS 14 or later); on this system 'make test' checks what" \
    "can be checked of macOS (see docs/macos.md)" >&2
  exit 69
fi

cd "$(dirname "$0")/.." || exit 1
report=$(mktemp -t mn-mac-check)
failed=0
say() { printf '%s\n' "$*" | tee -a "$report"; }
step() { # step NAME COMMAND...: runs COMMAND, its output kept in the log
  name=$1
  shift
  if "$@" >>"$log" 2>&1; then say "PASS  $name"; else
    say "FAIL  $name (exit $?; see $log)"
    failed=1
  fi
}
log=$(mktemp -t mn-mac-check-log)

say "mn mac-check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "macOS $(sw_vers -productVersion) ($(sw_vers -buildVersion)), $(uname -m)"
say "$(swift --version 2>&1 | head -n 1)"
say "commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"

step "swift build --build-tests" swift build --build-tests
step "swift test (without ConformanceTests)" swift test --skip-build --skip ConformanceTests
mn=$PWD/.build/debug/mn

icloud="$HOME/Library/Mobile Documents/com~apple~CloudDocs"
if [ ! -d "$icloud" ]; then
  say "SKIP  live smoke test: no iCloud Drive at '$icloud' (signed out?)"
else
  scratch="$icloud/mn-mac-check-$$"
  root="$scratch/Minuta"
  state=$(mktemp -d -t mn-mac-check-state)
  fixtures=Tests/Fixtures/conflicts/seed-01
  mkdir -p "$root/records/2026"
  cp "$fixtures/device-0/records/2026/09.automerge" "$root/records/2026/09.automerge"
  cp "$fixtures/device-1/records/2026/09.automerge" "$root/records/2026/09 2.automerge"
  # Backups go to a scratch folder; HOME stays the user's, which tells iCloud Drive apart.
  run() { MN_BACKUP_DIR="$state/backups" "$mn" --root "$root" "$@"; }
  step "ls lists the document and its copy" sh -c \
    "MN_BACKUP_DIR='$state/backups' '$mn' --root '$root' ls --json | grep -q '09 2.automerge'"
  step "merge-conflicts merges the copy" run -v merge-conflicts
  # The replace in a File Provider folder (mn.md §6): replaceItemAt, never a swap through a
  # `.nosync` name inside the folder, and no temporary or backup item left.
  step "merge-conflicts replaced the document with replaceItemAt" sh -c \
    "grep -q \"by the sync provider's replace\" '$log'"
  step "no temporary or backup item inside iCloud Drive" sh -c \
    "! find '$scratch' -name '.*.mn-*' | grep -q ."
  step "the copy is gone, its changes kept" sh -c \
    "[ ! -e '$root/records/2026/09 2.automerge' ] && '$mn' doc check '$root/records/2026/09.automerge'"
  step "export writes a verified archive" run export -o "$state/export.zip"
  if command -v brctl >/dev/null 2>&1; then
    # Let iCloud upload it first: an item not yet uploaded cannot be evicted.
    sleep 20
    if brctl evict "$root/records/2026/09.automerge" >>"$log" 2>&1; then
      step "ls shows the evicted document as a dataless placeholder" sh -c \
        "MN_BACKUP_DIR='$state/backups' '$mn' --root '$root' ls --placeholders | grep -q 09.automerge"
      step "fetch downloads it (timeout 180 s)" run -v fetch --timeout 180
      step "the fetched document reads as Automerge" \
        "$mn" doc check "$root/records/2026/09.automerge"
    else
      say "SKIP  eviction: brctl evict refused (see $log); fetch of a dataless file unverified"
    fi
  else
    say "SKIP  eviction: no brctl on this macOS; fetch of a dataless file unverified"
  fi
  step "watch --once makes one pass" run watch --once --quiet-for 0
  step "doctor reports on the folder" sh -c \
    "MN_BACKUP_DIR='$state/backups' '$mn' --root '$root' doctor; [ \$? -le 1 ]"
  rm -rf "$scratch" "$state"
fi

say "log: $log"
say "report: $report (paste it into the issue)"
exit $failed
