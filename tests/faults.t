#!/usr/bin/env bash
# Faults from outside and a hostile guest, on real guests (ext4 only, one
# checker): each ends with one line from the harness, loses nothing written
# before it, and fails here if that regresses:
#  - QEMU killed with SIGKILL (by its pid, found by its NVDIMM path) under a
#    running crashtest writer and under a running bench guest: the scenario
#    or unit is marked failed with the signal named, the images taken before
#    are judged, and the run goes on to the next scenario or unit;
#  - a program that writes the serial console without end: stopped at its
#    console log's allowance, named "flooded", its images judged;
#  - hostile control lines from a real program (tests/fixtures/hostile-lines.c):
#    a lower sequence for a claimed record, a record past the device, a 64 KiB
#    line, bytes with a NUL among them; each refused as a protocol error
#    quoting it, at once, the images before judged intact;
#  - crashtest killed with -9 at three seeded random points of one run, one
#    in each phase: the writer booting, acknowledging, the checker judging
#    (set PMEM_FAULT_SEED to replay others), each followed by --resume: no
#    guest left, no document half written or taken for complete, and the
#    finished run's verdicts are those of an uninterrupted run;
#  - the results disk (a tmpfs) filled from outside while the checker judges
#    the second scenario, its bytes or its inodes: past the free-space
#    checks, so writes fail for real (into a checker's NVDIMM, or its QEMU's
#    mapping of it, or the verdict files); the run stops in one line, gives
#    no verdict the disk caused, the summary keeps the first scenario, and
#    with room again the resume completes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/faults
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/kernels/6.1-aware/bzImage" "$B/initramfs.cpio" "$B/initramfs-crash.cpio" "$B/images/ext4.img"
t_start=$(date +%s)

