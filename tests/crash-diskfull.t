#!/usr/bin/env bash
# The results disk fills while crashtest writes its own documents, past the
# free-space checks it makes before each image (tests/faults.t fills it
# under the checkers): run.json before anything runs, acks.log while the
# writer acknowledges, the summary once a scenario is judged, and the
# summary that marks the run complete. The disk is a small tmpfs filled
# from outside; tests/lib/stop-at-page.c holds the harness (SIGSTOP) just
# before the write that needs a new page of the file, so that write meets
# the full disk at a known place. Each time the run stops in one line that
# names the file and what to run next, exits 1, claims no scenario or run
# complete, and leaves every document whole; with room again the resumes
# complete the run with the verdicts of an uninterrupted one.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/crash-diskfull
small=$out/small
umount -l "$small" 2>/dev/null
rm -rf "$out"
mkdir -p "$small"
echo "TAP version 13"
tap_require "$B/kernels/6.1-aware/bzImage" "$B/initramfs.cpio" "$B/initramfs-crash.cpio" "$B/images/ext4.img" \
	"$B/images/xfs.img"
if ! mount -t tmpfs -o size=4g,nr_inodes=100000 tmpfs "$small" 2>"$out/mount.err"; then
	tap_skip "a full disk under crashtest's own documents" "cannot mount a tmpfs: $(head -n 1 "$out/mount.err")"
	tap_done
fi
trap 'umount -l "$small" 2>/dev/null' EXIT
t_start=$(date +%s)
stop=$out/stop-at-page.so
cc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$stop" tests/lib/stop-at-page.c -ldl || exit 1

# A user's program on two filesystems: two scenarios of 512 acks each.
prog=(--program tests/fixtures/ack-late.c --fs "ext4 xfs" --checkers 1)
outcome='[.scenarios[] | {scenario, fs, mode, platform, expect, writer, all_intact: (.images > 0 and
	.verdicts.intact == .images), unexpected: (.unexpected_images | length), protocol_error, writer_failure, missed}]'

# Another user's file takes what is left: the tmpfs shrunk to what is used
# and 16 MiB, which the file fills. room gives it back.
fill() {
	local used
	used=$(df --output=used -B1 "$small" | tail -n 1)
	mount -o remount,size=$((used + (16 << 20))) "$small"
	head -c $((32 << 20)) /dev/zero >"$small/filler" 2>/dev/null
}
room() {
	rm -f "$small/filler"
	mount -o remount,size=4g "$small"
}

# What crashtest said besides progress: a scenario begun, judged and
# saved, or kept from before.
said() { # stderr file
	grep -v ' \.\.\.$\|: [0-9]* images, [0-9]* acks, \|: judged before the interruption, kept$' "$1"
}

# Every JSON document of the run parses, and no temporary one is left.
whole() { # run directory
	[ -z "$(find "$1" -name '*.tmp.*')" ] &&
		find "$1" -name '*.json' -exec sh -c 'for f; do jq empty "$f" 2>/dev/null || exit 1; done' _ {} +
}

# crashtest held at the write PMEM_STOP_* choose; the disk is filled while
# it is held, and it goes on. Sets rc, and held (yes: it was held).
held_run() { # name, file, page, nth, crashtest arguments...
	local name=$1 file=$2 page=$3 nth=$4 pid st
	shift 4
	PMEM_STOP_FILE=$file PMEM_STOP_PAGE=$page PMEM_STOP_NTH=$nth LD_PRELOAD=$stop \
		"$H" crashtest "$@" >"$out/$name.out" 2>"$out/$name.err" &
	pid=$!
	held=no
	for _ in $(seq 6000); do
		st=$(ps -o stat= -p "$pid" 2>/dev/null) || break
		case $st in
		T*) held=yes && break ;;
		Z*) break ;;
		esac
		sleep 0.05
	done
	[ "$held" = yes ] && fill
	kill -CONT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	said "$out/$name.err" | cut -c1-400 | sed 's/^/# /'
}

