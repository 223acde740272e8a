#!/usr/bin/env bash
# make bench under faults from outside, on real guests (6.1-aware, ext4,
# shared and aware, tests/fixtures/tiny.fio: a guest takes about 6 s):
#  - bench killed with -9 at three seeded random points of one run, one in
#    each phase: while the first guest boots, while the second guest runs
#    its job, and just after the second guest's unit.json is written (the
#    cells being written, or the third guest starting); each followed by
#    --resume. After each kill no guest of the run is left 3 s later, every
#    JSON document parses, only units whose guest finished have a
#    unit.json, those are kept byte for byte, and no cell holds a
#    repetition no unit finished; the last resume ends with the cells of an
#    uninterrupted run, each with every repetition. PMEM_FAULT_SEED replays
#    other points.
#  - the results disk (a tmpfs) filled from outside once the first guest is
#    done: the run stops with one line saying the disk is full and how to
#    finish, writes no summary, the first unit and every document stay
#    whole; a resume on the still full disk is refused in one line; with
#    room again the resume completes the run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/bench-faults
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$H" "$B/kernels/6.1-aware/bzImage" "$B/initramfs.cpio" "$B/images/ext4.img"
t_start=$(date +%s)
opts=(--kernels 6.1-aware --fs ext4 --modes "shared aware" --jobs tests/fixtures/tiny.fio
	--accel "${ACCEL:-auto}")
unit=6.1-aware__ext4__rep

# Whether a child still runs (a zombie answers kill -0 too).
alive() { # pid
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# Processes of a run's guests: QEMU (by its NVDIMM path) and the runners.
guests_left() { # run directory
	{
		pgrep -f "mem-path=$1/"
		pgrep -f -- "--out $1/units/"
	} | sort -u | tr '\n' ' '
}

# JSON documents of a run that do not parse (temporary files aside).
broken_docs() { # run directory
	find "$1" -name '*.json' ! -name '*.tmp.*' -exec sh -c 'jq empty "$1" 2>/dev/null || echo "$1"' _ {} \;
}

# Repetitions that have a unit.json, e.g. "1 2".
units_done() { # run directory
	local r
	for r in 1 2 3; do
		[ -e "$1/units/$unit$r/unit.json" ] && printf '%s ' "$r"
	done
}

# Each cell's name with its repetitions and job sections, one line.
cells_of() { # run directory
	(cd "$1/cells" && for c in *.json; do
		jq -c --arg c "$c" '{cell: $c, reps: [.reps[].rep] | sort,
			sections: [.reps[].result.jobs[]?.jobname] | unique}' "$c"
	done) | jq -sc .
}

