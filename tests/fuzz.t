#!/usr/bin/env bash
# The host's parsers of guest and user input under libFuzzer with ASan and
# UBSan (tests/fuzz/): each target replays its regression inputs (every
# target has some, so the replay itself is tested) and fuzzes for
# FUZZ_SECONDS (5 here: a smoke run; `make fuzz FUZZ_SECONDS=N`, 60 by
# default, is the fuzzing) with no crash, leak or hang. Each target is proved able to see a bug: its planted
# twin, built on a copy of its parser that lost a check a regression could
# lose, crashes on a stored input that the real build takes (a replay, not
# a fuzzing run: the same answer every time, in a second).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

seconds=${FUZZ_SECONDS:-5}
echo "TAP version 13"
mapfile -t targets < <(tests/fuzz/run.sh --list)
for t in "${targets[@]}"; do
	line=$(tests/fuzz/run.sh "$B" "$seconds" "$t" 2>&1)
	rc=$?
	echo "# $line"
	[ "$rc" -eq 0 ] && [[ $line == *" 0 crashes, 0 leaks, 0 hangs"* ]] &&
		[[ $line =~ \ [1-9][0-9]*\ regression\ inputs\ replayed ]]
	tap_ok $? "fuzz $t: its regression inputs, then $seconds s: no crash, leak or hang"
done

# The planted twins (tests/fuzz/planted/): each target built on a copy of its
# parser that lost a check (TARGET.patch, its first line says which), then
# one stored input (TARGET.input) replayed on the twin, which must crash with
# a sanitizer's or libFuzzer's report, and on the real build, which must take
# it. A target where no such bug can be planted says why in TARGET.none.
crash_line() { # log: the first line saying the target crashed, or nothing
	grep -m1 -o -E 'ERROR: (AddressSanitizer|LeakSanitizer): [a-z-]+|ERROR: libFuzzer: [a-z -]*[a-z]|runtime error: .*' "$1"
}
for t in "${targets[@]}"; do
	p=tests/fuzz/planted/$t
	if [ -f "$p.none" ]; then
		echo "# fuzz $t: no planted bug: $(head -n 1 "$p.none")"
		continue
	fi
	if [ ! -f "$p.patch" ] || [ ! -f "$p.input" ]; then
		tap_ok 1 "fuzz $t: a planted bug ($p.patch) with an input that crashes it ($p.input), or why none can be ($p.none)"
		continue
	fi
	what=$(head -n 1 "$p.patch")
	what=${what%.}
	what=${what,}
	twin=$B/fuzz/planted/$t/fuzz-$t
	if err=$(tests/fuzz/planted.sh "$B" "$t" 2>&1); then
		"$twin" -close_fd_mask=3 -timeout=10 "$p.input" >"$twin.log" 2>&1
		rc=$?
		line=$(crash_line "$twin.log")
		echo "# fuzz $t, planted: rc $rc, ${line:-no crash report} (log $twin.log)"
		[ "$rc" -ne 0 ] && [ -n "$line" ]
		tap_ok $? "fuzz $t, planted: $what: $p.input crashes it"
	else
		tap_ok 1 "fuzz $t, planted: $what: ${err#"planted: $t: "}"
	fi
	mkdir -p "$(dirname "$twin")"
	"$B/fuzz/fuzz-$t" -close_fd_mask=3 -timeout=10 "$p.input" >"$twin.real.log" 2>&1
	rc=$?
	line=$(crash_line "$twin.real.log")
	[ "$rc" -ne 0 ] && echo "# fuzz $t: the real build: rc $rc, ${line:-no crash report} (log $twin.real.log)"
	[ "$rc" -eq 0 ] && [ -z "$line" ]
	tap_ok $? "fuzz $t: the real build takes $p.input"
done
tap_done
