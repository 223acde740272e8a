#!/usr/bin/env bash
# Earlier values of a line in the ADR images (--history, crash-inject/model/adr.c):
# a cache can write a line back between any two of its stores, not only
# as last made durable or as the CPU holds it now.
# header-reset.c (planted) rebuilds its log's header in place, clearing
# it and then storing the magic and the count, and trusts the header line
# to become durable old or new:
#  - with --history 8 (the default), at each fence point while the header
#    is pending, the images that take the header as it was between those
#    stores (drop00vV, keep00vV) lose every acknowledged record: recovery
#    finds no magic, or a count of 0 (exit 1), and the cause names the
#    store that wrote that value (header-reset.c:83 and :84);
#  - its correct twin (header-reset-fields.c), which stores the new count
#    over the old one, holds no earlier value and is intact;
#  - without earlier values (--history 0) the same points are intact, and
#    torn lines (--torn 8) do not find it either: each word of the header
#    is old or new, and the magic is the same in both.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/history
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.1-aware/bzImage"

crash() { # id program [options]
	local id=$1 prog=$2
	shift 2
	"$H" crashtest --fs ext4 --results "$out" --run-id "$id" --program "workloads/crash/$prog.c" \
		--check "workloads/crash/$prog-check.c" --mode sync --platform adr --subsets 4 \
		--fence-period 16 "$@" >"$out/$id.out" 2>"$out/$id.err"
	RC=$?
	grep -E '^ *program ' "$out/$id.out" | sed "s/^/# $id: /"
}
# The images of a run by verdict and family.
images() { # id
	jq -s -c '{images: length,
		lost: [.[] | select(.verdict == "lost") | .variant] | unique,
		lost_images: map(select(.verdict == "lost")) | length,
		acked_lost: map(select(.verdict == "lost" and .user_check_status == 1 and .taken == "fence")) | length,
		sites: [.[] | .dropped_sites[]? | .site + " " + .why] | unique,
		fence_points: map(select(.taken == "fence" and .pending_lines > 0) | .point) | unique | length,
		history_images: map(select(.variant | test("v[0-9]+$"))) | length}' \
		"$out/$1/crash/program__ext4"/image-*.json
}
why='an earlier value of the line, stored over before it was durable'

crash planted header-reset
p=$(images planted)
echo "# header-reset, --history 8: $p; crashtest exit status $RC"
[ "$RC" -eq 1 ] && jq -e --arg why "$why" '.fence_points > 0 and
	.lost == ["drop00v0","drop00v1","keep00v0","keep00v1"] and
	.lost_images == 4 * .fence_points and .acked_lost == .lost_images and
	.sites == ["header-reset.c:83 (main) " + $why, "header-reset.c:84 (main) " + $why]' <<<"$p" >/dev/null
tap_ok $? "header-reset (planted): at each fence point the header between its stores loses the acknowledged records, named by the stores of those values; nothing else does" \
	"$out/planted.err"

crash twin header-reset-fields
t=$(images twin)
echo "# header-reset-fields: $t; crashtest exit status $RC"
[ "$RC" -eq 0 ] && jq -e '.fence_points > 0 and .lost_images == 0' <<<"$t" >/dev/null
tap_ok $? "header-reset-fields (its correct twin): every image intact" "$out/twin.err"

crash whole header-reset --history 0
w=$(images whole)
echo "# header-reset, --history 0: $w; crashtest exit status $RC"
[ "$RC" -eq 0 ] && jq -e --argjson p "$p" '.fence_points == $p.fence_points and .lost_images == 0 and
	.history_images == 0' <<<"$w" >/dev/null
tap_ok $? "header-reset with lines old or new only (--history 0): the same fence points, nothing lost" \
	"$out/whole.err"

crash torn header-reset --history 0 --torn 8
w=$(images torn)
echo "# header-reset, --history 0 --torn 8: $w; crashtest exit status $RC"
[ "$RC" -eq 0 ] && jq -e --argjson p "$p" '.fence_points == $p.fence_points and .lost_images == 0' \
	<<<"$w" >/dev/null
tap_ok $? "header-reset with torn lines and no earlier values: nothing lost either" "$out/torn.err"
tap_done
