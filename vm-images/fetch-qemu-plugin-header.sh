#!/usr/bin/env bash
# Obtain qemu-plugin.h for the installed QEMU and print the directory that
# holds it (for -I).
#
#   vm-images/fetch-qemu-plugin-header.sh
#
# No Debian binary package ships qemu-plugin.h, so it comes from the upstream
# tarball of the Debian source package the installed QEMU was built from
# (include/qemu/qemu-plugin.h in qemu_<upstream>.orig.tar.xz). The header must
# match the emulator: the plugin API version is checked at load time.
#
# Cached as $PMEM_CACHE/qemu-plugin/<qemu-version>/qemu-plugin.h; once cached
# the script only prints the directory and needs no root. The first fetch
# needs root when a deb-src entry has to be added or the indexes updated.
#
# Exit status: 0 with the directory on stdout; 3 when QEMU is older than 10
# (no plugin API v4, so no instruction counts); 1 on any other failure, with
# one line on stderr saying what to do.
set -euo pipefail

qemu=${QEMU:-qemu-system-x86_64}
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}

die() { echo "qemu-plugin: $*" >&2; exit 1; }

path=$(command -v "$qemu" 2>/dev/null) ||
	die "$qemu not found; run 'sudo make setup' (installs qemu-system-x86 from bookworm-backports)"
version=$("$path" --version 2>/dev/null | sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
[ -n "$version" ] || die "cannot read the version of $path ('$path --version' failed)"

# QEMU < 10 is treated as lacking API v4, as vm/qemu.c does.
if [ "${version%%.*}" -lt 10 ]; then
	echo "qemu-plugin: QEMU $version has no plugin API v4; instruction counts unavailable" >&2
	exit 3
fi

dir=$cache/qemu-plugin/$version
if [ -s "$dir/qemu-plugin.h" ]; then
	echo "$dir"
	exit 0
fi

# shellcheck source=vm-images/lib-debsrc.sh
. "$(dirname "$0")/lib-debsrc.sh"
DEBSRC_SELF=vm-images/fetch-qemu-plugin-header.sh

# Which Debian package, source package, source version and suite.
pkg=$(dpkg-query -S "$(readlink -f "$path")" 2>/dev/null | sed -n '1s/:.*//p') || true
[ -n "$pkg" ] ||
	die "$path is not from a Debian package; copy include/qemu/qemu-plugin.h of QEMU $version to $dir/"
sv=$(debsrc_source_of "$pkg")
read -r src srcver <<< "$sv"
suite=$(debsrc_suite "$pkg" "$srcver")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

debsrc_prepare "$suite" "$src" "$srcver" "$tmp" \
	"Added by pmem-aware vm-images/fetch-qemu-plugin-header.sh: QEMU's source" \
	"package provides qemu-plugin.h, which no binary package ships."
# Only the upstream tarball is needed.
debsrc_download "$src" "$srcver" "$tmp" "$suite"

orig=$(find "$tmp" -maxdepth 1 -name "${src}_*.orig.tar.*" -print -quit)
[ -n "$orig" ] || die "no ${src}_*.orig.tar.* among the files apt-get source downloaded"
tar -xaf "$orig" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h' 2> "$tmp/tar.log" ||
	die "include/qemu/qemu-plugin.h not found in $(basename "$orig")"
header=$(find "$tmp" -path '*/include/qemu/qemu-plugin.h' -print -quit)

api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$header")
if [ "${api:-0}" -lt 4 ]; then
	echo "qemu-plugin: QEMU $version has no plugin API v4; instruction counts unavailable" >&2
	exit 3
fi

mkdir -p "$dir"
cp "$header" "$dir/qemu-plugin.h.tmp.$$"
mv "$dir/qemu-plugin.h.tmp.$$" "$dir/qemu-plugin.h"
echo "$dir"
