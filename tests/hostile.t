#!/usr/bin/env bash
# The guest is untrusted: make crashtest runs a user's program there, and
# the program may send the host anything. Each case is a program that
# misbehaves on purpose after 40 correct acks:
#  - it acknowledges its last record again: the host refuses the line as a
#    protocol error, stops the guest, keeps the 40 acks it logged and judges
#    the images taken before; the run fails with one line saying so;
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

tap_done
