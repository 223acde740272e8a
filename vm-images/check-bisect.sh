#!/usr/bin/env bash
# Prove that a patch series is bisectable: after each of its patches, in
# order, the files the series touches still compile.
#
#   vm-images/check-bisect.sh VERSION SET...   e.g. 6.1 rdfix aware
#
# Each step applies one more patch to a copy of the pristine Debian source
# and rebuilds, in one object tree, every object the series changes (and
# the users of the headers it changes), with the guest config. The last
# step also builds the files whose 32-bit path the series changes with an
# i386 tinyconfig (VM_PMEM_AWARE is VM_NONE there). A series that passed is
# remembered under $PMEM_CACHE/bisect/, keyed by its patches and this
# script, so an unchanged series is checked in a second. A full bzImage per
# patch would cost a kernel build each; the objects are what a patch can
# break that the final build does not already prove.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
fragment=$here/config/guest.config
patches_dir=${PMEM_PATCHES:-$here/patches}	# the suite points it at a planted series

die() { echo "check-bisect: $*" >&2; exit 1; }
# shellcheck source=vm-images/lib-selftests.sh
. "$here/lib-selftests.sh"

[ $# -ge 2 ] || die "usage: check-bisect.sh VERSION SET... (sets of vm-images/patches/VERSION/)"
version=$1; shift
patches=()
for set in "$@"; do
	[ -d "$patches_dir/$version/$set" ] || die "no patch set $version/$set under $patches_dir"
	while IFS= read -r p; do patches+=("$p"); done < <(find "$patches_dir/$version/$set" \
		-name '[0-9]*.patch' ! -name '0000-*' | sort)
done
[ ${#patches[@]} -gt 0 ] || die "patch sets $* of $version hold no patches"

key=$({ echo "$version $*"; sha256sum "$0" "$here/lib-selftests.sh" "$fragment" "${patches[@]}" | cut -d' ' -f1; } |
	sha256sum | cut -c1-16)
mark=$cache/bisect/$version-$key.ok
if [ -e "$mark" ]; then
	echo "check-bisect: $version $*: ${#patches[@]} patches, each builds (checked before, $mark)"
	exit 0
fi

# Objects: every .c a patch touches, plus the users of headers whose only
# consumers are elsewhere (tracepoint flag names are printed by mm/debug.c).
objects() {
	sed -n 's|^+++ b/\(.*\)$|\1|p' "${patches[@]}" | sort -u | while read -r f; do
		case $f in
		tools/*) ;; # selftests: built by their own Makefile, below
		*.c) echo "${f%.c}.o" ;;
		include/trace/events/mmflags.h) echo mm/debug.o ;;
		include/linux/mm.h | include/linux/mman.h) echo mm/mmap.o ;;
		esac
	done | sort -u
}
mapfile -t objs < <(objects)
mapfile -t tests < <(selftests_added "${patches[@]}")
[ ${#objs[@]} -gt 0 ] || die "the series touches no C file"

pkgver=$(dpkg-query -W -f='${Version}' "linux-source-$version" 2>/dev/null) ||
	die "linux-source-$version is not installed: run 'apt-get install linux-source-$version'"
src=$cache/src/linux-$version-$pkgver	# extracted by build-kernel.sh
if [ ! -e "$src/.extracted" ]; then
	die "linux-source-$version is not extracted yet: run 'vm-images/build-kernel.sh $version-stock' first"
fi
work=$cache/bisect/work-$version
rm -rf "$work"
mkdir -p "$work/obj" "$work/obj32"
cp -al "$src" "$work/tree"
trap 'rm -rf "$work"' EXIT
export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
kmake() { make -C "$work/tree" -j"$(nproc)" CC="ccache gcc" "$@"; }
log=$work/log

echo "check-bisect: $version $*: ${#patches[@]} patches, building ${objs[*]} after each" >&2
{
	kmake O="$work/obj" tinyconfig
	"$work/tree/scripts/kconfig/merge_config.sh" -m -O "$work/obj" "$work/obj/.config" "$fragment"
	kmake O="$work/obj" olddefconfig
	kmake O="$work/obj" prepare
} >"$log" 2>&1 || { tail -20 "$log" >&2; die "configuring $version failed"; }
kmake O="$work/obj" "${objs[@]}" >>"$log" 2>&1 || { tail -20 "$log" >&2; die "pristine $version does not build ${objs[*]}"; }

n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	name=${p#"$patches_dir/"}
	# The tree is hard links to the pristine one; patch writes new files.
	patch -d "$work/tree" -p1 -s --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
		die "patch $n ($name) does not apply"
	if ! kmake O="$work/obj" "${objs[@]}" >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | tail -8 >&2
		die "after patch $n ($name) the tree does not build: bisection would break here"
	fi
	for t in "${tests[@]}"; do
		[ -e "$work/tree/$t.c" ] || continue
		if ! selftest_build "$work/tree" "$work/obj" "$work/kselftest" "$t" >>"$log" 2>&1; then
			grep -E 'error|Error' "$log" | tail -8 >&2
			die "after patch $n ($name) the selftest $t does not build"
		fi
	done
	echo "check-bisect: $n/${#patches[@]} builds: $name" >&2
done

# The 32-bit path: no vma bit, so the flag must compile away.
{
	kmake O="$work/obj32" ARCH=i386 tinyconfig
	"$work/tree/scripts/config" --file "$work/obj32/.config" --enable PROC_FS --enable MMU
	kmake O="$work/obj32" ARCH=i386 olddefconfig
	kmake O="$work/obj32" ARCH=i386 mm/mmap.o mm/debug.o fs/proc/task_mmu.o
} >>"$log" 2>&1 || { grep -E 'error|Error' "$log" | tail -8 >&2; die "the series does not build for i386"; }
echo "check-bisect: the whole series builds for i386 (mm/mmap.o mm/debug.o fs/proc/task_mmu.o)" >&2

mkdir -p "$(dirname "$mark")"
printf '%s\n' "${patches[@]#"$patches_dir/"}" >"$mark"
echo "check-bisect: $version $*: ${#patches[@]} patches, each builds"