# Cells holding a repetition whose unit.json is missing.
cells_ahead() { # run directory
	local r
	for r in $(jq -r '.reps[].rep' "$1"/cells/*.json 2>/dev/null | sort -u); do
		[ -e "$1/units/$unit$r/unit.json" ] || printf 'rep %s ' "$r"
	done
}

# --- the uninterrupted run ---------------------------------------------------
"$H" bench "${opts[@]}" --reps 3 --results "$out" --run-id ref >"$out/ref.out" 2>"$out/ref.err"
rc=$?
ref=$(cells_of "$out/ref")
echo "# cells: $ref"
[ "$rc" -eq 0 ] && [ "$(jq 'length' <<<"$ref")" -eq 2 ] &&
	[ "$(jq -c '[.[].reps] | unique' <<<"$ref")" = '[[1,2,3]]' ]
tap_ok $? "the uninterrupted run: 2 cells, each with repetitions 1 to 3, in $(($(date +%s) - t_start)) s (rc $rc)"

# --- bench killed with -9 at seeded random points, each resumed ---------------
seed=${PMEM_FAULT_SEED:-5}
RANDOM=$seed
echo "# kill points from seed $seed (PMEM_FAULT_SEED=$seed prove -v tests/bench-faults.t replays them)"
run=$out/k
# The phase, the repetition whose guest it watches, and a delay in ms.
points=("boot 1 $((RANDOM % 1500))" "job 2 $((RANDOM % 800))" "results 2 $((RANDOM % 100))")
landed=0 bad=0
for k in 1 2 3; do
	read -r phase r ms <<<"${points[k - 1]}"
	u=$run/units/$unit$r
	before=$(units_done "$run")
	sums=$(cd "$run/units" 2>/dev/null && md5sum ./*/unit.json 2>/dev/null)
	if [ "$k" -eq 1 ]; then
		"$H" bench "${opts[@]}" --reps 3 --results "$out" --run-id k >/dev/null 2>"$out/k$k.err" &
	else
		"$H" bench "${opts[@]}" --reps 3 --results "$out" --resume k >/dev/null 2>"$out/k$k.err" &
	fi
	victim=$!
	# A unit's files of an earlier attempt stay until this one runs it
	# again: wait for this attempt to reach the unit (its progress line
	# for the unit before, or the first guest).
	for _ in $(seq 9000); do
		alive "$victim" || break
		if [ "$r" -eq 1 ] || grep -q "rep $((r - 1)): " "$out/k$k.err"; then
			case $phase in
			boot) [ -e "$u/console.log" ] && pgrep -f "mem-path=$u/" >/dev/null && break ;;
			job) grep -qs 'EXT4-fs (pmem0): mounted' "$u/console.log" && break ;;
			results) [ -e "$u/unit.json" ] && break ;;
			esac
		fi
		sleep 0.01
	done
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	if alive "$victim"; then
		qemu=$(pgrep -o -f "mem-path=$u/")
		mounted=$(grep -cs 'EXT4-fs (pmem0): mounted' "$u/console.log")
		kill -KILL "$victim"
		t_kill=$(date +%s%N)
		{ wait "$victim"; } 2>/dev/null
		next=$((r + 1))
		if [ "$phase" = results ]; then
			state="rep $r done; rep $next $([ -e "$run/units/$unit$next/console.log" ] && echo "started" || echo "not started")"
		else
			state="the guest of rep $r $([ -n "$qemu" ] && echo "up (QEMU $qemu)" || echo "not up"), ${mounted:-0} mounts in its console, $(wc -c <"$u/guest.log" 2>/dev/null || echo 0) bytes of job output"
		fi
		# It landed in its phase: a guest booting (not mounted yet) or
		# running its job (mounted, unit.json not written), or between.
		case $phase in
		boot) [ -n "$qemu" ] && [ "${mounted:-0}" -eq 0 ] && landed=$((landed + 1)) ;;
		job) [ -n "$qemu" ] && [ ! -e "$u/unit.json" ] && landed=$((landed + 1)) ;;
		results) [ -e "$u/unit.json" ] && [ ! -e "$run/units/$unit$next/unit.json" ] && landed=$((landed + 1)) ;;
		esac
	else
		state="missed: the attempt had ended"
		t_kill=$(date +%s%N)
		wait "$victim"
	fi
	# No guest of the run may outlive bench: give it 3 s.
	for _ in $(seq 30); do
		left=$(guests_left "$run")
		[ -z "$left" ] && break
		sleep 0.1
	done
	gone_ms=$((($(date +%s%N) - t_kill) / 1000000))
	left=$(guests_left "$run")
	broken=$(broken_docs "$run")
	after=$(units_done "$run")
	ahead=$(cells_ahead "$run")
	kept=$(cd "$run/units" 2>/dev/null && md5sum ./*/unit.json 2>/dev/null | grep -cFxf <(printf '%s\n' "$sums"))
	nbefore=$(wc -w <<<"$before")
	skipped=$(grep -c 'done before, skipped' "$out/k$k.err")
	tmp=$(find "$run" -name '*.tmp.*' | wc -l)
	echo "# kill $k, $phase point +$ms ms: $state; guests gone in ${gone_ms} ms, left: ${left:-none}; units done before: ${before:-none}, after: ${after:-none}; $tmp temporary files"
	# The killed guest's unit is not done; units done before were skipped
	# and are kept byte for byte; cells hold only units that are done.
	cut=
	[ "$phase" != results ] && [ -e "$u/unit.json" ] && cut="the killed rep $r taken for done; "
	if [ -n "$left$broken$ahead$cut" ] || [ "$skipped" -ne "$nbefore" ] || [ "${kept:-0}" -ne "$nbefore" ]; then
		bad=$((bad + 1))
		echo "# broken documents: ${broken:-none}; cells ahead of the units: ${ahead:-none}; $cut$skipped skipped, $kept of $nbefore unit.json kept"
		# shellcheck disable=SC2086
		[ -n "$left" ] && kill -KILL $left
	fi
done
[ "$landed" -eq 3 ] && [ "$bad" -eq 0 ]
tap_ok $? "bench killed with -9 at 3 seeded points (seed $seed), $landed in their phase: no guest left, every document whole, only finished units kept"

sums=$(cd "$run/units" && md5sum ./*/unit.json)
"$H" bench "${opts[@]}" --reps 3 --results "$out" --resume k >"$out/k-final.out" 2>"$out/k-final.err"
rc=$?
got=$(cells_of "$run")
echo "# uninterrupted: $ref"
echo "# resumed:       $got"
[ "$rc" -eq 0 ] && [ "$got" = "$ref" ] && [ -z "$(broken_docs "$run")" ] &&
	(cd "$run/units" && md5sum -c --quiet <<<"$sums") &&
	grep -q 'tiny \[tiny-msync\]' "$out/k-final.out"
