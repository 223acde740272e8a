#!/usr/bin/env bash
# A user's CFLAGS stay the user's: make crashtest PROGRAM=... CFLAGS=...
# hands them to the program's build (--cflags), while the harness, the
# guest programs and the tests keep the project's own flags (-std=gnu11,
# -Werror and the rest), in this make and in the sub-make that builds them.
# Read from make -n into an empty build directory, so every compile shows.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

out=$RUNS/user-flags
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"

# Compiler lines of a make -n log: those that run gcc or cc on a source.
compiles() { grep -E "^(gcc|cc|clang) .*\.c( |\$)" "$1"; }

make -n crashtest PROGRAM=tests/fixtures/ack-late.c CFLAGS='-DNDEBUG -O0' BUILD_DIR="$out/b" \
	>"$out/crashtest.n" 2>&1
rc=$?
compiles "$out/crashtest.n" >"$out/compiles"
n=$(wc -l <"$out/compiles")
ours=$(grep -c -- '-std=gnu11 .*-Werror' "$out/compiles")
theirs=$(grep -c -- '-DNDEBUG' "$out/compiles")
echo "# make -n crashtest: $n compile lines, $ours with the project's flags, $theirs with the user's"
[ "$rc" -eq 0 ] && [ "$n" -gt 20 ] && [ "$theirs" -eq 0 ] &&
	[ "$(grep -c -- '-Werror' "$out/compiles")" -ge $((n - 2)) ]
tap_ok $? "the harness and guest programs are built with -Werror and without the user's CFLAGS"
grep -q -- 'pmem-harness crashtest .*--program "tests/fixtures/ack-late.c" .*--cflags "-DNDEBUG -O0"' "$out/crashtest.n"
tap_ok $? "the user's CFLAGS reach the program's build as --cflags"

make -n -B CFLAGS=-DNDEBUG BUILD_DIR="$out/b2" "$out/b2/pmem-harness" "$out/b2/guest/pmem-writer" \
	"$out/b2/tests/unit-console" >"$out/all.n" 2>&1
rc=$?
compiles "$out/all.n" >"$out/compiles2"
[ "$rc" -eq 0 ] && [ -s "$out/compiles2" ] && ! grep -q -- '-DNDEBUG' "$out/compiles2" &&
	[ "$(grep -c -v -- '-Werror' "$out/compiles2")" -eq 0 ]
tap_ok $? "CFLAGS on make's command line changes no compile of the harness, the writer or a unit test"

make -n crashtest PROGRAM=tests/fixtures/ack-late.c BUILD_DIR="$out/b3" >"$out/noflags.n" 2>&1
! grep -q -- '--cflags' "$out/noflags.n"
tap_ok $? "without CFLAGS on the command line, no --cflags is passed"
tap_done
