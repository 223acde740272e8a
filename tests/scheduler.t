#!/usr/bin/env bash
# Units that any scheduler can run: `pmem-harness plan bench|crashtest|
# xfstests` writes a run's plan, one complete `pmem-harness unit` command
# per guest (bench), per scenario and filesystem (crashtest) or per kernel
# and filesystem (xfstests); each unit writes only its own directory;
# `pmem-harness collect` merges what is done and names what is missing.
# Proved on real guests: a plan/collect round trip by hand, a unit killed
# mid-run and run again, GNU parallel with two guests at once through an
# sshlogin file, a crashtest plan run by GNU parallel whose collected
# summary matches the in-process one, an xfstests plan run by GNU parallel
# and its baseline comparison, and a real one-node Slurm cluster
# (slurmctld, slurmd, munged) brought up here for the test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh
# shellcheck source=tests/lib/slurm-local.sh
. tests/lib/slurm-local.sh

runs=$RUNS/sched
rm -rf "$runs"
mkdir -p "$runs"
H=$B/pmem-harness
args=(--kernels 6.1-aware --fs ext4 --modes "shared aware" --jobs tests/fixtures/tiny.fio
	--reps 2 --results "$runs" --accel "${ACCEL:-auto}")
echo "TAP version 13"

# 1. plan, then collect with nothing done: every unit is named as missing.
"$H" plan bench "${args[@]}" --run-id rt >"$runs/rt.plan" 2>"$runs/rt.err"
rc=$?
run=$runs/rt
[ "$rc" -eq 0 ] && [ "$(wc -l <"$run/plan.txt")" -eq 2 ] && cmp -s "$runs/rt.plan" "$run/plan.txt" &&
	[ "$(sed -n 1p "$run/plan.txt")" = "$H unit $run 6.1-aware ext4 1" ] &&
	[ -f "$run/jobs/tiny.fio" ] && [ -f "$run/run.json" ] && [ ! -e "$run/units/6.1-aware__ext4__rep1" ]
tap_ok $? "plan writes run.json, the job files and one unit command per guest, and boots nothing"
"$H" collect "$run" >"$runs/rt.c0" 2>"$runs/rt.c0err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c ' unit ' "$runs/rt.c0err")" -eq 2 ]
tap_ok $? "collect before any unit exits 1 and names both units (rc $rc)"

# 2. The first unit by hand, through sh as a scheduler would run the line.
sh -c "$(sed -n 1p "$run/plan.txt")" 2>"$runs/rt.u1err"
rc=$?
[ "$rc" -eq 0 ] && [ -f "$run/units/6.1-aware__ext4__rep1/unit.json" ] &&
	[ ! -e "$run/units/6.1-aware__ext4__rep2" ]
tap_ok $? "a unit line runs one guest and writes only its own directory (rc $rc)"
"$H" collect "$run" >"$runs/rt.c1" 2>"$runs/rt.c1err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "6.1-aware ext4 2$" "$runs/rt.c1err" && ! grep -q "6.1-aware ext4 1$" "$runs/rt.c1err" &&
	[ "$(jq '.reps | length' "$run/cells/6.1-aware__ext4__aware__tiny.json")" -eq 1 ]
tap_ok $? "collect merges the done unit into the cells and names only the missing one (rc $rc)"

# 3. The second unit, killed with -9 while its guest runs: QEMU ends with
# it, nothing is taken for done, and the same line run again finishes it.
line2=$(sed -n 2p "$run/plan.txt")
u2=$run/units/6.1-aware__ext4__rep2
sh -c "exec $line2" 2>"$runs/rt.u2err" &
victim=$!
for _ in $(seq 1500); do
	[ -f "$u2/console.log" ] && pgrep -f "mem-path=$u2/" >/dev/null && break
	sleep 0.2
