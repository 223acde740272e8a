#!/usr/bin/env bash
# Build xfstests and the root filesystem of the guests that run it.
#
#   vm-images/build-xfstests.sh [--out LINK] [XFSTESTS_CHECKOUT]
#
# xfstests: a checkout of yours is built in place unless it is built already
# (its ltp/fsstress exists), as you would build it yourself. Without one, the
# upstream snapshot (../shared/third-party/xfstests-*.tar.gz, or the file
# XFSTESTS_TARBALL names) is unpacked and built in the cache.
#
# The root filesystem: Debian bookworm's minbase plus xfstests/packages, made
# by mmdebstrap and cached keyed by that list; then the built tree under
# /xfstests, the guest agent, /init, xfstests/guest-run.sh, su and aware-mmap.so, made
# into an ext4 image with mke2fs -d (no loop device, no mount). The image is
# cached keyed by the package list, the tree and those files, and published as
# build/images/xfstests-root.img (or LINK) with its .json beside it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
build=${PMEM_BUILD:-$top/build}
packages=$top/xfstests/packages
guest_files=("$here/guest/init" "$top/xfstests/guest-run.sh" "$top/xfstests/su" "$build/guest/pmem-agent"
	"$build/guest/aware-mmap.so" /bin/busybox)
# Our patches to fstests (the MAP_PMEM_AWARE case, generic/788, for
# fstests@vger.kernel.org): applied to the image's copy of the tree, never
# to a user's checkout, and skipped where the tree has them already.
mapfile -t fstests_patches < <(find "$top/xfstests/patches" -name '[0-9]*.patch' | sort)
guest_files+=("${fstests_patches[@]}")
# Bump when the Debian root is made another way (the root image is also
# keyed by this script, which stages and patches the tree).
recipe=1

die() { echo "build-xfstests: $*" >&2; exit 1; }
say() { echo "build-xfstests: $*" >&2; }

