#!/usr/bin/env bash
# make test's count of skips (tests/lib/skip-summary.sh): each skip is put
# in its class of tests/lib/skips; with CI=true a skip for anything but what
# a machine may lack fails, and a suite with only such skips passes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

out=$RUNS/skip-summary
mkdir -p "$out"
echo "TAP version 13"
printf '%s\n' 'ok 1 a # SKIP no usable /dev/kvm' 'ok 2 b # SKIP kernel without MAP_PMEM_AWARE' \
	'ok 3 c # SKIP kernel without MAP_PMEM_AWARE' 'ok 4 d # SKIP this host has only lo' 'ok 5 e' >"$out/allowed.log"
{ cat "$out/allowed.log"; echo '1..0 # SKIP no build/plugins/adr-cache.so'; } >"$out/unexplained.log"
{ cat "$out/allowed.log"; echo 'ok 6 f # SKIP cannot mount a tmpfs: permission denied'; } >"$out/not-root.log"

line=$(CI=true tests/lib/skip-summary.sh "$out/allowed.log")
rc=$?
[ "$rc" -eq 0 ] && [[ $line == "make test: 4 skips: "* ]] && [[ $line == *"n/a 2"* ]] &&
	[[ $line == *"kvm 1"* ]] && [[ $line == *"network 1"* ]]
tap_ok $? "skips a machine may lack are counted by class and pass under CI: $line"

CI=true tests/lib/skip-summary.sh "$out/unexplained.log" >"$out/unexplained.out"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^  unexplained: 1\.\.0 # SKIP no build/plugins/adr-cache.so$' "$out/unexplained.out"
tap_ok $? "a skip for a missing build product fails under CI=true, and is named (rc $rc)"

CI=true tests/lib/skip-summary.sh "$out/not-root.log" >"$out/not-root.out"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^  not-root: ' "$out/not-root.out"
tap_ok $? "a skip CI may not take (not root) fails under CI=true (rc $rc)"

CI='' tests/lib/skip-summary.sh "$out/unexplained.log" >"$out/local.out"
rc=$?
[ "$rc" -eq 0 ] && grep -q 'unexplained 1' "$out/local.out"
tap_ok $? "outside CI the same log passes, the unexplained skip counted (rc $rc)"

printf 'ok 1 a\nok 2 b\n' >"$out/none.log"
[ "$(CI=true tests/lib/skip-summary.sh "$out/none.log")" = "make test: no skips" ]
tap_ok $? "a run without skips says so"
tap_done
