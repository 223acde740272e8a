#!/usr/bin/env bash
# An interrupted crashtest can be finished: crashtest killed with -9 while
# its second scenario's writer runs (and its checkers wait), then resumed:
#  - what it left reads as unfinished: a valid summary with the first row,
#    "complete": false;
#  - a resume with other options is refused in one line, the run untouched;
#  - the resume keeps the first row as it was, runs the cut-off scenario
#    again from nothing (no image of the killed attempt is left), and ends
#    complete with every image intact, as an uninterrupted run of this
#    program is (tests/crash.t);
#  - resuming a complete run does nothing;
#  - killed while the checker judges the first scenario, it leaves no
#    summary, and the resume runs every scenario;
#  - on a results disk that fills up while the second writer runs (a
#    tmpfs shrunk under it), the run stops in one line before the disk is
#    full, the summary keeps the finished row, the cut-off scenario's images
#    are removed, and once there is room again the resume completes it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/crash-resume
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
run=$out/r/crash
args=(--program tests/fixtures/ack-late.c --fs "ext4 xfs" --checkers 1 --results "$out")

"$H" crashtest "${args[@]}" --run-id r >"$out/first.out" 2>"$out/first.err" &
victim=$!
for _ in $(seq 1500); do
	n=$(wc -l 2>/dev/null <"$run/program__xfs/acks.log")
	[ "${n:-0}" -ge 20 ] && break
	sleep 0.2
done
acks=$(wc -l 2>/dev/null <"$run/program__xfs/acks.log")
kill -KILL "$victim"
wait "$victim" 2>/dev/null
pkill -KILL -f "mem-path=$out/r/" && sleep 1
echo "# killed with ${acks:-0} acks of the xfs writer logged"
before=$(jq -c '.scenarios[0]' "$run/summary.json")
jq -e '.complete == false and (.scenarios | length) == 1 and .scenarios[0].fs == "ext4" and
	.scenarios[0].verdicts.intact == .scenarios[0].images' "$run/summary.json" >/dev/null &&
	[ "${acks:-0}" -ge 20 ] && [ -d "$run/program__xfs/images" ]
tap_ok $? "killed mid-scenario: the summary holds the finished ext4 row and says the run is not complete"

sum=$(md5sum <"$run/summary.json")
"$H" crashtest "${args[@]}" --seed 2 --resume r >/dev/null 2>"$out/other.err"
rc=$?
sed 's/^/# /' "$out/other.err"
[ "$rc" -eq 2 ] && [ "$(wc -l <"$out/other.err")" -eq 1 ] && grep -q 'was made with another seed' "$out/other.err" &&
	[ "$(md5sum <"$run/summary.json")" = "$sum" ]
tap_ok $? "a resume with another seed is refused in one line, the run untouched (rc $rc)"

"$H" crashtest "${args[@]}" --resume r >"$out/resume.out" 2>"$out/resume.err"
rc=$?
grep -E 'judged before|program on' "$out/resume.err" | sed 's/^/# /'
imgs=$(jq '.scenarios[1].images' "$run/summary.json")
files=$(find "$run/program__xfs" -name 'image-*.json' | wc -l)
echo "# xfs: $imgs images judged, $files verdict files"
[ "$rc" -eq 0 ] && grep -q 'program on ext4: judged before the interruption, kept' "$out/resume.err" &&
	[ "$(jq -c '.scenarios[0]' "$run/summary.json")" = "$before" ] &&
	jq -e '.complete and .resumed and (.scenarios | length) == 2 and .scenarios[1].fs == "xfs" and
		.scenarios[1].images > 0 and .scenarios[1].verdicts.intact == .scenarios[1].images' \
		"$run/summary.json" >/dev/null && [ "$files" -eq "$imgs" ]
tap_ok $? "the resume keeps the ext4 row, runs xfs again from nothing: all $imgs intact, complete (rc $rc)"

"$H" crashtest "${args[@]}" --resume r >/dev/null 2>"$out/again.err"
rc=$?
[ "$rc" -eq 0 ] && grep -q 'is complete: nothing to resume' "$out/again.err"
tap_ok $? "resuming a complete run does nothing (rc $rc)"
"$H" crashtest "${args[@]}" --resume nosuch >/dev/null 2>"$out/nosuch.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$out/nosuch.err")" -eq 1 ] && grep -q "nothing to resume at $out/nosuch" "$out/nosuch.err"
tap_ok $? "resuming a run that is not there: one line naming where it looked (rc $rc)"

