#!/usr/bin/env bash
# make fuzz: libFuzzer over the Automerge decoder, seeded with the repository's fixtures.
# FUZZ_SECONDS (default 600) bounds the run. A crasher is sorted by what it stopped in: one
# that decodes and stopped in the encoder's round trip (a "doc save" fatal error) goes to
# Fuzz/findings/ as save-crash-<sha1>.bin, one where `mergeAndVerify` and `merge` disagree
# (a "merge" fatal error) as merge-crash-<sha1>.bin, both replayed first by every later
# run; any other goes to Tests/Fixtures/malformed/, whose files must all be refused by the
# decoder.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-600}"
out=.build/fuzz
mkdir -p "$out/corpus" Tests/Fixtures/malformed
cp Tests/Fixtures/valid/*.automerge "$out/corpus/" 2>/dev/null || true
cp Tests/Fixtures/malformed/* "$out/corpus/" 2>/dev/null || true
# Past findings, fixed: every run replays them first.
cp Fuzz/findings/*.bin "$out/corpus/" 2>/dev/null || true
if [ -d ../shared/fixtures ]; then
  find ../shared/fixtures/corpus/seed-0[1-3] -name '*.automerge' -size -8k -exec cp {} "$out/corpus/" \;
fi
sources=$(find Sources/AutomergeCodec -name '*.swift' | sort)
modules=""
for m in CZlib CDeflate CCrypto; do modules="$modules -Xcc -fmodule-map-file=Sources/$m/module.modulemap"; done
echo "fuzz: building the decoder with -sanitize=fuzzer,address" >&2
# The codec imports Threads (its one dependency among mn's targets): built first as a module.
mkdir -p "$out/modules"
swiftc -O -sanitize=address -parse-as-library -module-name Threads -emit-module \
  -emit-module-path "$out/modules/Threads.swiftmodule" -c Sources/Threads/Threads.swift \
  -o "$out/Threads.o"
# shellcheck disable=SC2086
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name AutomergeCodec $modules \
  -I "$out/modules" $sources Fuzz/DecodeFuzzer.swift "$out/Threads.o" -o "$out/decode-fuzzer"
echo "fuzz: running for ${seconds}s" >&2
crashes="$out/crashes"
rm -rf "$crashes"
mkdir -p "$crashes"
status=0
# libFuzzer and the address sanitizer report a crash themselves; Swift's backtracer, run
# beside them, can hang reading the sanitizer's memory.
export SWIFT_BACKTRACE=enable=no
"$out/decode-fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$crashes/" "$out/corpus" || status=$?
for input in "$crashes"/*; do
  [ -f "$input" ] || continue
  name=$(basename "$input")
  # Run the input alone once more: its fatal error says which stage stopped.
  log=$("$out/decode-fuzzer" "$input" 2>&1 || true)
  case "$log" in
    *"Fatal error: doc save"*) dest="Fuzz/findings/save-$name.bin" ;;
    *"Fatal error: merge"*) dest="Fuzz/findings/merge-$name.bin" ;;
    *) dest="Tests/Fixtures/malformed/$name" ;;
  esac
  cp "$input" "$dest"
  echo "fuzz: $name kept as $dest" >&2
done
exit "$status"
