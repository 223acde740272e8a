#!/usr/bin/env bash
# Build guest kernel flavours from Debian's linux-source package.
#
#   vm-images/build-kernel.sh FLAVOUR...      build (or reuse) and publish
#   vm-images/build-kernel.sh --list          print known flavour names
#
# A flavour is a row of vm-images/flavours: a source version plus patch sets.
# Each build is cached under $PMEM_CACHE/kernels/<flavour>-<key>/, where the
# key hashes the source package version, every patch, the config fragment and
# the recipe version, so an unchanged flavour is reused in seconds. Compilation goes
# through ccache; all flavours of a version share one source path so that
# ccache hits across flavours (only files a patch touches recompile).
#
# The result is published as build/kernels/<flavour>/{bzImage,kernel.json,config}.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
out=${PMEM_BUILD:-$top/build}/kernels
fragment=$here/config/guest.config
# Bump when the build recipe below changes what ends up in a bzImage; it is
# part of every cache key (kernel.json is written at publish time, not cached).
recipe=1

die() { echo "build-kernel: $*" >&2; exit 1; }

flavour_row() {
	awk -v f="$1" '!/^#/ && $1 == f { print; found = 1 } END { exit !found }' \
		"$here/flavours"
}

list_flavours() { awk '!/^#/ && NF { print $1 }' "$here/flavours"; }

patch_files() { # version set...
	local version=$1 set; shift
	for set in "$@"; do
		[ "$set" = "-" ] && continue
		[ -d "$here/patches/$version/$set" ] ||
			die "patch set $version/$set does not exist (vm-images/patches/$version/$set)"
		find "$here/patches/$version/$set" -name '[0-9]*.patch' ! -name '0000-*' | sort
	done
}

source_version() { # version -> Debian package version of linux-source-<version>
	dpkg-query -W -f='${Version}' "linux-source-$1" 2>/dev/null ||
		die "linux-source-$1 is not installed: run 'apt-get install linux-source-$1'"
}

