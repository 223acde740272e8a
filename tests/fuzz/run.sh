#!/usr/bin/env bash
# Run the fuzz targets: tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#                       tests/fuzz/run.sh --list   (every target, one a line)
#
# Each target first replays its regression inputs (tests/fuzz/regressions/
# <target>/, crashes found earlier), then fuzzes for SECONDS from its seed
# corpora, growing a working corpus under BUILD_DIR/fuzz/corpus/ (never the
# tree). One line per target: executions, seconds, the verdict, and how many
# regression inputs were replayed; a crash, leak or hang leaves its input in
# BUILD_DIR/fuzz/ and fails the script.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
all=(job check-report ack-line console check-phases results unit-docs bench-resume crash-resume check-block xfstests-doc)
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${all[@]}"
	exit 0
fi
build=$1 seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Where each target's seeds come from: real fixtures, and tests/fuzz/seeds/.
seeds() {
	case $1 in
	job) echo workloads/jobs workloads/crash ;;
	results) echo tests/fixtures/compare/a/cells tests/fixtures/report/bench/cells tests/fixtures/report/crash/crash ;;
	*) echo "tests/fuzz/seeds/$1" ;;
	esac
}

failed=0
for t in "${targets[@]}"; do
	bin=$build/fuzz/fuzz-$t
	corpus=$build/fuzz/corpus/$t
	log=$build/fuzz/$t.log
	regress=tests/fuzz/regressions/$t
	mkdir -p "$corpus"
	if [ ! -x "$bin" ]; then
		echo "fuzz: $t: no $bin: run 'make $bin'" >&2
		failed=1
		continue
	fi
	replayed=$(find "$regress" -type f 2>/dev/null | wc -l)
	if [ "$replayed" -gt 0 ] && ! "$bin" -close_fd_mask=3 "$regress"/* >"$log" 2>&1; then
		echo "fuzz: $t: a regression input fails again: see $log" >&2
		failed=1
		continue
	fi
	# shellcheck disable=SC2046 # seeds() lists directories, one word each
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz/$t-" "$corpus" $(seeds "$t") >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		what=$(grep -m1 -o 'SUMMARY: [A-Za-z]*Sanitizer: [a-z-]*\|ERROR: libFuzzer: [a-z-]*' "$log")
		echo "fuzz: $t: ${what:-failed (rc $rc)} after ${runs:-?} executions; input in $build/fuzz/$t-*, log $log; keep it as $regress/<name> once fixed" >&2
		failed=1
	else
		echo "fuzz: $t: ${runs:-?} executions in ${secs:-$seconds} s, 0 crashes, 0 leaks, 0 hangs; corpus $(find "$corpus" -type f | wc -l) inputs; $replayed regression inputs replayed"
	fi
done
exit $failed