# --- run.json, on a disk full from the start (no guest) ----------------------
fill
"$H" crashtest "${prog[@]}" --results "$small" --run-id r >"$out/r.out" 2>"$out/r.err"
rc=$?
"$H" crashtest "${prog[@]}" --results "$small" --run-id r >"$out/r2.out" 2>"$out/r2.err"
rc2=$?
sed 's/^/# /' "$out/r.err"
line="crashtest: run r stopped: the disk under $small/r is full: writing $small/r/run.json failed: No space left on device; no scenario has run; free space, then run the same command again"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$out/r.err")" -eq 1 ] && grep -Fqx "$line" "$out/r.err" && [ ! -e "$small/r" ] &&
	[ "$rc2" -eq 1 ] && cmp -s "$out/r.err" "$out/r2.err"
tap_ok $? "run.json on a full disk: one line, exit 1, no run left behind, and the same command says the same (rc $rc, $rc2)"
room

# --- the uninterrupted run ---------------------------------------------------
"$H" crashtest "${prog[@]}" --results "$out" --run-id ref >"$out/ref.out" 2>"$out/ref.err"
rc=$?
ref=$(jq -c "$outcome" "$out/ref/crash/summary.json")
[ "$rc" -eq 0 ] && jq -e '.complete and (.scenarios | length) == 2' "$out/ref/crash/summary.json" >/dev/null
tap_ok $? "the uninterrupted run: $(jq -c '[.scenarios[].images]' "$out/ref/crash/summary.json") images, all intact (rc $rc)"

run=$small/d
sum=$run/crash/summary.json
xdir=$run/crash/program__xfs
resume="free space, then finish the run with --resume d (make crashtest RESUME=d)"

# --- acks.log, while the second writer acknowledges ---------------------------
# Held at the ack whose line reaches the log's second page; the lines before
# it fill the first, of 4096 bytes (ack-late.c acks record i at i * 4096).
held_run acks program__xfs/acks.log 1 1 "${prog[@]}" --results "$small" --run-id d
whole_lines=$(awk 'BEGIN { for (i = 0;; i++) { l = length(i " " i * 4096 " 4096") + 1
	if (s + l > 4096) { print i; exit } s += l } }')
row0=$(jq -c '.scenarios[0]' "$sum")
line="crashtest: program on xfs stopped: the disk under $xdir is full: writing $xdir/acks.log failed: No space left on device; the summary holds the 1 scenario judged before ($sum); $resume"
echo "# acks.log holds $(wc -l <"$xdir/acks.log") lines, $(wc -c <"$xdir/acks.log") bytes; $whole_lines fit in its first page"
[ "$held" = yes ] && [ "$rc" -eq 1 ] && [ "$(said "$out/acks.err" | wc -l)" -eq 1 ] && grep -Fqx "$line" "$out/acks.err" &&
	! grep -q 'program on xfs: [0-9]* images' "$out/acks.err" &&
	jq -e '.complete == false and (.scenarios | length) == 1 and .scenarios[0].fs == "ext4"' "$sum" >/dev/null &&
	cmp -s "$xdir/acks.log" <(awk -v n="$whole_lines" 'BEGIN { for (i = 0; i < n; i++) print i, i * 4096, 4096 }') &&
	[ -z "$(find "$xdir" -name '*.img')" ] && whole "$run"
tap_ok $? "acks.log cannot take the next ack: stopped in one line naming it, the summary keeps the first row, the log its whole lines, no image left (rc $rc)"

# --- the summary, once the second scenario is judged --------------------------
room
md5=$(md5sum <"$sum")
held_run part crash/summary.json 0 1 "${prog[@]}" --results "$small" --resume d
line="crashtest: program on xfs stopped: the disk under $run/crash is full: writing $sum failed: No space left on device; the summary holds the 1 scenario judged before ($sum); $resume"
[ "$held" = yes ] && [ "$rc" -eq 1 ] && [ "$(said "$out/part.err" | wc -l)" -eq 1 ] && grep -Fqx "$line" "$out/part.err" &&
	! grep -q 'program on xfs: [0-9]* images' "$out/part.err" && [ "$(md5sum <"$sum")" = "$md5" ] &&
	[ ! -s "$out/part.out" ] && whole "$run"