check_tools() {
	local t missing=()
	for t in gcc make flex bison bc ccache patch xz; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ -e /usr/include/libelf.h ] || missing+=(libelf-dev)
	[ -e /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
	[ ${#missing[@]} -eq 0 ] ||
		die "missing build tools (${missing[*]}): run 'apt-get install build-essential flex bison bc ccache libelf-dev libssl-dev xz-utils'"
}

check_space() { # dir MiB
	mkdir -p "$1"
	local avail
	avail=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$2" ] ||
		die "only ${avail} MiB free under $1, a kernel build needs ${2} MiB: free space or set XDG_CACHE_HOME"
}

# Extract the pristine source once per package version.
pristine_tree() { # version
	local version=$1 pkgver dir
	pkgver=$(source_version "$version")
	dir=$cache/src/linux-$version-$pkgver
	if [ ! -e "$dir/.extracted" ]; then
		check_space "$cache" 2500
		echo "build-kernel: extracting linux-source-$version ($pkgver)" >&2
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" --strip-components=1 -xf "/usr/src/linux-source-$version.tar.xz"
		mv "$dir.tmp" "$dir"
		touch "$dir/.extracted"
	fi
	echo "$dir"
}

flavour_key() { # flavour -> key
	local row version sets pkgver
	row=$(flavour_row "$1") || die "unknown flavour '$1' (known: $(list_flavours | tr '\n' ' '))"
	read -r _ version sets <<<"$row"
	pkgver=$(source_version "$version")
	# shellcheck disable=SC2086
	{
		echo "linux-source-$version $pkgver"
		echo "recipe $recipe"
		sha256sum "$fragment" | cut -d' ' -f1
		patch_files "$version" $sets | xargs -r sha256sum | cut -d' ' -f1
	} | sha256sum | cut -c1-16
}

write_metadata() { # flavour version pkgver key sets... > kernel.json
	local flavour=$1 version=$2 pkgver=$3 key=$4 first=1 p sets; shift 4
	sets=$(for p in "$@"; do [ "$p" = "-" ] || printf '"%s",' "$p"; done)
	printf '{\n  "schema": 1,\n  "flavour": "%s",\n  "source": "linux-source-%s %s",\n' \
		"$flavour" "$version" "$pkgver"
	printf '  "key": "%s",\n  "config_sha256": "%s",\n  "patch_sets": [%s],\n  "patches": [' \
		"$key" "$(sha256sum "$fragment" | cut -d' ' -f1)" "${sets%,}"
	while read -r p; do
		[ -n "$p" ] || continue
		[ $first -eq 1 ] || printf ','
		first=0
		printf '\n    { "file": "%s", "sha256": "%s" }' \
			"${p#"$here"/}" "$(sha256sum "$p" | cut -d' ' -f1)"
	done < <(patch_files "$version" "$@")
	printf '\n  ]\n}\n'
}

build_flavour() { # flavour
	local flavour=$1 row version sets pkgver key dest src tree obj p opt
	row=$(flavour_row "$flavour") || die "unknown flavour '$flavour' (known: $(list_flavours | tr '\n' ' '))"
	read -r _ version sets <<<"$row"
	pkgver=$(source_version "$version")
	key=$(flavour_key "$flavour")
	dest=$cache/kernels/$flavour-$key

	if [ ! -e "$dest/bzImage" ]; then
		check_tools
		src=$(pristine_tree "$version")
		check_space "$cache" 3000
		# One tree and object path per version (not per flavour): identical
		# paths let ccache reuse objects between flavours.
		tree=$cache/tree/$version
		obj=$cache/obj/$version
		exec 9>"$cache/build-$version.lock"
		flock 9
		echo "build-kernel: building $flavour (key $key); log in $dest.log" >&2
		rm -rf "$tree" "$obj"
		mkdir -p "$(dirname "$tree")" "$obj"
		cp -al "$src" "$tree"
		# shellcheck disable=SC2086
		while read -r p; do
			[ -n "$p" ] || continue
			patch -d "$tree" -p1 -s --no-backup-if-mismatch <"$p" ||
				die "patch ${p#"$here"/} does not apply to linux-source-$version $pkgver"
		done < <(patch_files "$version" $sets)

		local -a kmake=(make -C "$tree" O="$obj" -j"$(nproc)" CC="ccache gcc"
			KBUILD_BUILD_TIMESTAMP="$pkgver" KBUILD_BUILD_USER=pmem-aware
			KBUILD_BUILD_HOST=harness)
		export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
		mkdir -p "$(dirname "$dest")"
		{
			"${kmake[@]}" tinyconfig
			"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment"
			"${kmake[@]}" olddefconfig
		} >"$dest.log" 2>&1 || die "configuring $flavour failed: see $dest.log"
		# A dependency that drops an option would boot a kernel without DAX.
		while read -r opt; do
			grep -qx "$opt" "$obj/.config" ||
				die "$flavour: config fragment option '$opt' did not survive olddefconfig (missing dependency?)"
		done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment")
		"${kmake[@]}" bzImage >>"$dest.log" 2>&1 ||
			die "building $flavour failed: see the end of $dest.log"
		rm -rf "$dest.tmp"
		mkdir -p "$dest.tmp"
		cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$obj/System.map" "$dest.tmp/"
		mv "$dest.tmp/.config" "$dest.tmp/config"
		mv "$dest.tmp" "$dest"
		mv "$dest.log" "$dest/build.log"
		flock -u 9
	fi
	# Builds cached before System.map was kept: the object tree still holds
	# it when its bzImage is this very build (the last of its version).
	obj=$cache/obj/$version
	if [ ! -e "$dest/System.map" ] && [ -e "$obj/System.map" ] &&
		cmp -s "$obj/arch/x86/boot/bzImage" "$dest/bzImage"; then
		cp "$obj/System.map" "$dest/System.map"
	fi
	mkdir -p "$out/$flavour"
	# System.map names kernel PCs in ADR crash reports (no KASLR in our config).
	for p in bzImage config System.map; do
		if [ -e "$dest/$p" ]; then ln -sfn "$dest/$p" "$out/$flavour/$p"; else rm -f "$out/$flavour/$p"; fi
	done
	rm -f "$out/$flavour/kernel.json"
	# shellcheck disable=SC2086
	write_metadata "$flavour" "$version" "$pkgver" "$key" $sets >"$out/$flavour/kernel.json"
	echo "build-kernel: $flavour ready: $out/$flavour/bzImage" >&2
}

[ $# -gt 0 ] || die "usage: build-kernel.sh FLAVOUR... | --list | --key FLAVOUR"
case $1 in
--list) list_flavours; exit 0 ;;
--key) flavour_key "$2"; exit 0 ;;
esac
for f in "$@"; do
	flavour_row "$f" >/dev/null || die "unknown flavour '$f' (known: $(list_flavours | tr '\n' ' '))"
done
for f in "$@"; do
	build_flavour "$f"
done