tap_ok $? "the last resume completes the run with the cells of the uninterrupted one, the units before kept (rc $rc)"

# --- the results disk filled from outside once the first guest is done -------
# A tmpfs shrunk to what is used and 16 MiB, which a file then fills: the
# second guest's QEMU (its NVDIMM on that disk), its logs, or bench's own
# documents find no room, wherever bench is when it lands.
disk_full() {
	local small=$out/small run rc lines stop sum
	mkdir -p "$small"
	mount -t tmpfs -o size=256m tmpfs "$small" || return 2
	run=$small/full
	"$H" bench "${opts[@]}" --reps 2 --results "$small" --run-id full >"$out/full.out" 2>"$out/full.err" &
	victim=$!
	for _ in $(seq 9000); do
		[ -e "$run/units/${unit}1/unit.json" ] && break
		alive "$victim" || break
		sleep 0.01
	done
	sum=$(md5sum <"$run/units/${unit}1/unit.json")
	mount -o remount,size=$(($(df --output=used -B1 "$small" | tail -n 1) + (16 << 20))) "$small"
	head -c $((32 << 20)) /dev/zero >"$small/filler" 2>/dev/null
	echo "# the first guest done; the disk filled: $(df --output=avail -B1 "$small" | tail -n 1) bytes left"
	wait "$victim"
	rc=$?
	sed 's/^/# /' "$out/full.err"
	# Every line but the progress lines: the one that stops the run.
	lines=$(grep -cv '^bench: run full: \|^bench: \[[0-9]*/2\] ' "$out/full.err")
	stop="^bench: 6\.1-aware/ext4 rep [12] stopped: the disk under $run is full: .*; the 1 guest done before is kept ($run/units); free space, then finish the run with --resume full (make bench RESUME=full)\$"
	[ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q "$stop" "$out/full.err" && [ ! -s "$out/full.out" ] &&
		[ -z "$(broken_docs "$run")" ] && [ "$(units_done "$run")" = "1 " ] &&
		[ "$(md5sum <"$run/units/${unit}1/unit.json")" = "$sum" ] &&
		[ -z "$(find "$run" -name nvdimm.img)" ] && [ -z "$(guests_left "$run")" ]
	tap_ok $? "the disk filled under bench: stopped in one line saying so and how to finish, no summary, the first unit kept, every document whole (rc $rc)"

	"$H" bench "${opts[@]}" --reps 2 --results "$small" --resume full >"$out/full-again.out" 2>"$out/full-again.err"
	rc=$?
	sed 's/^/# /' "$out/full-again.err"
	[ "$rc" -eq 1 ] && [ "$(grep -cv '^bench: run full: \|^bench: \[[0-9]*/2\] ' "$out/full-again.err")" -eq 1 ] &&
		grep -q "^bench: .* stopped: the disk under $run is full: .*--resume full" "$out/full-again.err" &&
		[ "$(md5sum <"$run/units/${unit}1/unit.json")" = "$sum" ] && [ -z "$(broken_docs "$run")" ]
	tap_ok $? "a resume on the still full disk is refused in one line, nothing lost (rc $rc)"

	rm -f "$small/filler"
	mount -o remount,size=256m "$small"
	"$H" bench "${opts[@]}" --reps 2 --results "$small" --resume full >"$out/full-resume.out" 2>"$out/full-resume.err"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q 'rep 1: done before, skipped' "$out/full-resume.err" &&
		[ "$(md5sum <"$run/units/${unit}1/unit.json")" = "$sum" ] &&
		[ "$(cells_of "$run")" = "$(jq -c 'map(.reps = [1, 2])' <<<"$ref")" ]
	tap_ok $? "with room again the resume completes the run: the cells of the uninterrupted one, repetitions 1 and 2 (rc $rc)"
	umount -l "$small"
	return 0
}
trap 'umount -l "$out/small" 2>/dev/null' EXIT
if ! disk_full 2>"$out/mount.err"; then
	tap_skip "a results disk filled under bench stops the run in one line; resumed, it completes" \
		"cannot mount a tmpfs: $(head -n 1 "$out/mount.err")"
fi
echo "# tests/bench-faults.t took $(($(date +%s) - t_start)) s"
tap_done
