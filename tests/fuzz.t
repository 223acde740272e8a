#!/usr/bin/env bash
# The host's parsers of guest and user input under libFuzzer with ASan and
# UBSan (tests/fuzz/): each target replays its regression inputs (every
# target has some, so the replay itself is tested) and fuzzes for
# FUZZ_SECONDS (30 here; `make fuzz FUZZ_SECONDS=N` runs longer) with no
# crash, leak or hang. The harness is proved to catch a bug: the ack target
# built on a copy of ack_stream.c without its alignment check finds the ack
# its invariant forbids.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

seconds=${FUZZ_SECONDS:-30}
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

# The planted twin: the same target on an ack parser that lost a check.
planted=$B/fuzz/planted
mkdir -p "$planted"
sed 's/if (off % len)/if (0)/' crash-inject/ack_stream.c >"$planted/ack_stream.c"
cp crash-inject/ack_stream.h crash-inject/judge.h "$planted/"
if ! grep -q 'if (0)' "$planted/ack_stream.c"; then
	tap_ok 1 "the planted bug could not be made (ack_stream.c changed?)"
else
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -I"$planted" -o "$planted/fuzz-ack-line" \
		tests/fuzz/ack-line.c "$planted/ack_stream.c" &&
		mkdir -p "$planted/corpus" && rm -f "$planted"/crash-* &&
		! "$planted/fuzz-ack-line" -max_total_time=30 -close_fd_mask=3 -artifact_prefix="$planted/" \
			"$planted/corpus" tests/fuzz/seeds/ack-line >"$planted/log" 2>&1 &&
		ls "$planted"/crash-* >/dev/null 2>&1
	tap_ok $? "an ack parser without its alignment check is caught by the fuzz target"
fi
tap_done
