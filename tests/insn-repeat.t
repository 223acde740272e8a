#!/usr/bin/env bash
# Kernel instructions per fault repeat: one fault cell, 6.1-aware xfs with
# MAP_SYNC (the cell whose median moved most, by up to 66% before the
# plugin split its intervals), runs twice, each time a fresh bench run and
# guest. The faulting task's own median of each section, the allocating
# hole-pte and the preallocated prealloc-pte, must repeat within 0.1%, and
# what the plugin counted apart (interrupts, other tasks, the calls whose
# cost follows run-to-run state) must be in the cell, per source.
#
# INSN_REPEAT_FIGURE=all asserts on the median of all kernel instructions
# instead, the figure before the split: it fails (hole-pte moved by 5% to
# 56% between two runs here). What is left within 0.1%: on xfs the buffer
# cache's hash seed, random per mount, which puts a hot buffer behind
# another in its bucket in some boots (21 instructions a collision).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
kernel=6.1-aware
tap_require "$B/plugins/insn-per-fault.so" "$B/kernels/$kernel/bzImage" "$B/images/xfs.img"
case ${INSN_REPEAT_FIGURE:-own} in
own) figure=own path=.pmem.insn_per_fault.median ;;
all) figure="all instructions" path=.pmem.insn_interference.all_median ;;
*)
	echo "Bail out! INSN_REPEAT_FIGURE is own or all, not '$INSN_REPEAT_FIGURE'"
	exit 1
	;;
esac

runs=$RUNS/insn-repeat
rm -rf "$runs"
mkdir -p "$runs"
cell=cells/${kernel}__xfs__sync__insn-faults.json
echo "TAP version 13"

for r in 1 2; do
	# TCG whatever ACCEL says: the counts come from a TCG plugin.
	"$H" bench --kernels "$kernel" --fs xfs --modes sync --jobs tests/fixtures/insn-faults.fio \
		--reps 1 --no-peer --accel tcg --results "$runs" --run-id "run$r" \
		>"$runs/run$r.out" 2>"$runs/run$r.err"
	rc=$?
	[ "$rc" -eq 0 ] && [ -s "$runs/run$r/$cell" ]
	tap_ok $? "run $r: a fresh guest ran the cell $kernel xfs sync (rc $rc)"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$runs/run$r.err"
done

# section jq-path run -> the number, or "null"
val() {
	jq -r --arg s "$1" ".reps[0].result.jobs[] | select(.jobname == \$s) | $2" "$runs/$3/$cell" \
		2>/dev/null || echo null
}

# Within 0.1% of the smaller of the two.
repeats() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		d = a > b ? a - b : b - a; m = a < b ? a : b
		exit !(a != "null" && b != "null" && m > 0 && d * 1000 <= m) }'
}

spread() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		m = a < b ? a : b
		if (a == "null" || b == "null" || m <= 0) print "?"
		else printf "%.3f%%\n", (a > b ? a - b : b - a) * 100 / m }'
}

for sec in hole-pte prealloc-pte; do
	a=$(val "$sec" "$path" run1)
	b=$(val "$sec" "$path" run2)
	repeats "$a" "$b"
	tap_ok $? "$sec: the median of $figure repeats within 0.1% ($a, $b: $(spread "$a" "$b"))"
	for r in run1 run2; do
		echo "# $sec $r: own $(val "$sec" .pmem.insn_per_fault.median "$r")," \
			"all $(val "$sec" .pmem.insn_interference.all_median "$r"), apart (mean/fault):" \
			"$(val "$sec" '.pmem.insn_interference.sources | to_entries |
				map("\(.key) \(.value.mean | floor)") | join(", ")' "$r")"
	done
	a=$(val "$sec" .pmem.insn_interference.all_median run1)
	b=$(val "$sec" .pmem.insn_interference.all_median run2)
	echo "# $sec: the median of all instructions, the figure before the split, moved $(spread "$a" "$b")"
done

# What was counted apart is in the cell, per source, beside the figure.
ok=0
for r in run1 run2; do
	jq -e '[.reps[0].result.jobs[].pmem | .insn_interference.sources |
		has("irq") and has("other") and has("slab") and has("clock") and has("sched") and
		has("random")] | length == 2 and all' "$runs/$r/$cell" >/dev/null || ok=1
done
tap_ok $ok "each section's interference is in the cell, per source (irq, other, slab, clock, sched, random)"
grep -q '^# interrupts: separated' "$runs"/run1/units/*/insn.txt &&
	! grep -q 'not separated' "$runs"/run1/units/*/insn.txt
tap_ok $? "the plugin found the interrupt handlers and the task switch"
grep -q '+ interference/fault (mean)' "$runs/run1.out"
tap_ok $? "the summary has the interference row"
tap_done
