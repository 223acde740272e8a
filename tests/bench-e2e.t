#!/usr/bin/env bash
# make bench end to end on a real guest, and its resume logic: a tiny
# matrix (6.1-aware, ext4, two modes, two repetitions) writes one document
# per cell; after one guest's results are removed, --resume reruns only that
# guest; resuming with another matrix is refused; the summary is printed;
# bench killed with -9 mid-guest takes that guest with it and resumes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

runs=$RUNS/bench
rm -rf "$runs"
H=$B/pmem-harness
args=(--kernels 6.1-aware --fs ext4 --modes "shared aware" --jobs tests/fixtures/tiny.fio
	--reps 2 --results "$runs" --accel "${ACCEL:-auto}")
echo "TAP version 13"

"$H" bench "${args[@]}" --run-id e2e >"$runs.out" 2>"$runs.err"
tap_ok $? "bench ran two guests"
sed 's/^/# /' "$runs.err"
run=$runs/e2e
n=$(find "$run/cells" -name '*.json' | wc -l)
[ "$n" -eq 2 ]
tap_ok $? "one document per cell: 2 modes x 1 job = $n"
cell=$run/cells/6.1-aware__ext4__aware__tiny.json
[ "$(jq '.reps | length' "$cell")" -eq 2 ] && [ "$(jq -r .schema "$cell")" = 1 ]
tap_ok $? "the aware cell holds both repetitions, schema 1"
wb_shared=$(jq '[.reps[].result.jobs[] | select(.jobname == "tiny-msync") | .pmem.tracepoints.dax_writeback_one] | min' \
	"$run/cells/6.1-aware__ext4__shared__tiny.json")
wb_aware=$(jq '[.reps[].result.jobs[] | select(.jobname == "tiny-msync") | .pmem.tracepoints.dax_writeback_one] | max' "$cell")
[ "$wb_shared" -eq 256 ] && [ "$wb_aware" -eq 0 ]
tap_ok $? "msync writes back 256 entries for shared, 0 for aware (got $wb_shared, $wb_aware)"
for k in kernels qemu.version accel.name host.cpu git reps; do
	v=$(jq -r ".$k | select(. != null) | tostring" "$run/run.json")
	[ -n "$v" ]
	tap_ok $? "run.json records $k"
done
jq -e '.kernels["6.1-aware"].patches | length > 0' "$run/run.json" >/dev/null
tap_ok $? "run.json lists the aware kernel's patches with their hashes"
# The instruction counter is part of every bench here: set-up provides QEMU
# 10 and the plugin, so a bench without counts is a broken install.
jq -e '.insn_per_fault == "TCG plugin insn-per-fault"' "$run/run.json" >/dev/null &&
	jq -e '[.reps[].result.jobs[].pmem.insn_per_fault | select(. != null) | .median | select(. > 0)] | length > 0' \
		"$cell" >/dev/null
tap_ok $? "kernel instructions per fault were counted (run.json: $(jq -r .insn_per_fault "$run/run.json"))"
grep -q 'tiny \[tiny-msync\]' "$runs.out" && grep -q 'dax_writeback_one events' "$runs.out" &&
	grep -qE 'TCG: times are emulated|KVM: times are real' "$runs.out"
tap_ok $? "the summary names the section, the metrics and the accelerator"
grep -qx "report: $run/report/index.html (markdown beside it: report.md)" "$runs.out" &&
	grep -q '<caption>6.1-aware ext4 tiny \[tiny-msync\]</caption>' "$run/report/index.html"
tap_ok $? "bench wrote its report and printed the path"

# Lose the second guest's results, then resume.
rm -f "$run"/units/6.1-aware__ext4__rep2/unit.json
before=$(stat -c %Y "$run"/units/6.1-aware__ext4__rep1/unit.json)
"$H" bench "${args[@]}" --resume e2e >"$runs.out2" 2>"$runs.err2"
tap_ok $? "resume finished the run"
grep -q 'rep 1: done before, skipped' "$runs.err2" && [ "$(stat -c %Y "$run"/units/6.1-aware__ext4__rep1/unit.json)" = "$before" ]
tap_ok $? "resume skipped the finished guest"
[ -f "$run"/units/6.1-aware__ext4__rep2/unit.json ] && [ "$(jq '.reps | length' "$cell")" -eq 2 ]
tap_ok $? "resume reran the missing guest; the cell has 2 repetitions again"

"$H" bench "${args[@]/shared aware/shared}" --resume e2e >/dev/null 2>"$runs.err3"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$runs.err3")" -eq 1 ] && grep -q 'another matrix' "$runs.err3"
tap_ok $? "resuming with another matrix is refused in one line"
"$H" bench "${args[@]}" --run-id e2e >/dev/null 2>"$runs.err4"
[ $? -eq 2 ] && grep -q -- '--resume e2e' "$runs.err4"
tap_ok $? "starting over an existing run is refused and points to --resume"
# bench killed with -9 while its second guest runs: that guest ends with
# it (a resume must not run it again beside an orphan), the first unit
# stays done, and the resume finishes the run.
"$H" bench "${args[@]}" --run-id killed >/dev/null 2>"$runs.err6" &
victim=$!
for _ in $(seq 1500); do
	[ -f "$runs/killed/units/6.1-aware__ext4__rep1/unit.json" ] &&
		[ -f "$runs/killed/units/6.1-aware__ext4__rep2/console.log" ] && break
	sleep 0.2
done
# The guest is QEMU, whose command line names its NVDIMM in the unit directory.
up=$(pgrep -fc "$runs/killed/units/6.1-aware__ext4__rep2")
kill -KILL "$victim"
wait "$victim" 2>/dev/null
sleep 3
left=$(pgrep -fc "$runs/killed/units/6.1-aware__ext4__rep2")
echo "# the second guest's processes: $up when bench was killed, $left 3 s later"
[ "$up" -ge 1 ] && [ "$left" -eq 0 ] && [ ! -e "$runs/killed/units/6.1-aware__ext4__rep2/unit.json" ]
tap_ok $? "bench killed with -9 mid-guest: the guest ends with it, its unit is not taken for done"
"$H" bench "${args[@]}" --resume killed >/dev/null 2>"$runs.err7"
rc=$?
[ "$rc" -eq 0 ] && grep -q 'rep 1: done before, skipped' "$runs.err7" &&
	[ "$(jq '.reps | length' "$runs/killed/cells/6.1-aware__ext4__aware__tiny.json")" -eq 2 ]
tap_ok $? "its resume keeps the first guest and finishes the run: both repetitions (rc $rc)"

printf '[j]\nbss=4k\n' >"$RUNS/bad.fio"
"$H" bench --kernels 6.1-aware --fs ext4 --jobs "$RUNS/bad.fio" --results "$runs" --run-id bad >/dev/null 2>"$runs.err5"
[ $? -eq 2 ] && grep -q "unknown option 'bss'; did you mean 'bs'" "$runs.err5" && [ ! -e "$runs/bad" ]
tap_ok $? "a bad job file is refused before any guest boots, naming the key"
tap_done
