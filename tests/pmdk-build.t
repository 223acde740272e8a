#!/usr/bin/env bash
# PMDK built from source for the guest (targets/pmdk/, docs/pmdk.md), on the
# host, no guest booted:
#  - build.sh builds (or finds in the cache) static data_store, map-driver and
#    map-check, nondebug and debug, with debug info; a second call answers
#    from the cache at once; addr2line names libpmemobj's source lines in them;
#  - data_store recovers its pool on a second run for the trees and the
#    skiplist, and the three hash maps exit 1 there ('destroy' not implemented);
#  - map-driver's printed keys all pass map-check for every map type; a
#    planted key never inserted fails it (status 4), a pool checked as another
#    map type fails the map's check (status 3), and with nothing printed a
#    missing pool passes;
#  - map-driver ... remove takes every key out again, and each map's
#    removals pass map-check; a key printed as removed but still there fails
#    it (status 6);
#  - every row of the mutant table applies to the source (mutants.sh --check).
# Which source: PMDK=<checkout> or PMDK_DEBSRC=<dir> when set, else Debian's
# source package (apt; root the first time). Pools are made on the test
# directory's filesystem with PMEM_IS_PMEM_FORCE=1 (no real pmem needed).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

out=$RUNS/pmdk-build
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"

how="run 'sudo make pmdk' once (it fetches Debian's pmdk source package), or set PMDK=<a PMDK 1.12.1 checkout>"
t0=$(date +%s.%N)
dir=$(targets/pmdk/build.sh 2>"$out/build.err")
rc=$?
t1=$(date +%s.%N)
sed 's/^/# /' "$out/build.err"
# A mirror that does not serve PMDK's source: this machine cannot (exit 3).
if [ "$rc" -eq 3 ]; then
	tap_skip "PMDK built from source, and its programs" "$(grep -m1 'no PMDK source' "$out/build.err")"
	tap_done
fi
echo "# build.sh: ${dir:-nothing} ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
[ "$rc" -eq 0 ] && [ -f "$dir/info" ] && [ "$(wc -l <<<"$dir")" -eq 1 ]
ok=$?
desc="build.sh prints one directory, with info"
[ "$ok" -eq 0 ] || desc+=": $how"
tap_ok "$ok" "$desc" "$out/build.err"
[ "$rc" -eq 0 ] || tap_done
sed 's/^/# info: /' "$dir/info"

t0=$(date +%s%N)
dir2=$(targets/pmdk/build.sh 2>/dev/null)
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$dir2" = "$dir" ] && [ "$ms" -lt 1000 ]
tap_ok $? "a second call answers from the cache: the same directory in $ms ms"

bad=
for p in data_store map-driver map-check; do
	for v in "" -debug; do
		what=$(file -b "$dir/bin/$p$v" 2>&1)
		[[ $what == *"statically linked"* && $what == *"with debug_info"* ]] || bad+=" $p$v ($what)"
	done
done
[ -z "$bad" ]
tap_ok $? "bin/{data_store,map-driver,map-check}{,-debug} are static with debug info${bad:+; not:$bad}"

# A function of libpmemobj's tx.c and one of btree_map.c, by address.
where=
for sym in pmemobj_tx_commit btree_map_insert; do
	addr=$(nm "$dir/bin/data_store" | awk -v s="$sym" '$3 == s { print $1 }')
	where+="$(addr2line -e "$dir/bin/data_store" "0x${addr:-0}") "
done
echo "# addr2line: $where"
[[ $where == *"/src/libpmemobj/tx.c:"[0-9]*" "*"/tree_map/btree_map.c:"[0-9]* ]]
tap_ok $? "addr2line names libpmemobj's tx.c and btree_map.c, with lines, in bin/data_store"

export PMEM_IS_PMEM_FORCE=1
# data_store twice on one pool: the second run opens (recovers) it and
# destroys the old map first, which the hash maps cannot do.
runs=
for map in btree ctree rbtree skiplist hashmap_atomic hashmap_tx hashmap_rp; do
	pool=$out/ds-$map.obj
	"$dir/bin/data_store" "$map" "$pool" 50 >"$out/ds-$map.1" 2>&1
	r1=$?
	"$dir/bin/data_store" "$map" "$pool" 50 >"$out/ds-$map.2" 2>&1
	r2=$?
	runs+="$map $r1/$r2 "
	case $map in
	hashmap_*) [ "$r1" = 0 ] && [ "$r2" = 1 ] && grep -q "'destroy' function not implemented" "$out/ds-$map.2" ;;
	*) [ "$r1" = 0 ] && [ "$r2" = 0 ] ;;
	esac || bad+=" $map"
