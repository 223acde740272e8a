#!/usr/bin/env bash
# Run a planned run's units with an existing scheduler, then collect.
#
#   harness/schedule.sh parallel RUN_DIR [GUESTS] [SSHLOGINFILE]
#   harness/schedule.sh slurm    RUN_DIR [GUESTS]
#   harness/schedule.sh slurm-task PLAN  (inside a Slurm array task)
#
# RUN_DIR is what `pmem-harness plan bench|crashtest|xfstests` made; its
# plan.txt has one complete `pmem-harness unit` command per line. Each unit
# writes only its own directory (RUN_DIR/units/, crash/ or xfstests/), so
# any scheduler may run them in any order, anywhere that sees the same
# checkout, build/ and RUN_DIR at the same path (a shared file system), and
# may retry one: a unit that is done is not run again. `pmem-harness
# collect RUN_DIR` then merges them as the run's kind says and names the
# units missing.
#
# parallel: GNU parallel, GUESTS at once per host (default: the host's
#   CPUs); with SSHLOGINFILE, on the hosts it lists (`--sshloginfile`, in
#   the same working directory). ":" in that file is this host.
# slurm: an `sbatch --array` job over the plan, one task per unit, 1 CPU
#   each, at most GUESTS at once when given; collect is a dependent job
#   (afterany: it runs and names what is missing even when units failed),
#   and this script waits for it and prints what it wrote.
set -euo pipefail

die() { echo "schedule: $*" >&2; exit 2; }

harness=${PMEM_BUILD:-build}/pmem-harness

case ${1:-} in
slurm-task)
	plan=${2:?plan file}
	task=${SLURM_ARRAY_TASK_ID:?not in a Slurm array task}
	line=$(sed -n "${task}p" "$plan")
	[ -n "$line" ] || die "task $task: no line $task in $plan"
	# The line was written by pmem-harness plan, quoted for sh.
	exec sh -c "$line"
	;;
parallel|slurm) ;;
*) die "usage: harness/schedule.sh parallel|slurm RUN_DIR [GUESTS] [SSHLOGINFILE]" ;;
esac

scheduler=$1
run=${2:?RUN_DIR}
guests=${3:-}
plan=$run/plan.txt
[ -r "$plan" ] || die "no plan at $plan: run 'pmem-harness plan bench|crashtest|xfstests ...' first"
[ -z "$guests" ] || [[ $guests =~ ^[1-9][0-9]*$ ]] || die "GUESTS must be a positive number, not '$guests'"
units=$(wc -l <"$plan")

if [ "$units" -eq 0 ]; then
	echo "schedule: every unit of $run is done" >&2
	exec "$harness" collect "$run"
fi

case $scheduler in
parallel)
	command -v parallel >/dev/null || die "GNU parallel is missing: run 'make setup' (apt-get install parallel)"
	args=(--jobs "${guests:-100%}" --halt never --joblog "$run/parallel.log" --will-cite)
	if [ -n "${4:-}" ]; then
		[ -r "$4" ] || die "cannot read the sshlogin file $4"
		args+=(--sshloginfile "$4" --workdir "$PWD")
	fi
	echo "schedule: $units units of $run through GNU parallel" >&2
	# A failed unit is named by collect; parallel's own status is kept in the job log.
	parallel "${args[@]}" <"$plan" || true
	exec "$harness" collect "$run"
	;;
slurm)
	command -v sbatch >/dev/null || die "sbatch is missing: install slurm-client and point SLURM_CONF at your cluster"
	array=1-$units${guests:+%$guests}
	# Each task's log goes to units/ (a crashtest or xfstests run has no
	# other use for it); Slurm makes files, not directories.
	mkdir -p "$run/units"
	job=$(sbatch --parsable --job-name=pmem-unit --array="$array" --cpus-per-task=1 \
		--chdir="$PWD" --output="$run/units/slurm-%A_%a.out" \
		harness/schedule.sh slurm-task "$plan") || die "sbatch refused the array job"
	job=${job%%;*}
	echo "schedule: $units units of $run as Slurm array job $job; collect runs after it" >&2
	rc=0
	sbatch --parsable --wait --job-name=pmem-collect --dependency="afterany:$job" \
		--chdir="$PWD" --output="$run/collect.out" \
		--wrap="$(printf '%q collect %q' "$harness" "$run")" >/dev/null || rc=$?
	cat "$run/collect.out" 2>/dev/null || true
	exit "$rc"
	;;
esac
