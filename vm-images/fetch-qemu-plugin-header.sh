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

# Which Debian package, source package, source version and suite.
pkg=$(dpkg-query -S "$(readlink -f "$path")" 2>/dev/null | sed -n '1s/:.*//p') || true
[ -n "$pkg" ] ||
	die "$path is not from a Debian package; copy include/qemu/qemu-plugin.h of QEMU $version to $dir/"
read -r src srcver < <(dpkg-query -W -f='${source:Package} ${source:Version}\n' "$pkg")
[ -n "${srcver:-}" ] || die "dpkg-query cannot name the source package of $pkg"
# The apt line under the installed version ("*** VER PRIO") names the suite.
# apt-cache's output is read whole before it is parsed: an awk that stopped
# reading at its first match would kill apt-cache with SIGPIPE, and
# pipefail would end this script there.
policy=$(apt-cache policy "$pkg" 2>/dev/null) || policy=
suite=$(awk '
	/^ \*\*\* / { inst = 1; next }
	/^     [^ ]/ { inst = 0 }
	inst && !found && $2 ~ /^[a-z]+:\/\// { split($3, s, "/"); print s[1]; found = 1 }' <<< "$policy")
if [ -z "$suite" ]; then
	# Installed from a .deb no index lists any more: guess from the version.
	case $srcver in
	*~bpo12*) suite=bookworm-backports ;;
	*) suite=bookworm ;;
	esac
fi

# Is there already a deb-src entry for $suite (one-line or deb822 format)?
have_deb_src() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		grep -Eq "^[[:space:]]*deb-src[[:space:]].*[[:space:]]$suite([[:space:]]|$)" "$f" && return 0
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# A stanza ends at a blank line; it needs both fields.
		awk -v suite="$suite" '
			function check() { if (t && s && !off) found = 1; t = s = off = 0 }
			/^[[:space:]]*$/ { check(); next }
			tolower($1) == "types:" && / deb-src( |$)/ { t = 1 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) s = 1 }
			tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
			END { check(); exit !found }' "$f" && return 0
	done
	return 1
}

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		die "$1; run 'sudo vm-images/fetch-qemu-plugin-header.sh' once (later runs use the cache)"
}

if ! have_deb_src; then
	need_root "no deb-src entry for $suite"
	cat > "/etc/apt/sources.list.d/pmem-aware-src-$suite.sources" <<EOF
# Added by pmem-aware vm-images/fetch-qemu-plugin-header.sh: QEMU's source
# package provides qemu-plugin.h, which no binary package ships.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	added=1
else
	added=0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The indexes may already know the source (added earlier, updated since).
showsrc=$(apt-cache showsrc "$src" 2>/dev/null) || showsrc=
if [ "$added" = 1 ] || ! grep -xqF "Version: $srcver" <<< "$showsrc"; then
	need_root "apt source indexes do not list $src $srcver"
	apt-get update > "$tmp/update.log" 2>&1 ||
		die "apt-get update failed (see: apt-get update); check the network and /etc/apt/sources.list.d/"
fi

# Only the upstream tarball is needed. Try the whole source package first;
# if a file of it cannot be fetched (mirrors and proxies have been seen to
# serve the orig tarball but 404 the .dsc), fetch the orig tarball alone with
# apt's own downloader, which checks it against the SHA256 in the index.
# apt-get source keeps the files it did fetch (verified), and --print-uris
# then leaves them out. Both run unsandboxed: apt's _apt user cannot write
# the 0700 temp dir.
if ! (cd "$tmp" && apt-get -o APT::Sandbox::User=root source --download-only "$src=$srcver") \
	> "$tmp/source.log" 2>&1 &&
	[ -z "$(find "$tmp" -maxdepth 1 -name "${src}_*.orig.tar.*")" ]; then
	uris=$(cd "$tmp" && apt-get source --print-uris "$src=$srcver" 2> /dev/null) || uris=
	uri=$(awk '$2 ~ /\.orig\.tar\./ && !n++' <<< "$uris")
	read -r url file _ hash <<< "${uri:-}"
	[ -n "${hash:-}" ] ||
		die "apt-get source --download-only $src=$srcver failed: $(grep -m1 '^E:' "$tmp/source.log" || tail -n1 "$tmp/source.log")"
	url=${url#\'}
	url=${url%\'}
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$url" "$tmp/$file" "$hash" \
		> "$tmp/helper.log" 2>&1 ||
		die "cannot download $file for $src $srcver ($(grep -m1 '^E:' "$tmp/helper.log" || tail -n1 "$tmp/helper.log")); check the network and the deb-src entry for $suite"
fi

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
