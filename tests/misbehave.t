#!/usr/bin/env bash
# A user's program that exits non-zero, dies of a signal, or acknowledges
# nothing: each gets one line saying which, with the acks it made, and its
# row reads WRITER FAILED (exit 1), never a clean pass.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/misbehave
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/kernels/6.1-aware/bzImage" "$B/images/ext4.img"

run() { # id how
	"$H" crashtest --program tests/fixtures/misbehave.c --cflags "-O2 -DHOW=$2" --fs ext4 --checkers 1 \
		--results "$out" --run-id "$1" >"$out/$1.out" 2>"$out/$1.err"
}
check() { # id rc pattern failure-pattern description
	local id=$1 rc=$2 line
	line=$(grep -c "^crashtest: program/ext4: " "$out/$id.err")
	sed -n "s/^\(crashtest: program\/ext4: .*\)/# \1/p" "$out/$id.err"
	[ "$rc" -eq 1 ] && [ "$line" -eq 1 ] && grep -q "^crashtest: program/ext4: $3" "$out/$id.err" &&
		grep -q 'WRITER FAILED' "$out/$id.out" &&
		jq -e --arg f "$4" '.scenarios[0].writer_failure | test($f)' "$out/$id/crash/summary.json" >/dev/null
	tap_ok $? "$5 (rc $rc)"
}

run exit 1
check exit $? "your program exited with status 3 after 8 acks; its output is in guest.log; judging the [0-9]* images" \
	"exited with status 3" "a program that exits with status 3 is said to, with its 8 acks"
run segv 2
check segv $? "your program was killed by signal 11 (Segmentation fault) after 8 acks" "signal 11" \
	"a program killed by SIGSEGV is said to be, by signal number and name"
run noack 3
check noack $? "your program finished without acknowledging a record, so nothing it wrote can be checked" \
	"without acknowledging" "a program that acknowledges nothing is told to call ack()"
tap_done
