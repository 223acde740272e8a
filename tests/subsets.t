#!/usr/bin/env bash
# Structured ADR subsets (crash-inject/model/adr.c, adr_subsets()): a bug
# that needs many particular lines in particular states. tagged-log.c
# (planted) writes each record's 15 payload lines and its header under one
# sfence, after persisting the log's tail, and trusts per-line tags to show
# a torn record; its recovery never checks payload line 0's tag. Only the
# image that drops line 0 and keeps the 15 others shows it:
#  - under the model with structured subsets, it is caught at each fence
#    point between the tail and the write-back, by drop-one of the line
#    stored first (drop00) and by no other image: the recovery takes a
#    torn slot (its checker's exit status 2);
#  - its correct twin (tagged-log-ordered.c), which fences the payload
#    before the header, is intact in every image, drop-one included;
#  - the model of before (--structured 0: 20 random subsets, each keeping
#    a line with probability 1/2) takes the same points and misses it.
# The ack check cannot see it: no acknowledged line is ever pending.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/subsets
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.1-aware/bzImage"

planted=sync-tagged-log-adr twin=sync-tagged-log-ordered-adr
"$H" crashtest --fs ext4 --scenarios "$planted,$twin" --results "$out" --run-id new \
	>"$out/new.out" 2>"$out/new.err"
rc=$?
grep -E '^ *sync-tagged-log' "$out/new.out" | sed 's/^/# /'
echo "# crashtest exit status $rc"

# Images of a row by family and verdict, and the fence points with the
# whole record pending (its 16 lines; the twin's 15 payload lines).
families() { # run scenario
	jq -s -c '{images: length,
		lost: [.[] | select(.verdict == "lost") | .variant] | unique,
		lost_images: map(select(.verdict == "lost")) | length,
		torn_slot: map(select(.verdict == "lost" and .user_check_status == 2)) | length,
		fence_points: map(select(.taken == "fence" and .pending_lines >= 15) | .point) | unique | length,
		drop_images: map(select(.variant | startswith("drop"))) | length}' \
		"$out/$1/crash/$2__ext4"/image-*.json
}
model_ok() { # run scenario
	jq -e --arg n "$2" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.model.unresolved_flushes == 0 and .model.acks_with_pending_lines == 0)' \
		"$out/$1/crash/summary.json" >/dev/null
}

# Every lost image drops one line: payload line 0, stored by the fill.
fill_line=$(grep -n -m1 -F 'log_line_fill(&s->payload[i], seq, i);' workloads/crash/tagged-log.c | cut -d: -f1)
site="tagged-log.c:$fill_line (main)"
blamed=$(jq -s --arg site "$site" '[.[] | select(.verdict == "lost" and .dropped_lines == 1 and
	all(.dropped_sites[]; .site == $site and .why == "never written back"))] | length' \
	"$out/new/crash/${planted}__ext4"/image-*.json)
p=$(families new "$planted")
echo "# $planted: $p; $blamed lost images drop only $site"
[ "$rc" -eq 0 ] && model_ok new "$planted" &&
	jq -e '.fence_points > 0 and .lost == ["drop00"] and .lost_images == .fence_points and
		.torn_slot == .lost_images and .lost_images == $blamed' --argjson blamed "${blamed:-0}" <<<"$p" >/dev/null
tap_ok $? "$planted (planted): caught at each fence point by drop-one of the line stored first (drop00) alone, recovery taking a torn slot; no acknowledged line pending" \
	"$out/new.err"

t=$(families new "$twin")
echo "# $twin: $t"
[ "$rc" -eq 0 ] && model_ok new "$twin" &&
	jq -e '.fence_points > 0 and .drop_images > 0 and .lost_images == 0' <<<"$t" >/dev/null
tap_ok $? "$twin (its correct twin): every image intact, the structured ones included"

"$H" crashtest --fs ext4 --scenarios "$planted" --structured 0 --results "$out" --run-id old \
	>"$out/old.out" 2>"$out/old.err"
orc=$?
grep -E '^ *sync-tagged-log' "$out/old.out" | sed 's/^/# /'
o=$(families old "$planted")
echo "# $planted, --structured 0: $o; crashtest exit status $orc"
[ "$orc" -eq 1 ] && model_ok old "$planted" &&
	jq -e --argjson new "$p" '.fence_points == $new.fence_points and .lost_images == 0' <<<"$o" >/dev/null &&
	grep -E "^ *$planted +ext4 .*MISSED" "$out/old.out" >/dev/null
tap_ok $? "$planted under the model of before (20 random subsets a point): the same fence points, MISSED" \
	"$out/old.err"
tap_done
