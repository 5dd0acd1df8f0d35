#!/usr/bin/env bash
# Installs the Debian packages that building and testing mn need, only when missing.
set -euo pipefail
# syncthing, rclone and unison: the real sync engines of RealSyncTests (issue 27); time: the
# benchmarks' peak memory (scripts/bench.sh).
packages=(pkg-config zlib1g-dev libdeflate-dev libssl-dev libarchive-dev libarchive-tools mandoc zsh fish hyperfine
  time syncthing rclone unison)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "setup: the Swift 6 toolchain is needed and 'swift' is not on PATH" >&2
  exit 1
fi
# The release build links libstdc++, zlib and libdeflate statically when these links exist (see
# Package.swift): a shorter start-up. Without them it uses the shared libraries.
cd "$(dirname "$0")/.."
# `make deb` links with .build/static-libs-deb, which has libstdc++ only (Package.swift).
mkdir -p .build/static-libs .build/static-libs-deb
for lib in libstdc++.a libz.a libdeflate.a; do
  found=$(gcc -print-file-name="$lib" 2>/dev/null || true)
  if [ "${found#/}" != "$found" ] && [ -f "$found" ]; then
    ln -sf "$found" ".build/static-libs/$lib"
    [ "$lib" != libstdc++.a ] || ln -sf "$found" ".build/static-libs-deb/$lib"
  else
    echo "setup: no static $lib found; mn will link the shared one (slower start-up)" >&2
  fi
done
