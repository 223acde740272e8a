#!/usr/bin/env bash
# make crashbench PLATFORM=adr: ADR crash testing end to end, in images per
# second, and where the time goes.
#
# A MAP_SYNC program of RECORDS (256) acknowledged 4 KiB records, each made
# durable with clwb + sfence (tests/fixtures/adr-flush.c), is crash-tested
# REPS times under the ADR model, each run with its own seed. End to end is
# the whole command, from its start (the program is compiled, the checker
# guests start) to its exit (verdicts, summary, report). The scenario's row
# of summary.json splits it: the writer's seconds (of them, the guest's
# boot up to its start marker, the program under the model, and the saving
# of the crash points) and the checkers' (those after the writer ended, and
# all those during which some image was with a checker: the checkers take
# each image as the writer makes it). Printed: the median and the range
# over the runs, and the accelerator they ran on. The figures are this
# machine's; under TCG, emulated time makes them a ratio to compare two
# versions of the harness on one machine, not a property of hardware.
#
#   crash-inject/adr-speed.sh [REPS]   (RECORDS=, FS=, KERNEL=, OUT= override)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
B=${PMEM_BUILD:-build}
records=${RECORDS:-256}
[ -x "$B/pmem-harness" ] || { echo "adr-speed: no $B/pmem-harness: run 'make'" >&2; exit 1; }
fs=${FS:-$("$B/pmem-harness" filesystems --default quick)}
kernel=${KERNEL:-$(vm-images/build-kernel.sh --default stock)}
out=${OUT:-$B/adr-speed}

rm -rf "$out"
mkdir -p "$out"
rows=$out/rows.tsv
: >"$rows"
for rep in $(seq "$reps"); do
	echo "adr-speed: run $rep of $reps ($records records, $fs, $kernel) ..." >&2
	# The program passes (rc 0); any other end is a failure of the harness.
	t0=$(date +%s.%N)
	if ! "$B/pmem-harness" crashtest --program tests/fixtures/adr-flush.c --cflags "-DRECORDS=$records" \
		--platform adr --fs "$fs" --kernel "$kernel" --seed "$rep" --results "$out" --run-id "rep$rep" \
		${ACCEL:+--accel "$ACCEL"} >"$out/rep$rep.out" 2>&1; then
		echo "adr-speed: run $rep failed: see $out/rep$rep.out" >&2
		exit 1
	fi
	wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
	jq -r --arg wall "$wall" '[.accel, (.scenarios[0] | .images, .seconds, .writer_seconds, .snapshot_seconds,
		.check_seconds, .writer_phases.boot, .writer_phases.modelled, .check_tail_seconds, .deduplicated), ($wall | tonumber)]
		| @tsv' "$out/rep$rep/crash/summary.json" >>"$rows"
done

# Median and range of column c (2: images, 3: the scenario's s, ...), or
# of: -1 images per second of the command, -2 the same per second of the
# scenario, -3 images checked (not twins) per second some image was with
# a checker, -4 the command's seconds besides the scenario's, -5 images
# checked.
stat() { # column
	awk -F'\t' -v c="$1" '{ v = c == -1 ? $2 / $11 : c == -2 ? $2 / $3 : c == -3 ? ($2 - $10) / $6 :
				   c == -4 ? $11 - $3 : c == -5 ? $2 - $10 : $c; print v }' "$rows" |
		sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%8.2f  (%.2f to %.2f)\n", m, v[1], v[NR] }'
}
accel=$(cut -f1 "$rows" | sort -u | paste -sd, -)
printf 'ADR crash testing end to end: adr-flush.c, %s records, %s, %s, %s runs on %s (median, range)\n' \
	"$records" "$fs" "$kernel" "$reps" "$accel"
printf '  images per second      %s\n' "$(stat -1)"
printf '    of the scenario      %s\n' "$(stat -2)"
printf '  images                 %s\n' "$(stat 2)"
printf '    checked (not twins)  %s\n' "$(stat -5)"
printf '  seconds, the command   %s\n' "$(stat 11)"
printf '    besides the scenario %s\n' "$(stat -4)"
printf '    the scenario         %s\n' "$(stat 3)"
printf '      writer             %s\n' "$(stat 4)"
printf '        boot             %s\n' "$(stat 7)"
printf '        modelled         %s\n' "$(stat 8)"
printf '          saving points  %s\n' "$(stat 5)"
printf '      checking, after    %s\n' "$(stat 9)"
printf '  checked per second     %s  (per second some image was with one of the checkers)\n' "$(stat -3)"
echo "runs: $out"
