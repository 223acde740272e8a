#!/usr/bin/env bash
# make compare on fixture runs: the table is a golden file; a change of 20%
# with tight repetitions is marked beyond noise, one of 1% with wide ones is
# not; cells of one run only are listed; incompatible runs are refused in
# one line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
fx=tests/fixtures/compare
echo "TAP version 13"

"$H" compare $fx/a $fx/b >"$RUNS/compare.out" 2>"$RUNS/compare.err"
tap_ok $? "fixture runs A and B compare"
diff -u $fx/expected-a-b.txt "$RUNS/compare.out" | sed 's/^/# /'
cmp -s $fx/expected-a-b.txt "$RUNS/compare.out"
tap_ok $? "the table matches the golden file"
grep -q '^ext4 j \[s\] shared bw .*+20.0%\*$' "$RUNS/compare.out"
tap_ok $? "100 +-2 vs 120 +-2 is marked beyond noise"
grep -q '^ext4 j \[s\] aware bw .*+1.0% $' "$RUNS/compare.out"
tap_ok $? "100 +-2 vs 101 +-3.5 is not marked"
grep -A3 '^only in some runs (present in B)' "$RUNS/compare.out" | grep 'sync bw' >/dev/null
tap_ok $? "a cell only B has is listed, not dropped"

"$H" compare $fx/a $fx/c >/dev/null 2>"$RUNS/compare.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$RUNS/compare.err")" -eq 1 ] && grep -q 'schema 2' "$RUNS/compare.err"
tap_ok $? "a run of another schema is refused in one line"
"$H" compare $fx/a $fx/d >/dev/null 2>"$RUNS/compare.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$RUNS/compare.err")" -eq 1 ] && grep -q 'no cell in common' "$RUNS/compare.err"
tap_ok $? "runs with no common cell are refused in one line"
! make -s compare 2>"$RUNS/compare.err" >/dev/null && grep -q 'give two runs' "$RUNS/compare.err"
tap_ok $? "make compare without runs says what to give"

# Runs under different accelerators: the table says times do not compare.
rm -rf "$RUNS/acc-a" "$RUNS/acc-b"
cp -r $fx/a "$RUNS/acc-a" && cp -r $fx/b "$RUNS/acc-b"
jq '.accel = {"name": "tcg"}' $fx/a/run.json >"$RUNS/acc-a/run.json"
jq '.accel = {"name": "kvm"}' $fx/b/run.json >"$RUNS/acc-b/run.json"
# Into a file first: grep -q on a pipe would leave compare writing its table
# into a closed pipe, and pipefail would count its SIGPIPE as a failure.
"$H" compare "$RUNS/acc-a" "$RUNS/acc-b" >"$RUNS/compare-acc.out" 2>&1
grep -q '^note: the runs used different accelerators' "$RUNS/compare-acc.out" &&
	! grep -q '^note:' "$RUNS/compare.out"
tap_ok $? "a TCG run against a KVM run is noted above the table (and only then)"

# One run of two kernels (e holds a's and b's cells) compares its kernels:
# the same table as a against b, but for the run names.
"$H" compare $fx/e >"$RUNS/compare-e.out" 2>"$RUNS/compare.err"
tap_ok $? "a run of two kernels compares its kernels"
sed 's/fixture-e 6.1-stock/fixture-a 6.1-stock/; s/fixture-e 6.1-aware/fixture-b 6.1-aware/' "$RUNS/compare-e.out" |
	cmp -s $fx/expected-a-b.txt -
tap_ok $? "its table is a against b's golden file, row for row"
! make -s compare A=$fx/a 2>"$RUNS/compare.err" >/dev/null && [ "$(wc -l <"$RUNS/compare.err")" -le 2 ] &&
	grep -q 'holds one kernel: give a second run' "$RUNS/compare.err"
tap_ok $? "make compare with one run of one kernel says what to give"
tap_done