done
up=$(pgrep -fc "mem-path=$u2/")
kill -KILL "$victim"
wait "$victim" 2>/dev/null
sleep 3
left=$(pgrep -fc "mem-path=$u2/")
echo "# the killed unit's guests: $up running when it was killed, $left 3 s later"
[ "$up" -ge 1 ] && [ "$left" -eq 0 ] && [ ! -e "$u2/unit.json" ]
tap_ok $? "a unit killed mid-run takes its guest with it and is not taken for done"
sh -c "$line2" 2>"$runs/rt.u2err2"
rc=$?
[ "$rc" -eq 0 ] && [ -f "$u2/unit.json" ]
tap_ok $? "the same line run again finishes the unit (rc $rc)"
sh -c "$line2" 2>"$runs/rt.u2err3"
rc=$?
[ "$rc" -eq 0 ] && grep -q "done before, skipped" "$runs/rt.u2err3"
tap_ok $? "a line retried after its unit is done is skipped: schedulers may retry"
"$H" collect "$run" >"$runs/rt.c2" 2>"$runs/rt.c2err"
rc=$?
[ "$rc" -eq 0 ] && ! grep -q "units not done" "$runs/rt.c2err" && grep -q "^6.1-aware ext4 tiny \[tiny-msync\]" "$runs/rt.c2" &&
	[ "$(jq '.reps | length' "$run/cells/6.1-aware__ext4__aware__tiny.json")" -eq 2 ] &&
	[ -f "$run/report/index.html" ] && [ "$(jq '.host_sharing.units' "$run/run.json")" -eq 2 ]
tap_ok $? "collect of the finished run: exit 0, both repetitions in the cells, summary and report (rc $rc)"

# 4. What a unit and collect refuse, in one line each.
"$H" unit "$run" 6.12-aware ext4 1 >/dev/null 2>"$runs/bad1"
rc1=$?
"$H" unit "$run" 6.1-aware ext4 3 >/dev/null 2>"$runs/bad2"
rc2=$?
"$H" collect "$runs/nothing-here" >/dev/null 2>"$runs/bad3"
rc3=$?
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] && [ "$rc3" -eq 2 ] &&
	[ "$(cat "$runs/bad1" "$runs/bad2" "$runs/bad3" | wc -l)" -eq 3 ] && grep -q "not a unit of run rt" "$runs/bad1"
tap_ok $? "a unit not in the plan and a directory with no run are refused in one line each"

# 5. GNU parallel, two guests at once, through an sshlogin file whose only
# host is this one (":"), as a farm's file would list its machines.
"$H" plan bench "${args[@]}" --run-id par >/dev/null 2>&1
printf '2/:\n' >"$runs/sshlogins"
harness/schedule.sh parallel "$runs/par" 2 "$runs/sshlogins" >"$runs/par.out" 2>"$runs/par.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(tail -n +2 "$runs/par/parallel.log" | wc -l)" -eq 2 ] &&
	[ "$(jq '.reps | length' "$runs/par/cells/6.1-aware__ext4__aware__tiny.json")" -eq 2 ] &&
	grep -q "^6.1-aware ext4 tiny \[tiny-msync\]" "$runs/par.out"
tap_ok $? "SCHEDULER=parallel: GNU parallel runs the plan and collect merges it (rc $rc)"
max=$(jq '.host_sharing.guests_max' "$runs/par/run.json")
[ "$max" -ge 2 ] && grep -q "^guests: 2 of 2 ran beside other guests" "$runs/par.out"
tap_ok $? "the two guests ran at once, and the summary says their times are shared (up to $max guests)"

# 6. A crashtest planned into units, one per scenario and filesystem: two
# short rows on ext4, one that must stay intact and one allowed to lose.
crash=(--scenarios "shared-msync shared-none" --fs ext4 --results "$runs" --accel "${ACCEL:-auto}")
"$H" plan crashtest "${crash[@]}" --run-id crash >"$runs/crash.plan" 2>"$runs/crash.err"
rc=$?
c=$runs/crash
[ "$rc" -eq 0 ] && [ "$(wc -l <"$c/plan.txt")" -eq 2 ] && cmp -s "$runs/crash.plan" "$c/plan.txt" &&
	[ "$(sed -n 1p "$c/plan.txt")" = "$H unit $c shared-none ext4" ] &&
	jq -e '.kind == "crashtest" and (.plan.units | length) == 2' "$c/run.json" >/dev/null &&
	[ -z "$(ls "$c/crash")" ]
