#!/usr/bin/env bash
# make bench: times mn against a reference measured in the same run and prints the ratios.
# Usage: scripts/bench.sh PATH-TO-MN   (a release build)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mn="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
fixtures="$here/../shared/fixtures"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mn-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_STATE_HOME="$tmp/home/.local/state"
mkdir -p "$HOME"

# median seconds of a command over N runs (hyperfine, no shell in between)
median() {
  local runs="$1"; shift
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$tmp/h.json" "$@" >/dev/null 2>&1
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json"
}
# peak resident memory in MB of one run
peak_mb() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1))
PY
}
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }

echo "== start-up: mn resolve --local vs git --version (median of 300 runs; goal <= 2x)"
a=$(median 300 "$mn resolve --local")
b=$(median 300 "git --version")
echo "mn resolve --local  $(ms "$a")"
echo "git --version       $(ms "$b")"
echo "ratio               $(ratio "$a" "$b")x"

if [ -d "$fixtures/upstream" ]; then
  echo
  echo "== codec: mn doc check/show/merge vs sha256sum of the same bytes (median of 5)"
  echo "   reference (the real Automerge on this kind of machine, from the issue): load essay 2.32 s / 334 MB,"
  echo "   godot-thread 10.4 s / 876 MB, moby-dick 1.20 s (0.90 s to print its JSON); goal: a quarter or less"
  data="$fixtures/upstream/rust/benchmark-battery/data"
  largest=$(find "$fixtures/corpus" -name '*.automerge' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
  printf '%-28s %8s %10s %10s %8s %10s %8s\n' file MB "check" "MB/s" "x sha" "peak MB" "show"
  for f in "$data/essay.amrg" "$data/godot-thread.amrg" "$data/moby-dick.automerge" "$largest"; do
    [ -f "$f" ] || continue
    size=$(stat -c %s "$f")
    mb=$(python3 -c "print(f'{$size/1e6:.2f}')")
    sha=$(median 5 "sha256sum $f")
    chk=$(median 5 "$mn doc check $f")
    show=$(median 5 "$mn doc show $f")
    peak=$(peak_mb "$mn" doc check "$f")
    rate=$(python3 -c "print(f'{$size/1e6/$chk:.1f}')")
    printf '%-28s %8s %10s %10s %8s %10s %8s\n' "$(basename "$f")" "$mb" "$(ms "$chk")" "$rate" \
      "$(ratio "$chk" "$sha")" "$peak" "$(ms "$show")"
  done
  f="$data/essay.amrg"
  if [ -f "$f" ]; then
    merge=$(median 5 "$mn doc merge -o $tmp/m.automerge $f $data/stephen.amrg")
    echo "doc merge essay+stephen    $(ms "$merge")  peak $(peak_mb "$mn" doc merge -o "$tmp/m2.automerge" "$f" "$data/stephen.amrg") MB"
  fi
else
  echo "(../shared/fixtures not found: codec benchmarks skipped)"
fi

echo
echo "== folder scan: mn ls --json vs find, 120 months x (document + 2 copies + placeholder); goal <= 2x"
root="$tmp/scan"
python3 - "$root" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(120):
    y, m = 2016 + i // 12, i % 12 + 1
    d = os.path.join(root, "records", str(y))
    os.makedirs(d, exist_ok=True)
    for name in (f"{m:02d}.automerge", f"{m:02d} 2.automerge", f"{m:02d}.sync-conflict-20260906-154512-ABCDEFG.automerge"):
        with open(os.path.join(d, name), "wb") as f:
            f.write(b"x" * 100)
    open(os.path.join(d, f".{m:02d}.automerge.bak.icloud"), "wb").close()
PY
a=$(median 30 "$mn --root $root ls --json")
b=$(median 30 "find $root")
echo "mn ls --json  $(ms "$a")"
echo "find          $(ms "$b")"
echo "ratio         $(ratio "$a" "$b")x"

echo
echo "== export: 120 documents (~75 MB) to tar.gz vs bsdtar -czf, and tar.zst; goal <= 1.1x"
root="$tmp/export"
python3 - "$root" <<'PY'
import os, sys, random
random.seed(7)
root = sys.argv[1]
for i in range(120):
    d = os.path.join(root, "records", str(2016 + i // 12))
    os.makedirs(d, exist_ok=True)
    # half random, half repetitive bytes: compressible like real documents
    body = random.randbytes(300_000) + bytes(range(256)) * 1000
    with open(os.path.join(d, f"{i % 12 + 1:02d}.automerge"), "wb") as f:
        f.write(body)
PY
du -sh "$root" | cut -f1 | sed 's/^/folder size  /'
a=$(median 5 "$mn --root $root export --no-verify-documents -o $tmp/o.tar.gz" 2>/dev/null || echo "")