tap_ok $? "the summary cannot take the judged scenario: stopped in one line, the scenario not claimed, the summary as it was (rc $rc)"

# --- the summary that would mark the run complete -----------------------------
room
held_run final crash/summary.json 0 2 "${prog[@]}" --results "$small" --resume d
line="crashtest: run d stopped: the disk under $run/crash is full: writing $sum failed: No space left on device; the summary holds the 2 scenarios judged so far, the run not marked complete ($sum); $resume"
[ "$held" = yes ] && [ "$rc" -eq 1 ] && [ "$(said "$out/final.err" | wc -l)" -eq 1 ] && grep -Fqx "$line" "$out/final.err" &&
	jq -e '.complete == false and (.scenarios | length) == 2' "$sum" >/dev/null &&
	[ "$(jq -c '.scenarios[0]' "$sum")" = "$row0" ] && [ ! -s "$out/final.out" ] && [ ! -e "$run/report" ] &&
	whole "$run"
tap_ok $? "the complete summary cannot be written: stopped in one line, no table or report claims the run (rc $rc)"

# --- with room, the resume completes ------------------------------------------
room
t0=$(date +%s)
"$H" crashtest "${prog[@]}" --results "$small" --resume d >"$out/done.out" 2>"$out/done.err"
rc=$?
secs=$(($(date +%s) - t0))
got=$(jq -c "$outcome" "$sum")
echo "# uninterrupted: $ref"
echo "# resumed:       $got"
[ "$rc" -eq 0 ] && [ "$got" = "$ref" ] && jq -e '.complete and .resumed' "$sum" >/dev/null &&
	[ "$(jq -c '.scenarios[0]' "$sum")" = "$row0" ] && [ "$(grep -c 'judged before the interruption, kept$' "$out/done.err")" -eq 2 ] &&
	[ -z "$(said "$out/done.err")" ] && grep -q 'as expected' "$out/done.out" && whole "$run"
tap_ok $? "with room the resume completes the run in $secs s, both rows kept, with the verdicts of the uninterrupted one (rc $rc)"
# --- an ADR crash point, while the model saves it ---------------------------
# Held at the copy that saves the first crash point (images/p000.adr): a
# point the disk cannot take stops the run, as an image would; none is
# dropped without a word. With room the resume takes the points again.
adr=(--program tests/fixtures/adr-flush.c --fs ext4 --checkers 1 --platform adr)
held_run adr program__ext4/images/p000.adr any 1 "${adr[@]}" --results "$small" --run-id a
adir=$small/a/crash/program__ext4
line="crashtest: program on ext4 stopped: the disk under $adir is full: writing $adir/images/p000.adr failed: No space left on device; the summary holds the 0 scenarios judged before ($small/a/crash/summary.json); free space, then finish the run with --resume a (make crashtest RESUME=a)"
[ "$held" = yes ] && [ "$rc" -eq 1 ] && [ "$(said "$out/adr.err" | wc -l)" -eq 1 ] && grep -Fqx "$line" "$out/adr.err" &&
	[ ! -e "$adir/images/p000.adr" ] && whole "$small/a"
tap_ok $? "an ADR crash point the disk cannot take: stopped in one line naming it, no point file left (rc $rc)" "$out/adr.err"
room
"$H" crashtest "${adr[@]}" --results "$small" --resume a >"$out/adr-done.out" 2>"$out/adr-done.err"
rc=$?
n=$(jq '.scenarios[0] | .images' "$small/a/crash/summary.json")
[ "$rc" -eq 0 ] && jq -e '.complete and .scenarios[0].images > 0 and .scenarios[0].verdicts.intact == .scenarios[0].images' \
	"$small/a/crash/summary.json" >/dev/null
tap_ok $? "with room the resume takes the crash points again: $n ADR images, all intact (rc $rc)" "$out/adr-done.err"

echo "# tests/crash-diskfull.t took $(($(date +%s) - t_start)) s"
tap_done
