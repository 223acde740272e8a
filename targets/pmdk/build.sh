#!/usr/bin/env bash
# Build PMDK's libpmem and libpmemobj from source with -g, and static x86-64
# binaries of PMDK's example data_store and of our map-driver and map-check
# (targets/pmdk/), for crash-testing inside a guest that has no PMDK.
#
#   targets/pmdk/build.sh [--mutant ID] [--debug]
#
# Prints one line on stdout, the directory of the build (cached):
#   bin/data_store, bin/map-driver, bin/map-check         libpmemobj nondebug (-O2 -g)
#   bin/data_store-debug, bin/map-driver-debug, ...       libpmemobj debug (PMDK's
#                                                         DEBUG build: -O0, its ASSERTs on)
#   bin/data_store-aware, bin/map-driver-aware, ...       nondebug, each mmap of theirs
#                                                         asking for MAP_PMEM_AWARE first
#                                                         (xfstests/aware-mmap.c, --wrap)
#   lib/{nondebug,debug}/libpmem{,obj}.a, pmdk/ (the source the binaries'
#   debug info names), info (key=value lines), build.log
#
# --mutant ID   apply row ID of targets/pmdk/mutants to the copy first
# --debug       show the build's output on stderr as it runs (build.log
#               keeps it either way)
#
# Exit status: 0 with the directory on stdout; 3 when no source can be had
# (the mirror does not serve Debian's, and no PMDK= or PMDK_DEBSRC= is
# given); 1 on any other failure, with one line on stderr.
#
# Source: PMDK=<your checkout> (copied, never modified), PMDK_DEBSRC=<dir
# of pmdk_<ver>.dsc and its files>, or else Debian's source package of the
# installed libpmemobj-dev, fetched with apt-get source (root the first
# time, to add a deb-src entry). PMDK_JOBS: make -j (2).
#
# Cached in $PMEM_CACHE/pmdk/<version>-<mutant|base>-<key>/, the key a hash
# of the source's identity, the mutant row, the flags, the compiler and
# these scripts and driver sources; built in a temporary directory and
# renamed into place, so an interrupted build is never taken as done.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vm-images/lib-debsrc.sh
. "$here/../../vm-images/lib-debsrc.sh"
DEBSRC_SELF=targets/pmdk/build.sh # read by lib-debsrc.sh
export DEBSRC_SELF
# shellcheck source=targets/pmdk/lib.sh
. "$here/lib.sh"

usage() {
	sed -n '/^#   targets/,/^# these scripts/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

mutant='' verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	--mutant) [ $# -ge 2 ] || usage; mutant=$2; shift 2 ;;
	--mutant=*) mutant=${1#--mutant=}; shift ;;
	--debug) verbose=1; shift ;;
	-h | --help) usage ;;
	*) echo "pmdk: unknown argument '$1'" >&2; usage ;;
	esac
done

# PMDK's Makefiles read these from the environment: a make above us (our
# Makefile's --no-builtin-variables) or a user's CFLAGS would change the
# build behind the key's back.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES CFLAGS CPPFLAGS LDFLAGS LIBS EXTRA_CFLAGS EXTRA_LDFLAGS DEBUG

# What the build is made of: each goes into the key.
CC=gcc
JOBS=${PMDK_JOBS:-2}
PMDK_MAKE=(NDCTL_ENABLE=n BUILD_RPMEM=n "CC=$CC")
# PMDK's nondebug build is -O2 without -g; its debug build -O0 -ggdb -DDEBUG.
# GCC 12 trips PMDK 1.12.1's -Werror (unused parameters in pmem.h's stubs).
LIB_CFLAGS="-g -Wno-error"
PROG_CFLAGS="-g -O2 -std=gnu11"
LINK_FLAGS="-static -g"
MAPS=(ctree btree rbtree hashmap_atomic hashmap_tx hashmap_rp skiplist)

pmdk_source_identify
mutant_key=none
if [ -n "$mutant" ]; then
	mutant_row "$mutant"
	mutant_key="$MUT_ID|$MUT_FILE|$MUT_FIND|$MUT_REPL"
fi
cc_version=$("$CC" -dumpfullversion 2>/dev/null) || die "no $CC; run 'sudo make setup'"
scripts=$(cat "$here/build.sh" "$here/lib.sh" "$here/map-common.h" "$here/map-driver.c" "$here/map-check.c" "$here/../../xfstests/aware-mmap.c" | hash_stdin)
key=$(printf '%s\n' "source=$PMDK_SRC_ID" "mutant=$mutant_key" "make=${PMDK_MAKE[*]}" \
	"lib_cflags=$LIB_CFLAGS" "prog_cflags=$PROG_CFLAGS" "link=$LINK_FLAGS" "maps=${MAPS[*]}" \
	"cc=$CC $cc_version" "scripts=$scripts" | hash_stdin)