# Milliseconds since the epoch.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Whether a child still runs (a zombie answers kill -0 too).
alive() { # pid
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# Images the checkers of this attempt reported (started: a file made at its start).
reported() { # run directory, started
	find "$1/crash" -path '*/checker-*/guest.log' -newer "$2" -exec grep -h '^{"schema":1,"kind":"check"' {} + 2>/dev/null | wc -l
}

# Guests of a run still up, by pid: none may outlive a harness killed with -9.
guests_left() { # run directory
	pgrep -f "mem-path=$1/" | tr '\n' ' '
}

# --- QEMU killed from outside under a crashtest writer ---------------------
two=(--scenarios "shared-msync sync-clwb" --fs ext4 --checkers 1)
run=$out/qkill/crash
wdir=$run/shared-msync__ext4
(
	for _ in $(seq 3000); do
		n=$(wc -l 2>/dev/null <"$wdir/acks.log")
		[ "${n:-0}" -ge 200 ] && break
		sleep 0.1
	done
	pid=$(pgrep -f "mem-path=$wdir/nvdimm.img")
	echo "$pid" >"$out/qkill.pid"
	[ -n "$pid" ] && kill -KILL "$pid"
) &
killer=$!
"$H" crashtest "${two[@]}" --results "$out" --run-id qkill >"$out/qkill.out" 2>"$out/qkill.err"
rc=$?
wait "$killer"
pid=$(head -n 1 "$out/qkill.pid")
grep 'did not finish' "$out/qkill.err" | sed 's/^/# /'
echo "# $(jq -c '[.scenarios[] | {scenario, writer, acks, images, intact: .verdicts.intact}]' "$run/summary.json")"
[ "$rc" -eq 1 ] && [ -n "$pid" ] && [ "$(grep -c 'did not finish' "$out/qkill.err")" -eq 1 ] &&
	grep -q "^crashtest: shared-msync/ext4: the writer did not finish (no-exit: guest stopped without reporting an exit status: QEMU (pid $pid) was killed by signal 9 (Killed), not by the harness; .*); judging the [0-9]* images taken" \
		"$out/qkill.err" &&
	jq -e '.complete and (.scenarios | length) == 2 and
		(.scenarios[0] | .writer == "no-exit" and (.writer_failure | test("killed by signal 9")) and
			.acks >= 200 and .acks < 1024 and .images > 0 and .verdicts.intact == .images) and
		(.scenarios[1] | .scenario == "sync-clwb" and .writer == "killed" and .acks == 1024 and
			.images > 0 and .verdicts.intact == .images)' "$run/summary.json" >/dev/null &&
	[ "$(wc -l <"$wdir/acks.log")" -eq "$(jq '.scenarios[0].acks' "$run/summary.json")" ] &&
	[ "$(find "$wdir" -name 'image-*.json' | wc -l)" -eq "$(jq '.scenarios[0].images' "$run/summary.json")" ] &&
	grep -q 'WRITER FAILED' "$out/qkill.out"
tap_ok $? "QEMU killed under a writer: that scenario failed naming signal 9, its images judged intact, the next one ran (rc $rc)"

# --- QEMU killed from outside under a bench guest ---------------------------
# Killed once the second guest has mounted its filesystem and runs its job.
bruns=$out/bench
unit=$bruns/bkill/units/6.1-aware__ext4__rep
(
	for _ in $(seq 6000); do
		grep -qs 'EXT4-fs (pmem0): mounted' "${unit}2/console.log" && break
		sleep 0.05
	done
	md5sum <"${unit}1/unit.json" >"$out/bkill.md5"
	pid=$(pgrep -f "mem-path=${unit}2/nvdimm.img")
	echo "$pid $(wc -c 2>/dev/null <"${unit}2/guest.log")" >"$out/bkill.pid"
	[ -n "$pid" ] && kill -KILL "$pid"
) &
killer=$!
"$H" bench --kernels 6.1-aware --fs ext4 --modes shared --jobs tests/fixtures/tiny.fio --reps 3 \
	--results "$bruns" --run-id bkill --accel "${ACCEL:-auto}" >"$out/bkill.out" 2>"$out/bkill.err"
rc=$?
wait "$killer"
read -r pid written <"$out/bkill.pid"
grep -E 'killed by|failed' "$out/bkill.err" | sed 's/^/# /'
reps=$(jq -c '[.reps[].rep]' "$bruns/bkill/cells/6.1-aware__ext4__shared__tiny.json")
echo "# QEMU $pid killed with ${written:-?} bytes of job output; the cell holds repetitions $reps"
[ "$rc" -eq 1 ] && [ -n "$pid" ] && [ "${written:-1}" -eq 0 ] &&
	[ "$(grep -c 'killed by signal' "$out/bkill.err")" -eq 1 ] &&
	grep -q "^pmem-harness: guest stopped without reporting an exit status: QEMU (pid $pid) was killed by signal 9 (Killed), not by the harness" \
		"$out/bkill.err" &&
	grep -q '^bench: 6.1-aware/ext4 rep 2 failed' "$out/bkill.err" &&
	jq -e '.status == "no-exit" and (.message | test("killed by signal 9"))' "${unit}2/vm.json" >/dev/null &&
	[ ! -e "${unit}2/unit.json" ] && [ "$(md5sum <"${unit}1/unit.json")" = "$(cat "$out/bkill.md5")" ] &&
	[ -f "${unit}3/unit.json" ] && [ "$reps" = "[1,3]" ]
tap_ok $? "QEMU killed under a bench guest: that unit failed naming signal 9, the one before unchanged, the next ran (rc $rc)"

# --- a program flooding the serial console ----------------------------------
run=$out/conflood/crash
PMEM_GUEST_LOG_MAX=$((1 << 20)) "$H" crashtest --program tests/fixtures/flood-console.c --fs ext4 --checkers 1 \
	--results "$out" --run-id conflood >"$out/conflood.out" 2>"$out/conflood.err"
rc=$?
grep 'did not finish' "$out/conflood.err" | sed 's/^/# /'
con=$(stat -c %s "$run/program__ext4/console.log")
gl=$(stat -c %s "$run/program__ext4/guest.log")
echo "# console.log: $con bytes, guest.log: $gl bytes"
[ "$rc" -eq 1 ] && [ "$con" -eq $((1 << 20)) ] && [ "$gl" -lt 65536 ] &&
	[ "$(grep -c 'did not finish' "$out/conflood.err")" -eq 1 ] &&
	grep -q "the writer did not finish (flooded: guest flooded its console: more than 1 MiB, stopped; the first 1 MiB are in $run/program__ext4/console.log)" \
		"$out/conflood.err" &&
	jq -e '.complete and (.scenarios[0] | .writer == "flooded" and (.writer_failure | test("flooded its console")) and
		.acks == 20 and .images > 0 and .verdicts.intact == .images)' "$run/summary.json" >/dev/null &&
	grep -q 'WRITER FAILED' "$out/conflood.out"