tap_ok $? "plan crashtest writes run.json and one unit per scenario and filesystem, and boots nothing (rc $rc)"
"$H" collect "$c" >"$runs/crash.c0" 2>"$runs/crash.c0err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c ' unit ' "$runs/crash.c0err")" -eq 2 ] &&
	jq -e '.complete == false and (.scenarios | length) == 0' "$c/crash/summary.json" >/dev/null
tap_ok $? "collect of a crashtest before any unit exits 1, names both units, claims no summary (rc $rc)"
sh -c "$(sed -n 1p "$c/plan.txt")" 2>"$runs/crash.u1err"
rc=$?
[ "$rc" -eq 0 ] && [ -f "$c/crash/shared-none__ext4/row.json" ] && [ ! -e "$c/crash/shared-msync__ext4" ]
tap_ok $? "a crashtest unit runs its row and writes only its own directory (rc $rc)"
"$H" collect "$c" >"$runs/crash.c1" 2>"$runs/crash.c1err"
rc=$?
[ "$rc" -eq 1 ] && grep -q " unit $c shared-msync ext4$" "$runs/crash.c1err" &&
	! grep -q "shared-none ext4$" "$runs/crash.c1err" &&
	jq -e '.complete == false and (.scenarios | length) == 1' "$c/crash/summary.json" >/dev/null
tap_ok $? "collect with one unit missing exits 1 and names only it (rc $rc)"
"$H" plan crashtest "${crash[@]}" --resume crash >"$runs/crash.replan" 2>/dev/null
rc1=$?
"$H" unit "$c" sync-clwb ext4 >/dev/null 2>"$runs/crash.bad"
rc2=$?
[ "$rc1" -eq 0 ] && [ "$(cat "$runs/crash.replan")" = "$H unit $c shared-msync ext4" ] && [ "$rc2" -eq 2 ] &&
	[ "$(wc -l <"$runs/crash.bad")" -eq 1 ] && grep -q "not a unit of run crash" "$runs/crash.bad"
tap_ok $? "plan --resume lists only the unit not done; a row not in the plan is refused in one line"
harness/schedule.sh parallel "$c" 2 >"$runs/crash.out" 2>"$runs/crash.perr"
rc=$?
sh -c "$H unit $c shared-none ext4" 2>"$runs/crash.again"
rc2=$?
[ "$(tail -n +2 "$c/parallel.log" | wc -l)" -eq 1 ] && grep -q "unit: shared-msync on ext4: .* images" "$runs/crash.perr" &&
	[ "$rc2" -eq 0 ] && grep -q "unit: shared-none on ext4: done before, skipped" "$runs/crash.again"
tap_ok $? "GNU parallel runs the replanned crashtest; a done unit's line retried is skipped"
sum=$c/crash/summary.json
n_msync=$(jq '.scenarios[] | select(.scenario == "shared-msync") | .images' "$sum")
i_msync=$(jq '.scenarios[] | select(.scenario == "shared-msync") | .verdicts.intact' "$sum")
l_none=$(jq '.scenarios[] | select(.scenario == "shared-none") | .verdicts.lost' "$sum")
echo "# shared-msync: $i_msync of $n_msync images intact; shared-none: $l_none lost"
[ "$rc" -eq 0 ] && jq -e '.complete and (.scenarios | map(.scenario) == ["shared-none", "shared-msync"])' "$sum" >/dev/null &&
	[ "${n_msync:-0}" -gt 0 ] && [ "$i_msync" = "$n_msync" ] && [ "${l_none:-0}" -gt 0 ] &&
	grep -q "^  shared-msync  *ext4 .* as expected$" "$runs/crash.out" && [ -f "$c/report/index.html" ]