# Killed in the checker phase of the first scenario: nothing is judged
# yet, so there is no summary, and the resume runs every scenario.
run=$out/c/crash
"$H" crashtest "${args[@]}" --run-id c >/dev/null 2>"$out/checking.err" &
victim=$!
for _ in $(seq 1500); do
	n=$(grep -c '^{"schema":1,"kind":"check"' "$run/checker-0.0/guest.log" 2>/dev/null)
	[ "${n:-0}" -ge 2 ] && break
	sleep 0.2
done
kill -KILL "$victim"
wait "$victim" 2>/dev/null
pkill -KILL -f "mem-path=$out/c/" && sleep 1
judged=$(grep -c '^{"schema":1,"kind":"check"' "$run/checker-0.0/guest.log" 2>/dev/null)
echo "# killed after the checker reported on ${judged:-0} ext4 images"
[ ! -e "$run/summary.json" ] && [ "${judged:-0}" -ge 2 ]
tap_ok $? "killed while the checker judges the first scenario: no summary, nothing taken for judged"
"$H" crashtest "${args[@]}" --resume c >/dev/null 2>"$out/checking-resume.err"
rc=$?
[ "$rc" -eq 0 ] && ! grep -q 'judged before the interruption' "$out/checking-resume.err" &&
	jq -e '.complete and (.scenarios | map(.images > 0 and .verdicts.intact == .images) | all) and
		(.scenarios | length) == 2' "$run/summary.json" >/dev/null
tap_ok $? "its resume runs both scenarios: all intact, complete (rc $rc)"

# A full disk: results on a tmpfs, shrunk once the first scenario is
# judged to leave room for about two more images.
small=$out/small
mkdir -p "$small"
if ! mount -t tmpfs -o size=4g tmpfs "$small" 2>"$out/mount.err"; then
	tap_skip "a full results disk stops the run; resumed, it completes" "cannot mount a tmpfs: $(head -n 1 "$out/mount.err")"
	tap_done
fi
trap 'umount -l "$small" 2>/dev/null' EXIT
run=$small/d/crash
image=$(du -B1 "$B/images/xfs.img" | cut -f1)
"$H" crashtest "${args[@]}" --results "$small" --run-id d >"$out/full.out" 2>"$out/full.err" &
victim=$!
for _ in $(seq 1500); do
	[ "$(jq '.scenarios | length' "$run/summary.json" 2>/dev/null)" = 1 ] && break
	sleep 0.2
done
used=$(df --output=used -B1 "$small" | tail -n 1)
mount -o remount,size=$((used + image * 5 / 2 + (64 << 20))) "$small"
wait "$victim"
rc=$?
grep '^crashtest: .*stopped' "$out/full.err" | sed 's/^/# /'
left=$(find "$run/program__xfs" -name '*.img' | wc -l)
[ "$rc" -eq 1 ] && [ "$(grep -c '^crashtest: .*stopped: the disk under' "$out/full.err")" -eq 1 ] &&
	grep -q 'free space, then finish the run with --resume d' "$out/full.err" &&
	jq -e '.complete == false and (.scenarios | length) == 1 and .scenarios[0].fs == "ext4"' \
		"$run/summary.json" >/dev/null && [ "$left" -eq 0 ]
tap_ok $? "the disk fills while the xfs writer runs: stopped in one line, the ext4 row kept, no image left (rc $rc)"

mount -o remount,size=4g "$small"
"$H" crashtest "${args[@]}" --results "$small" --resume d >"$out/full-resume.out" 2>"$out/full-resume.err"
rc=$?
[ "$rc" -eq 0 ] && jq -e '.complete and (.scenarios | length) == 2 and
	.scenarios[1].images > 0 and .scenarios[1].verdicts.intact == .scenarios[1].images' \
	"$run/summary.json" >/dev/null
tap_ok $? "once there is room again the resume completes the run, all intact (rc $rc)"
tap_done