tap_ok $? "a program flooding the console is stopped at 1 MiB as flooded; its 20 acks' images judged intact (rc $rc)"

# --- hostile control lines from a real program ------------------------------
# abuse number, a name, and what the summary's protocol error must read.
hostile=(
	'1|a lower sequence for a claimed record|^"ack 5 77824 4096": sequence 5 for the 4096 bytes at 77824 after 19 there'
	'2|a record past the device|^"ack 20 1099511627776 4096": a record ending at 1099511631872, past the device'
	'3|a 64 KiB line|^"ack 20 81920 9{70,}\.\.\.": not "ack <seq> <offset> <length>" in plain decimal$'
	'4|bytes with a NUL among them|^"\?\?garbage\?{4}\[2J ack 20 81920 4096": not a line of the writer.s protocol'
)
for h in "${hostile[@]}"; do
	IFS='|' read -r abuse name want <<<"$h"
	run=$out/abuse$abuse/crash
	t0=$(date +%s)
	"$H" crashtest --program tests/fixtures/hostile-lines.c --cflags "-DABUSE=$abuse" --fs ext4 --checkers 1 \
		--results "$out" --run-id "abuse$abuse" >"$out/abuse$abuse.out" 2>"$out/abuse$abuse.err"
	rc=$?
	secs=$(($(date +%s) - t0))
	grep 'broke the ack protocol' "$out/abuse$abuse.err" | cut -c1-200 | sed 's/^/# /'
	[ "$rc" -eq 1 ] && [ "$secs" -lt 120 ] && [ "$(wc -l <"$run/program__ext4/acks.log")" -eq 20 ] &&
		[ "$(grep -c 'broke the ack protocol' "$out/abuse$abuse.err")" -eq 1 ] &&
		grep -q 'crashtest: program/ext4: the guest broke the ack protocol, stopped at 20 acks: "' "$out/abuse$abuse.err" &&
		jq -e --arg want "$want" '.complete and (.scenarios[0] | .acks == 20 and .images > 0 and
			.verdicts.intact == .images and (.protocol_error | test($want)))' "$run/summary.json" >/dev/null &&
		grep -q 'PROTOCOL ERROR' "$out/abuse$abuse.out"
	tap_ok $? "hostile line, $name: refused as a protocol error quoting it, in $secs s; 20 acks kept, images intact (rc $rc)"
done

# --- crashtest killed with -9 at seeded random points, each resumed ----------
seed=${PMEM_FAULT_SEED:-14}
RANDOM=$seed
late=(--program tests/fixtures/ack-late.c --fs ext4 --checkers 1 --results "$out")
t0=$(now_ms)
"$H" crashtest "${late[@]}" --run-id ref >"$out/ref.out" 2>"$out/ref.err"
rc=$?
ref_ms=$(($(now_ms) - t0))
outcome='[.scenarios[] | {scenario, fs, mode, platform, expect, writer, all_intact: (.images > 0 and
	.verdicts.intact == .images), unexpected: (.unexpected_images | length), protocol_error, writer_failure, missed}]'
ref=$(jq -c "$outcome" "$out/ref/crash/summary.json")
[ "$rc" -eq 0 ] && jq -e '.complete' "$out/ref/crash/summary.json" >/dev/null
tap_ok $? "the uninterrupted run: $(jq '.images' "$out/ref/crash/summary.json") images, all intact, in $ref_ms ms (rc $rc)"