tap_ok $? "collect builds the crashtest summary: shared-msync all intact, shared-none loses records (rc $rc)"
# The same shape as an in-process crashtest's summary of the same row:
# every key of the document and of the row, the verdicts the same.
"$H" crashtest "${crash[@]}" --scenarios shared-msync --run-id crash-inproc >"$runs/inproc.out" 2>"$runs/inproc.err"
rc=$?
shape() { # summary.json -> its keys, and shared-msync's row's, one line
	jq -c '(del(.scenarios) | [paths | map(tostring) | join(".")] | sort),
		(.scenarios[] | select(.scenario == "shared-msync") |
		 [paths | map(if type == "number" then "N" else . end) | join(".")] | unique)' "$1" | tr '\n' ' '
}
a=$(shape "$sum")
b=$(shape "$runs/crash-inproc/crash/summary.json")
i_in=$(jq '.scenarios[0].verdicts.intact' "$runs/crash-inproc/crash/summary.json")
n_in=$(jq '.scenarios[0].images' "$runs/crash-inproc/crash/summary.json")
[ "$rc" -eq 0 ] && [ -n "$a" ] && [ "$a" = "$b" ] && [ "${n_in:-0}" -gt 0 ] && [ "$i_in" = "$n_in" ] &&
	[ "$(jq '.checker.guests' "$sum")" -eq 2 ]
tap_ok $? "the collected summary has the in-process summary's keys and verdicts ($i_in of $n_in intact), one checker guest per unit"

# 7. An xfstests run planned into units, one per kernel and filesystem:
# generic/452 (about 20 s a guest) on 6.12-stock and 6.12-aware, ext4.
if [ ! -e "$B/kernels/6.12-stock/bzImage" ] || [ ! -e "$B/kernels/6.12-aware/bzImage" ]; then
	for t in "plan xfstests and collect name the units" "GNU parallel runs the xfstests plan" \
		"collect of xfstests compares each kernel with its baseline"; do
		tap_ok 1 "$t: no 6.12-stock or 6.12-aware kernel: run 'make test-kernels'"
	done
elif ! vm-images/build-xfstests.sh >"$runs/xfstests-build.log" 2>&1; then
	for t in "plan xfstests and collect name the units" "GNU parallel runs the xfstests plan" \
		"collect of xfstests compares each kernel with its baseline"; do
		# No snapshot or checkout of xfstests (no Debian package): the machine
		# cannot; anything else that stops the build is a failure.
		if grep -q "no xfstests snapshot found" "$runs/xfstests-build.log"; then
			tap_skip "$t" "$(tail -n 1 "$runs/xfstests-build.log")"
		else
			tap_ok 1 "$t: the xfstests root image did not build: $(tail -n 1 "$runs/xfstests-build.log")"
		fi
	done
else
	x=$runs/xfs
	"$H" plan xfstests --kernels "6.12-stock 6.12-aware" --fs ext4 --only generic/452 --timeout 120 \
		--results "$runs" --run-id xfs --accel "${ACCEL:-auto}" >"$runs/xfs.plan" 2>"$runs/xfs.err"
	rc=$?
	"$H" collect "$x" >"$runs/xfs.c0" 2>"$runs/xfs.c0err"
	rc2=$?
	[ "$rc" -eq 0 ] && cmp -s "$runs/xfs.plan" "$x/plan.txt" && [ "$(sed -n 2p "$x/plan.txt")" = "$H unit $x 6.12-aware ext4" ] &&
		jq -e '.kind == "xfstests" and (.plan.units | length) == 2' "$x/run.json" >/dev/null && [ ! -e "$x/xfstests" ] &&
		[ "$rc2" -eq 1 ] && [ "$(grep -c ' unit ' "$runs/xfs.c0err")" -eq 2 ] &&
		jq -e '(.complete | not) and (.results | length) == 0' "$x/xfstests.json" >/dev/null
	tap_ok $? "plan xfstests and collect name the units: one per kernel and filesystem, none done (rc $rc, $rc2)"
	harness/schedule.sh parallel "$x" 2 >"$runs/xfs.out" 2>"$runs/xfs.perr"
	rc=$?
	sh -c "$(sed -n 1p "$x/plan.txt")" 2>"$runs/xfs.again"
	rc2=$?
	[ "$rc" -eq 0 ] && [ "$(tail -n +2 "$x/parallel.log" | wc -l)" -eq 2 ] &&
		grep -q '^| generic/452 | pass | pass |$' "$runs/xfs.out" &&
		jq -e '.complete and (.results | length) == 2 and (.environments | keys) == ["6.12-aware/ext4", "6.12-stock/ext4"]' \
			"$x/xfstests.json" >/dev/null &&
		[ "$rc2" -eq 0 ] && grep -q "unit: 6.12-stock on ext4: done before, skipped" "$runs/xfs.again"
	tap_ok $? "GNU parallel runs the xfstests plan, collect merges both units; a done line retried is skipped (rc $rc)"
	# The comparison comes from the units' documents: aware's result turned
	# into a failure in a copy of the run must make collect report it.
	cp -a "$x" "$runs/xfs-reg"
	u=$runs/xfs-reg/xfstests/6.12-aware/ext4/unit.json
	jq '.results[0].status = "fail"' "$u" >"$u.new" && mv "$u.new" "$u"
	"$H" collect "$runs/xfs-reg" >"$runs/xfs-reg.out" 2>/dev/null
	rc=$?
	[ "$rc" -eq 1 ] && grep -q '^| generic/452 | pass | fail \*\*REGRESSION\*\* |' "$runs/xfs-reg/summary.md" &&
		grep -q "^1 failed; 1 regression against the baseline" "$runs/xfs-reg.out"
	tap_ok $? "collect of xfstests compares each kernel with its baseline: a unit's failure is a regression (rc $rc)"