link=$build/images/xfstests-root.img
if [ "${1:-}" = --out ]; then
	[ $# -ge 2 ] || die "--out needs a path"
	link=$2
	shift 2
fi
[ $# -le 1 ] || die "usage: build-xfstests.sh [--out LINK] [XFSTESTS_CHECKOUT]"
for f in "${guest_files[@]}"; do
	[ -e "$f" ] || die "missing $f: run 'make' (and 'make setup' for busybox-static)"
done
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run 'make setup'"
mkdir -p "$cache/xfstests" "$build/images"

# A tree's identity: its files' names, sizes and times (cheap, and a rebuild
# or an edit changes it).
tree_key() {
	(cd "$1" && find check common tests src ltp lib include -type f -printf '%P %s %T@\n' 2>/dev/null) |
		LC_ALL=C sort | sha256sum | cut -c1-16
}

# xfstests' own build: configure and make, as its README says.
build_tree() { # dir log
	say "building xfstests in $1 (log in $2)"
	make -C "$1" -j"$(nproc)" >"$2" 2>&1 || die "building xfstests failed: see $2 (its build dependencies: 'make setup')"
	[ -x "$1/ltp/fsstress" ] || die "xfstests built without ltp/fsstress: see $2"
}

find_snapshot() {
	local t
	for t in ${XFSTESTS_TARBALL:-} "$top"/../shared/third-party/xfstests-*.tar.gz \
		/work/shared/third-party/xfstests-*.tar.gz; do
		[ -f "$t" ] && { echo "$t"; return 0; }
	done
	return 1
}

if [ $# -eq 1 ]; then
	tree=$(cd "$1" 2>/dev/null && pwd) || die "no such directory: $1"
	if [ ! -x "$tree/check" ] || [ ! -d "$tree/tests" ]; then
		die "$tree is not an xfstests checkout (no check script or tests/): point XFSTESTS= at one"
	fi
	[ -x "$tree/ltp/fsstress" ] || build_tree "$tree" "$tree/build-pmem-harness.log"
	origin="checkout $tree"
else
	tarball=$(find_snapshot) ||
		die "no xfstests snapshot found: set XFSTESTS=<your checkout> or XFSTESTS_TARBALL=<file.tar.gz>"
	tree=$cache/xfstests/tree-$(sha256sum "$tarball" | cut -c1-16)
	if [ ! -x "$tree/ltp/fsstress" ]; then
		work=$(mktemp -d "$cache/xfstests/tree.XXXXXX")
		tar -xzf "$tarball" -C "$work"
		src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -print -quit)
		[ -x "$src/check" ] || die "$tarball holds no xfstests tree"
		build_tree "$src" "$work/build.log"
		rm -rf "$tree"
		mv "$src" "$tree"
		rm -rf "$work"
	fi
	origin="snapshot $(basename "$tarball")"
fi

# The Debian userland, keyed by the package list alone.
pkg_key=$({ echo "recipe $recipe"; grep -v '^#' "$packages"; } | sha256sum | cut -c1-16)
base=$cache/xfstests/debian-$pkg_key.tar
if [ ! -e "$base" ]; then
	say "making the Debian root filesystem with mmdebstrap (packages: xfstests/packages)"
	mmdebstrap --variant=minbase --format=tar --include="$(grep -v '^#' "$packages" | paste -sd, -)" \
		bookworm "$base.tmp" >"$base.log" 2>&1 ||
		die "mmdebstrap failed: see $base.log (it needs Debian's mirror and root)"
	mv "$base.tmp" "$base"
fi

key=$({
	echo "recipe $recipe base $pkg_key tree $(tree_key "$tree")"
	# This script too: how the tree is patched and staged is in it.
	sha256sum "${guest_files[@]}" "${BASH_SOURCE[0]}" | cut -d" " -f1
} | sha256sum | cut -c1-16)
img=$cache/xfstests/root-$key.img
if [ ! -e "$img" ]; then
	say "making the root image (key $key)"
	stage=$(mktemp -d "$cache/xfstests/stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	tar -xf "$base" -C "$stage"
	mkdir -p "$stage/xfstests" "$stage/usr/share/pmem" "$stage/mnt/test" "$stage/mnt/scratch"
	tar -C "$tree" --exclude=.git -cf - . | tar -C "$stage/xfstests" -xf -
	for p in "${fstests_patches[@]}"; do
		patch -d "$stage/xfstests" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1 && continue
		patch -d "$stage/xfstests" -p1 -N -s <"$p" >"$stage.patch.log" 2>&1 ||
			die "${p#"$top"/} does not apply to the xfstests $origin: see $stage.patch.log"
		# The helpers it adds, built by the tree's own src/Makefile.
		sed -n 's|^+++ b/src/\([^/]*\)\.c$|\1|p' "$p" | while read -r prog; do
			make -C "$stage/xfstests/src" "$prog" >>"$stage.patch.log" 2>&1 ||
				die "building src/$prog of ${p#"$top"/} failed: see $stage.patch.log"
		done
		# check runs only the tests its group lists name: remake the lists
		# of the directories the patch adds tests to.
		sed -n 's|^+++ b/tests/\([^/]*\)/[0-9][0-9]*$|\1|p' "$p" | sort -u | while read -r dir; do
			make -C "$stage/xfstests/tests/$dir" group.list >>"$stage.patch.log" 2>&1 ||
				die "remaking tests/$dir/group.list after ${p#"$top"/} failed: see $stage.patch.log"
		done
	done
	rm -f "$stage.patch.log"
	install -m 755 "$here/guest/init" "$stage/init"
	install -m 755 "$top/xfstests/guest-run.sh" "$stage/usr/share/pmem/xfstests-run.sh"
	install -m 755 "$build/guest/pmem-agent" "$stage/usr/local/bin/pmem-agent"
	# Debian's su fails in a guest without networking: see xfstests/su.
	install -m 755 "$top/xfstests/su" "$stage/usr/local/bin/su"
	# FORCE_AWARE=1's LD_PRELOAD library (xfstests/aware-mmap.c).
	install -m 644 "$build/guest/aware-mmap.so" "$stage/usr/local/lib/pmem-aware-mmap.so"
	# Debian's poweroff is systemd's; /init powers off with busybox's.
	install -m 755 /bin/busybox "$stage/usr/local/bin/busybox"
	ln -sf busybox "$stage/usr/local/bin/poweroff"
	# The users xfstests' tests switch to (README: "useradd -m fsgqa" ...).
	chroot "$stage" /bin/sh -e -c 'useradd -m fsgqa; useradd fsgqa2; useradd 123456-fsgqa' ||
		die "adding xfstests' users failed"
	echo pmem-xfstests >"$stage/etc/hostname"
	# The image: what the tree and Debian take, plus 512 MiB for results and
	# test files, in whole 2 MiB pages as QEMU maps an NVDIMM.
	mib=$(($(du -sm "$stage" | cut -f1) + 512))
	mib=$(((mib + 1) / 2 * 2))
	mke2fs -q -t ext4 -d "$stage" -L pmem-root "$img.tmp" "${mib}M" ||
		die "mke2fs -d failed for $img.tmp"
	mv "$img.tmp" "$img"
	rm -rf "$stage"
	trap - EXIT
fi
# Keep the four images used last, this one among them: a cached image is
# marked as used now, or a test that builds a planted image after taking
# the default one from the cache would see the default one pruned.
touch -c "$img"
find "$cache/xfstests" -maxdepth 1 -name "root-*.img" -printf "%T@ %p\n" | sort -rn | tail -n +5 |
	cut -d" " -f2- | awk -v keep="$img" '$0 != keep' | xargs -r rm -f

mkdir -p "$(dirname "$link")"
ln -sfn "$img" "$link"
version=$(cd "$tree" && git describe --always --dirty 2>/dev/null || echo "${origin#snapshot }")
jq -n --arg image "$img" --arg key "$key" --arg tree "$tree" --arg origin "$origin" \
	--arg version "$version" --arg pkg "$pkg_key" \
	'{image: $image, key: $key, tree: $tree, origin: $origin, xfstests_version: $version,
	  packages_key: $pkg}' >"${link%.img}.json"
say "ready: $link (xfstests: $origin)"