done
echo "# data_store exit statuses, first/second run: $runs"
[ -z "$bad" ]
tap_ok $? "data_store: a second run recovers btree, ctree, rbtree and skiplist (exit 0); the hash maps exit 1, 'destroy' not implemented${bad:+; not:$bad}"

bad=
for map in btree ctree rbtree skiplist hashmap_atomic hashmap_tx hashmap_rp; do
	pool=$out/md-$map.obj
	"$dir/bin/map-driver" "$map" "$pool" 100 >"$out/md-$map.printed" 2>"$out/md-$map.err" &&
		[ "$(grep -c '^inserted [1-9][0-9]*$' "$out/md-$map.printed")" -eq 100 ] &&
		{ echo "a line other than inserted K"; cat "$out/md-$map.printed"; } >"$out/md-$map.noisy" &&
		PMEM_PRINTED=$out/md-$map.noisy "$dir/bin/map-check" "$map" "$pool" 2>>"$out/md-$map.err" &&
		PMEM_PRINTED=$out/md-$map.printed "$dir/bin/map-check" "$map" "$pool" 2>>"$out/md-$map.err" &&
		PMEM_PRINTED=$out/md-$map.printed "$dir/bin/map-check-debug" "$map" "$pool" 2>>"$out/md-$map.err" ||
		bad+=" $map"
done
[ -z "$bad" ]
tap_ok $? "map-driver prints 100 keys and map-check (and -debug) finds them all, other lines left out, for every map type${bad:+; not:$bad}"

# A key map-driver never printed, planted among the printed ones.
{ cat "$out/md-btree.printed"; echo "inserted 12345"; } >"$out/planted"
PMEM_PRINTED=$out/planted "$dir/bin/map-check" btree "$out/md-btree.obj" 2>"$out/planted.err"
rc=$?
[ "$rc" -eq 4 ] && grep -q 'key 12345 .* is missing' "$out/planted.err"
tap_ok $? "a planted key never inserted fails map-check with status 4, naming the key (got $rc)" "$out/planted.err"

PMEM_PRINTED=$out/md-btree.printed "$dir/bin/map-check" ctree "$out/md-btree.obj" 2>"$out/wrongtype.err"
r1=$?
PMEM_PRINTED=/nonexistent "$dir/bin/map-check" btree "$out/no-such.obj" 2>/dev/null
r2=$?
PMEM_PRINTED=$out/md-btree.printed "$dir/bin/map-check" btree "$out/no-such.obj" 2>/dev/null
r3=$?
[ "$r1" -eq 3 ] && [ "$r2" -eq 0 ] && [ "$r3" -eq 2 ]
tap_ok $? "map-check: another map type fails the map's check (3, got $r1); no pool passes with nothing printed (0, got $r2) and fails with keys printed (2, got $r3)"

# The removal path: every key inserted, then removed again; a key printed
# as removed must be gone (status 6 when it is not).
bad=
for map in btree ctree rbtree skiplist hashmap_atomic hashmap_tx hashmap_rp; do
	pool=$out/rm-$map.obj
	"$dir/bin/map-driver" "$map" "$pool" 40 remove >"$out/rm-$map.printed" 2>"$out/rm-$map.err" &&
		[ "$(grep -c '^removed [1-9][0-9]*$' "$out/rm-$map.printed")" -eq 40 ] &&
		PMEM_PRINTED=$out/rm-$map.printed "$dir/bin/map-check" "$map" "$pool" 2>>"$out/rm-$map.err" ||
		bad+=" $map"
done
{ cat "$out/md-btree.printed"; sed -n 's/^inserted /removed /p' "$out/md-btree.printed"; } >"$out/notremoved"
PMEM_PRINTED=$out/notremoved "$dir/bin/map-check" btree "$out/md-btree.obj" 2>"$out/notremoved.err"
rc=$?
[ -z "$bad" ] && [ "$rc" -eq 6 ] && grep -q 'printed as removed) is still there' "$out/notremoved.err"
tap_ok $? "map-driver ... remove: every map's removals pass map-check; keys printed as removed but there fail it with status 6 (got $rc)${bad:+; not:$bad}" "$out/notremoved.err"

targets/pmdk/mutants.sh --check >"$out/mutants.out" 2>&1
rc=$?
sed 's/^/# /' "$out/mutants.out"
n=$(targets/pmdk/mutants.sh --list | wc -l)
[ "$rc" -eq 0 ] && [ "$n" -ge 24 ]
tap_ok $? "mutants.sh --check: every one of the $n rows applies to the source" "$out/mutants.out"

targets/pmdk/build.sh --mutant no-such-row >/dev/null 2>"$out/nomutant.err"
rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <"$out/nomutant.err")" -eq 1 ]
tap_ok $? "build.sh --mutant with an unknown id fails with one line" "$out/nomutant.err"
tap_done