fi

# 8. Slurm: a real one-node cluster on this machine, an sbatch array over
# the plan and collect as a job that depends on it.
if ! slurm_local_available 2>"$runs/slurm.why"; then
	# set-up installs Slurm (vm-images/setup-host.sh): missing is a failure.
	tap_ok 1 "a one-node Slurm cluster can be brought up: $(cat "$runs/slurm.why"); run 'sudo make setup'"
else
	cluster=$(mktemp -d /tmp/pmem-slurm.XXXXXX)
	# sbatch --wait polls a finished job by MinJobAge: keep it short.
	export SLURM_LOCAL_MIN_JOB_AGE=5
	trap 'slurm_local_stop "$cluster"; rm -rf "$cluster"' EXIT
	if ! slurm_local_start "$cluster" 2>"$runs/slurm.err"; then
		tap_ok 1 "a one-node Slurm cluster starts: $(cat "$runs/slurm.err")"
	else
		"$H" plan bench "${args[@]}" --run-id slurm >/dev/null 2>&1
		harness/schedule.sh slurm "$runs/slurm" >"$runs/slurm.out" 2>"$runs/slurm.err2"
		rc=$?
		[ "$rc" -eq 0 ] && grep -q "^6.1-aware ext4 tiny \[tiny-msync\]" "$runs/slurm.out" &&
			[ "$(jq '.reps | length' "$runs/slurm/cells/6.1-aware__ext4__aware__tiny.json")" -eq 2 ]
		tap_ok $? "SCHEDULER=slurm: an array job runs the plan, collect runs after it (rc $rc)"
		n=$(grep -l "unit: 6.1-aware ext4 rep [12]: done in" "$runs"/slurm/units/slurm-*_[12].out 2>/dev/null | wc -l)
		[ "$n" -eq 2 ]
		tap_ok $? "each of the two array tasks ran one unit ($n task logs say so)"
		# A crashtest run has no units/ of its own: the task logs need one.
		"$H" plan crashtest --program tests/fixtures/ack-late.c --fs ext4 --results "$runs" \
			--run-id slurm-crash --accel "${ACCEL:-auto}" >/dev/null 2>&1
		harness/schedule.sh slurm "$runs/slurm-crash" >"$runs/slurm-crash.out" 2>"$runs/slurm-crash.err"
		rc=$?
		s=$runs/slurm-crash/crash/summary.json
		[ "$rc" -eq 0 ] && jq -e '.complete and .scenarios[0].images > 0 and
			.scenarios[0].verdicts.intact == .scenarios[0].images' "$s" >/dev/null &&
			grep -q "unit: program on ext4: .* images" "$runs"/slurm-crash/units/slurm-*_1.out
		tap_ok $? "SCHEDULER=slurm runs a crashtest plan: its task's log kept, every image intact (rc $rc)"
	fi
fi
tap_done