name=${PMDK_SRC_VERSION//[^A-Za-z0-9.+~_-]/_}-${mutant:-base}-${key:0:12}
out=$PMDK_CACHE/$name
if [ -f "$out/info" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$PMDK_CACHE"
exec {lock}> "$out.lock"
flock "$lock"
if [ -f "$out/info" ]; then
	echo "$out"
	exit 0
fi
rm -rf "$out".tmp.* # left by a build that was killed (we hold the lock)
tmp=$(mktemp -d "$out.tmp.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
log=$tmp/build.log
: > "$log"
t0=$(date +%s)

run() { # command...: its output into the log (and on stderr with --debug)
	if [ "$verbose" = 1 ]; then
		"$@" 2>&1 | tee -a "$log" >&2
	else
		"$@" >> "$log" 2>&1
	fi
}
failed() { # what
	cp "$log" "$out.failed.log"
	tail -n 12 "$log" | sed 's/^/pmdk:   /' >&2
	die "$1 (whole log: $out.failed.log)"
}

tree=$(pmdk_source_tree)
if [ -n "$mutant" ]; then
	found=$(mutant_matches "$tree")
	[ "$found" = 1 ] ||
		die "mutant $MUT_ID: the line '$MUT_FIND' occurs $found times in $MUT_FILE, not once"
fi
echo "pmdk: building PMDK $PMDK_SRC_DESC${mutant:+ with mutant $mutant} into $out" >&2

# The copy: what git knows of a user's tree (tracked and untracked files,
# not ignored ones), or every file but PMDK's own build outputs. PMDK's
# tests and documentation are not needed for the libraries.
src=$tmp/pmdk
mkdir -p "$src"
if [ -n "${PMDK:-}" ] && [ "${PMDK_SRC_ID#tree:git:}" != "$PMDK_SRC_ID" ]; then
	(cd "$PMDK" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			case $f in src/test/* | doc/*) continue ;; esac
			[ ! -f "$f" ] || printf '%s\0' "$f"
		done | tar --null -T - -cf -) |
		tar -xf - -C "$src"
else
	tar -C "$tree" -cf - --exclude=./.git --exclude=./src/test --exclude=./doc --exclude=./debian \
		--exclude=./src/nondebug --exclude=./src/debug . | tar -xf - -C "$src"
fi

if [ -n "$mutant" ]; then
	mutant_apply "$src"
	echo "mutant $MUT_ID: $MUT_FILE:$MUT_LINE '$MUT_FIND' -> '$MUT_REPL'" >> "$log"
fi

# Debug info and __FILE__ name the final directory, not the temporary one.
prefix_map="-ffile-prefix-map=$tmp=$out"
make_args=("${PMDK_MAKE[@]}" -j"$JOBS" "EXTRA_CFLAGS=$LIB_CFLAGS $prefix_map")
[ -z "${PMDK:-}" ] || make_args+=("SRCVERSION=$PMDK_SRC_VERSION")
# src/Makefile builds each library's nondebug and then its debug variant.
run make -C "$src/src" "${make_args[@]}" libpmem libpmemobj || failed "PMDK's build failed"
for v in nondebug debug; do
	mkdir -p "$tmp/lib/$v"
	cp "$src/src/$v/libpmem.a" "$src/src/$v/libpmemobj.a" "$tmp/lib/$v/" ||
		failed "PMDK's build made no $v libpmem.a and libpmemobj.a"
done
rm -rf "$src/src/nondebug" "$src/src/debug"

# The example maps, data_store and our programs: compiled once, linked with each variant.
ex=$src/src/examples/libpmemobj
map_src=("$ex/map/map.c")
for m in "${MAPS[@]}"; do map_src+=("$ex/map/map_$m.c"); done
map_src+=("$ex/tree_map/ctree_map.c" "$ex/tree_map/btree_map.c" "$ex/tree_map/rbtree_map.c"
	"$ex/hashmap/hashmap_atomic.c" "$ex/hashmap/hashmap_tx.c" "$ex/hashmap/hashmap_rp.c"
	"$ex/list_map/skiplist_map.c")
incs=(-I"$src/src/include" -I"$src/src/examples" -I"$ex/map" -I"$ex/tree_map" -I"$ex/hashmap" -I"$ex/list_map")
mkdir -p "$tmp/obj" "$tmp/bin"
objs=()
# shellcheck disable=SC2086 # the flag strings are lists of words
compile() { # source object
	run "$CC" $PROG_CFLAGS "$prefix_map" "${incs[@]}" -I"$here" -c -o "$2" "$1" || failed "cannot compile $1"
}
for s in "${map_src[@]}"; do
	o=$tmp/obj/$(basename "${s%.c}").o
	compile "$s" "$o" &
	objs+=("$o")
	# two at a time (PMDK_JOBS)
	[ "$(jobs -rp | wc -l)" -lt "$JOBS" ] || wait -n || true
done
wait || true
for o in "${objs[@]}"; do [ -s "$o" ] || failed "cannot compile the example maps"; done
run ar rcs "$tmp/obj/libmap.a" "${objs[@]}"
compile "$ex/map/data_store.c" "$tmp/obj/data_store.o"
compile "$here/map-driver.c" "$tmp/obj/map-driver.o"
compile "$here/map-check.c" "$tmp/obj/map-check.o"
# MODE=aware for a static program: its own calls to mmap wrapped at link
# time (no LD_PRELOAD reaches it) to ask for MAP_PMEM_AWARE first.
# shellcheck disable=SC2086 # the flag string is a list of words
run "$CC" $PROG_CFLAGS -DAWARE_WRAP -c -o "$tmp/obj/aware-mmap.o" "$here/../../xfstests/aware-mmap.c" ||
	failed "cannot compile xfstests/aware-mmap.c"

for v in nondebug debug; do
	suffix=
	[ "$v" = nondebug ] || suffix=-$v
	for p in data_store map-driver map-check; do
		# shellcheck disable=SC2086
		run "$CC" $LINK_FLAGS -o "$tmp/bin/$p$suffix" "$tmp/obj/$p.o" "$tmp/obj/libmap.a" \
			"$tmp/lib/$v/libpmemobj.a" "$tmp/lib/$v/libpmem.a" -pthread -ldl ||
			failed "cannot link bin/$p$suffix"
		what=$(file -b "$tmp/bin/$p$suffix")
		[[ $what == *"statically linked"* && $what == *"with debug_info"* ]] ||
			failed "bin/$p$suffix is not static with debug info: $what"
	done
done
for p in data_store map-driver map-check; do
	# shellcheck disable=SC2086
	run "$CC" $LINK_FLAGS -Wl,--wrap=mmap,--wrap=mmap64 -o "$tmp/bin/$p-aware" "$tmp/obj/$p.o" \
		"$tmp/obj/aware-mmap.o" "$tmp/obj/libmap.a" "$tmp/lib/nondebug/libpmemobj.a" \
		"$tmp/lib/nondebug/libpmem.a" -pthread -ldl || failed "cannot link bin/$p-aware"
	[[ $(nm "$tmp/bin/$p-aware") == *" T __wrap_mmap"* ]] || failed "bin/$p-aware does not wrap mmap"
done

# addr2line must name libpmemobj's source: a function of tx.c, at its line.
addr=$(nm "$tmp/bin/data_store" | awk '$3 == "pmemobj_tx_commit" { print $1 }')
where=$(addr2line -e "$tmp/bin/data_store" "0x${addr:-0}")
[[ $where == */src/libpmemobj/tx.c:[0-9]* ]] ||
	failed "addr2line names pmemobj_tx_commit's address 0x${addr:-?} '$where', not src/libpmemobj/tx.c:LINE"
echo "addr2line pmemobj_tx_commit 0x$addr: $where" >> "$log"
rm -rf "$tmp/obj"

{
	echo "pmdk_version=$PMDK_SRC_VERSION"
	echo "source=$PMDK_SRC_DESC"
	[ -n "${PMDK:-}" ] || echo "debian_patches=$(pmdk_source_patches "$tree")"
	echo "mutant=${mutant:-none}"
	if [ -n "$mutant" ]; then
		echo "mutant_at=$MUT_FILE:$MUT_LINE"
		echo "mutant_removes=$MUT_WHAT"
	fi
	echo "flags=libpmem, libpmemobj: PMDK's Makefiles, ${PMDK_MAKE[*]} EXTRA_CFLAGS='$LIB_CFLAGS' (nondebug -O2, debug -O0 -DDEBUG); programs: $PROG_CFLAGS; link: $LINK_FLAGS"
	echo "cc=$CC $cc_version"
	echo "key=$key"
	echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "build_seconds=$(($(date +%s) - t0))"
} > "$tmp/info"
mv "$tmp" "$out"
trap - EXIT
rm -f "$out.failed.log"
echo "pmdk: built in $(($(date +%s) - t0)) s: $out" >&2
echo "$out"
