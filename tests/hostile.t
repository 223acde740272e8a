#!/usr/bin/env bash
# The guest is untrusted: make crashtest runs a user's program there, and
# the program may send the host anything. Each case is a program that
# misbehaves on purpose after 40 correct acks:
#  - it acknowledges its last record again: the host refuses the line as a
#    protocol error, stops the guest, keeps the 40 acks it logged and judges
#    the images taken before; the run fails with one line saying so;
#  - it writes output without end: the guest is stopped at its log
#    allowance, the log keeps what came before, and the run still judges the
#    images taken and writes its summary.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/hostile
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"

"$H" crashtest --program tests/fixtures/hostile-ack.c --fs ext4 --checkers 1 --results "$out" --run-id ack \
	>"$out/ack.out" 2>"$out/ack.err"
rc=$?
dir=$out/ack/crash/program__ext4
grep 'broke the ack protocol' "$out/ack.err" | sed 's/^/# /'
row=$(jq -c '.scenarios[0] | {acks, images, verdicts, protocol_error, complete: true}' "$out/ack/crash/summary.json")
echo "# $row"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$dir/acks.log")" -eq 40 ] &&
	jq -e '.scenarios[0] | .acks == 40 and .images > 0 and .verdicts.intact == .images and
		(.protocol_error | test("^\"ack 39 159744 4096\": .*claimed once"))' \
		"$out/ack/crash/summary.json" >/dev/null &&
	grep -q 'PROTOCOL ERROR' "$out/ack.out" &&
	grep -q "crashtest: program/ext4: the guest broke the ack protocol, stopped at 40 acks" "$out/ack.err"
tap_ok $? "a repeated ack is refused: guest stopped, 40 acks kept, earlier images judged intact (rc $rc)"

PMEM_GUEST_LOG_MAX=$((4 << 20)) "$H" crashtest --program tests/fixtures/hostile-flood.c --fs ext4 --checkers 1 \
	--results "$out" --run-id flood >"$out/flood.out" 2>"$out/flood.err"
rc=$?
dir=$out/flood/crash/program__ext4
grep 'did not finish' "$out/flood.err" | sed 's/^/# /'
size=$(stat -c %s "$dir/guest.log")
echo "# guest.log: $size bytes"
[ "$rc" -eq 1 ] && [ "$size" -le $((4 << 20)) ] && [ "$size" -ge $((3 << 20)) ] &&
	jq -e '.complete and .scenarios[0].writer == "flooded" and .scenarios[0].acks == 40 and
		.scenarios[0].images > 0 and .scenarios[0].verdicts.intact == .scenarios[0].images and
		(.scenarios[0].writer_failure | test("flooded"))' \
		"$out/flood/crash/summary.json" >/dev/null &&
	grep -q 'guest flooded its output: more than 4 MiB, stopped' "$out/flood.err"
tap_ok $? "a guest flooding its output is stopped at 4 MiB; its images judged, the run completes, failed (rc $rc)"
tap_done
