#!/usr/bin/env bash
# make test's last step: every test under prove, its verbose output kept in
# $PMEM_TEST_LOG (build/test.log by default), then one line counting the
# skips by reason (tests/lib/skip-summary.sh; with CI=true a skip for
# anything set-up provides fails the run).
#
#   tests/run.sh TEST...
#
# Test files run PMEM_TEST_JOBS at a time (default: one per CPU, at most 4).
# A guest test keeps about one core busy and waits part of the time, so on
# the 2-core build machine two at a time took the suite from 28.6 to 18.6
# minutes, with the same results; each file's output is still printed whole,
# when it ends.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
log=${PMEM_TEST_LOG:-${PMEM_BUILD:-build}/test.log}
jobs=${PMEM_TEST_JOBS:-}
if [ -z "$jobs" ]; then
	jobs=$(nproc)
	[ "$jobs" -le 4 ] || jobs=4
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: PMEM_TEST_JOBS must be a number of test files at once, not '$jobs'" >&2; exit 2; }
mkdir -p "$(dirname "$log")"
# tee reads to the end, so prove never meets a closed pipe.
prove -v --timer -j"$jobs" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
tests/lib/skip-summary.sh "$log" || rc=1
exit "$rc"