run=$out/k
d=$run/crash/program__ext4
landed=0 bad=0
nimages=$(jq '.images' "$out/ref/crash/summary.json")
# One point in each phase, at a seeded random place in it: while the writer
# guest boots, while it acknowledges, while the checker reports.
points=("boot $((RANDOM % 2000))" "acks $((1 + RANDOM % 500))" "checked $((1 + RANDOM % (nimages / 2)))")
for k in 1 2 3; do
	read -r phase n <<<"${points[k - 1]}"
	if [ "$k" -eq 1 ]; then
		"$H" crashtest "${late[@]}" --run-id k >/dev/null 2>"$out/k$k.err" &
	else
		"$H" crashtest "${late[@]}" --resume k >/dev/null 2>"$out/k$k.err" &
	fi
	victim=$!
	# Files of an earlier attempt stay until this one reaches the scenario
	# (it says so on stderr) and clears them.
	for _ in $(seq 6000); do
		alive "$victim" || break
		if grep -q 'program on ext4 (shared)' "$out/k$k.err"; then
			case $phase in
			boot) [ -e "$d/nvdimm.img" ] && sleep "$((n / 1000)).$(printf '%03d' $((n % 1000)))" && break ;;
			acks) acks=$(wc -l 2>/dev/null <"$d/acks.log") && [ "${acks:-0}" -ge "$n" ] && break ;;
			checked) [ "$(reported "$run" "$out/k$k.err")" -ge "$n" ] && break ;;
			esac
		fi
		sleep 0.02
	done
	if alive "$victim"; then
		kill -KILL "$victim"
		acks=$(wc -l 2>/dev/null <"$d/acks.log")
		where="$phase point $n: killed with ${acks:-0} of 512 acks logged, $(reported "$run" "$out/k$k.err") images reported"
		landed=$((landed + 1))
	else
		where="$phase point $n: missed, the attempt had ended"
	fi
	wait "$victim" 2>/dev/null
	sleep 3
	left=$(guests_left "$run")
	# Every document is whole, and a summary left behind does not claim the run complete.
	broken=$(find "$run" -name '*.json' ! -name '*.tmp.*' -exec sh -c 'jq empty "$1" 2>/dev/null || echo "$1"' _ {} \;)
	complete=$(jq '.complete' "$run/crash/summary.json" 2>/dev/null)
	echo "# kill $k of seed $seed, $where; guests left: ${left:-none}; summary complete: ${complete:-no summary}"
	if [ -n "$left" ] || [ -n "$broken" ] || [ "$complete" = true ]; then
		bad=$((bad + 1))
		echo "# broken documents: ${broken:-none}"
		# shellcheck disable=SC2086
		[ -n "$left" ] && kill -KILL $left
	fi
done
[ "$landed" -eq 3 ] && [ "$bad" -eq 0 ]
tap_ok $? "crashtest killed with -9 at 3 seeded points (seed $seed): no guest left, no document half written or complete"
"$H" crashtest "${late[@]}" --resume k >"$out/k-final.out" 2>"$out/k-final.err"
rc=$?
got=$(jq -c "$outcome" "$run/crash/summary.json")
echo "# uninterrupted: $ref"
echo "# resumed:       $got"
echo "# images: $(jq '.images' "$out/ref/crash/summary.json") uninterrupted, $(jq '.images' "$run/crash/summary.json") resumed"
[ "$rc" -eq 0 ] && [ "$got" = "$ref" ] && jq -e '.complete and .resumed' "$run/crash/summary.json" >/dev/null
tap_ok $? "the last resume completes the run with the verdicts of the uninterrupted one (rc $rc)"

