#!/usr/bin/env bash
# Build a fuzz target's planted twin: tests/fuzz/planted.sh BUILD_DIR TARGET
#
# The twin is the target built as the Makefile builds it (make
# fuzz-recipe-TARGET: the same compiler, flags, sources and libraries) but
# from a copy of the directories that tests/fuzz/planted/TARGET.patch
# touches, with the patch applied to the copy: the tree is never modified.
# The copy holds those directories' .c files and every header of the tree
# (relative includes such as "../../results/stats.h" resolve inside it);
# it comes first on the include path, so the copied sources and the others
# read the copy's headers. The twin is BUILD_DIR/fuzz/planted/TARGET/fuzz-TARGET.
#
# Exit 0 when it is built; 2 when the patch no longer applies to the tree
# (one line on stderr names the patch to update); 1 on any other failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR TARGET" >&2; exit 1; }
build=$1 t=$2
patchf=tests/fuzz/planted/$t.patch
copy=$build/fuzz/planted/$t
log=$copy/build.log

[ -f "$patchf" ] || { echo "planted: $t: no $patchf" >&2; exit 1; }
mapfile -t recipe < <(make -s --no-print-directory BUILD_DIR="$build" "fuzz-recipe-$t")
if [ ${#recipe[@]} -ne 3 ] || [ -z "${recipe[1]}" ]; then
	echo "planted: $t: make fuzz-recipe-$t names no sources: is $t a target of the Makefile?" >&2
	exit 1
fi
read -ra cc <<<"${recipe[0]}"
read -ra srcs <<<"${recipe[1]}"
read -ra libs <<<"${recipe[2]}"

# The files the patch changes, relative to the top of the tree.
mapfile -t touched < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patchf")
if [ ${#touched[@]} -eq 0 ]; then
	echo "planted: $t: $patchf changes no file (want '+++ b/<path>' lines)" >&2
	exit 1
fi
rm -rf "$copy"
mkdir -p "$copy"
git ls-files -z -- '*.h' | xargs -0 cp --parents -t "$copy" || exit 1
dirs=()
for f in "${touched[@]}"; do
	d=$(dirname "$f")
	case /$f/ in
	*/../* | //*) echo "planted: $t: $patchf names $f, outside the tree" >&2; exit 1 ;;
	esac
	case " ${dirs[*]} " in *" $d "*) continue ;; esac
	mkdir -p "$copy/$d"
	cp "$d"/*.[ch] "$copy/$d/" 2>/dev/null
	dirs+=("$d")
done
if ! patch -d "$copy" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch -r - <"$patchf" >"$log" 2>&1; then
	echo "planted: $t: $patchf no longer applies to ${touched[*]}: update it (see $log)" >&2
	exit 2
fi

# The recipe with the copy's sources for the tree's, and its directories first.
incs=() build_srcs=()
# The copy first: root-relative includes ("vm/console.h") and sibling ones
# both find the patched headers.
incs+=("-I$copy")
for d in "${dirs[@]}"; do
	incs+=("-I$copy/$d")
done
for s in "${srcs[@]}"; do
	if [ -f "$copy/$s" ]; then build_srcs+=("$copy/$s"); else build_srcs+=("$s"); fi
done
if ! "${cc[0]}" "${incs[@]}" "${cc[@]:1}" -o "$copy/fuzz-$t" "${build_srcs[@]}" "${libs[@]}" >>"$log" 2>&1; then
	echo "planted: $t: the twin does not build with $patchf (see $log)" >&2
	exit 1
fi
exit 0
