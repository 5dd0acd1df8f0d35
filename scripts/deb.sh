#!/usr/bin/env bash
# Builds the Debian package dist/mn_VERSION_ARCH.deb from a release binary (make deb):
# the binary, the man pages, the three completions, the systemd user unit for `mn watch`,
# the copyright file and the changelog. dpkg-deb only: no debhelper.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:?usage: deb.sh BINARY VERSION}
version=${2:?usage: deb.sh BINARY VERSION}
arch=$(dpkg --print-architecture)
out=dist/mn_${version}_${arch}.deb
stage=$(mktemp -d "${TMPDIR:-/tmp}/mn-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/mn

install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d" "$root/usr/lib/systemd/user" \
  "$root/usr/share/doc/mn"
install -m 755 "$binary" "$root/usr/bin/mn"
# Symbols only: the Swift runtime's metadata sections stay.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/mn"
for page in man/*.1; do
  gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"
done
chmod 644 "$root"/usr/share/man/man1/*.gz
install -m 644 completions/mn.bash "$root/usr/share/bash-completion/completions/mn"
install -m 644 completions/_mn "$root/usr/share/zsh/vendor-completions/_mn"
install -m 644 completions/mn.fish "$root/usr/share/fish/vendor_completions.d/mn.fish"
install -m 644 packaging/mn-watch.service "$root/usr/lib/systemd/user/mn-watch.service"
install -m 644 packaging/debian/copyright "$root/usr/share/doc/mn/copyright"
gzip -9n <packaging/debian/changelog >"$root/usr/share/doc/mn/changelog.gz"
chmod 644 "$root/usr/share/doc/mn/changelog.gz"

# Libraries: what the binary links (dpkg-shlibdeps), and the two it opens with dlopen at
# their first use (Archive/LibArchive.swift, AutomergeCodec/Crypto/LibCrypto.swift), under their
# Debian 12 and their 64-bit-time (t64) names.
mkdir -p "$stage/debian"
printf 'Source: mn\n\nPackage: mn\nArchitecture: any\n' >"$stage/debian/control"
linked=$(cd "$stage" && dpkg-shlibdeps -O "mn/usr/bin/mn" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
depends="${linked:+$linked, }libarchive13 | libarchive13t64, libssl3 | libssl3t64"
rm -rf "$stage/debian"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
  -e "s/@DEPENDS@/$depends/" packaging/debian/control.in >"$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +
mkdir -p dist
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
