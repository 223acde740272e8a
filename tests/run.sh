#!/usr/bin/env bash
# make test's last step: every test under prove, its verbose output kept in
# $PMEM_TEST_LOG (build/test.log by default), then one line counting the
# skips by reason (tests/lib/skip-summary.sh; with CI=true a skip for
# anything set-up provides fails the run).
#
#   tests/run.sh TEST...
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
log=${PMEM_TEST_LOG:-${PMEM_BUILD:-build}/test.log}
mkdir -p "$(dirname "$log")"
# tee reads to the end, so prove never meets a closed pipe.
prove -v --timer "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
tests/lib/skip-summary.sh "$log" || rc=1
exit "$rc"