# --- the results disk filled from outside while the checker judges -----------
# Once the second writer is done (all acks, its NVDIMM file removed), the
# checker takes its images and nothing checks free space before the writes
# to come. Another user's files take what is left: the bytes (the tmpfs
# shrunk to what is used and 16 MiB, which a file fills) or the inodes (the
# same with 16 inodes, which empty files take). --keep: no image is removed
# to make room before the verdicts are written.
disk_full() { # bytes|inodes
	local what=$1 small=$out/small-$1 run wdir victim before used n rc left
	mkdir -p "$small"
	mount -t tmpfs -o size=4g,nr_inodes=100000 tmpfs "$small" || return 2
	run=$small/e/crash
	wdir=$run/sync-clwb__ext4
	"$H" crashtest "${two[@]}" --keep --results "$small" --run-id e >"$out/full-$what.out" 2>"$out/full-$what.err" &
	victim=$!
	for _ in $(seq 3000); do
		n=$(wc -l 2>/dev/null <"$wdir/acks.log")
		[ "${n:-0}" -ge 1024 ] && [ ! -e "$wdir/nvdimm.img" ] && break
		kill -0 "$victim" 2>/dev/null || break
		sleep 0.1
	done
	before=$(jq -c '.scenarios[0]' "$run/summary.json")
	if [ "$what" = bytes ]; then
		used=$(df --output=used -B1 "$small" | tail -n 1)
		mount -o remount,size=$((used + (16 << 20))) "$small"
		head -c $((32 << 20)) /dev/zero >"$small/filler" 2>/dev/null
	else
		used=$(df --output=iused "$small" | tail -n 1)
		mount -o remount,nr_inodes=$((used + 16)) "$small"
		mkdir -p "$small/filler"
		for i in $(seq 32); do : >"$small/filler/$i" 2>/dev/null || break; done
	fi
	echo "# $what: the second writer done with ${n:-0} acks; the disk filled: $(df --output=avail -B1 "$small" |
		tail -n 1) bytes, $(df --output=iavail "$small" | tail -n 1) inodes left"
	wait "$victim"
	rc=$?
	grep -v ' \.\.\.$\|: [0-9]* images, ' "$out/full-$what.err" | cut -c1-400 | sed 's/^/# /'
	left=$(find "$wdir" -name '*.img' 2>/dev/null | wc -l)
	[ "$rc" -eq 1 ] && [ "$(grep -c '^crashtest: sync-clwb on ext4 stopped: the disk under .* is full' "$out/full-$what.err")" -eq 1 ] &&
		grep -q 'free space, then finish the run with --resume e' "$out/full-$what.err" &&
		jq -e '.complete == false and (.scenarios | length) == 1' "$run/summary.json" >/dev/null &&
		[ "$(jq -c '.scenarios[0]' "$run/summary.json")" = "$before" ] && [ "$left" -eq 0 ] &&
		! grep -q 'UNEXPECTED\|fs-corrupt' "$out/full-$what.out"
	tap_ok $? "the disk's $what filled under the checker: stopped in one line, no verdict given, the summary keeps the first row (rc $rc)"

	rm -rf "$small/filler"
	mount -o remount,size=4g,nr_inodes=100000 "$small"
	"$H" crashtest "${two[@]}" --keep --results "$small" --resume e >"$out/full-$what-resume.out" \
		2>"$out/full-$what-resume.err"
	rc=$?
	[ "$rc" -eq 0 ] && [ "$(jq -c '.scenarios[0]' "$run/summary.json")" = "$before" ] &&
		jq -e '.complete and (.scenarios | length) == 2 and .scenarios[1].images > 0 and
			.scenarios[1].verdicts.intact == .scenarios[1].images' "$run/summary.json" >/dev/null
	tap_ok $? "with room again the resume completes the run: the first row kept, $(jq '.scenarios[1].images' \
		"$run/summary.json") images of the second intact (rc $rc)"
	umount -l "$small"
	return 0
}
trap 'umount -l "$out/small-bytes" "$out/small-inodes" 2>/dev/null' EXIT
for what in bytes inodes; do
	if ! disk_full "$what" 2>"$out/mount.err"; then
		tap_skip "a results disk whose $what fill under the checker stops the run; resumed, it completes" \
			"cannot mount a tmpfs: $(head -n 1 "$out/mount.err")"
	fi
done
echo "# tests/faults.t took $(($(date +%s) - t_start)) s"
tap_done
