#!/usr/bin/env bash
# The bystander that never used the flag (Chinner, 2016), under the ADR
# cache model on xfs with reflink=1 (6.12-aware): a second process shares
# an owner's blocks into its own file, fsyncs and acknowledges it, while
# the owner still holds stores it has not written back.
#  - owner MAP_PMEM_AWARE, bystander FICLONE: the bystander's records are
#    lost, every dropped line the owner's store, never written back
#    (planted); owner MAP_SHARED: intact, since the remap's prep wrote the
#    tagged lines back (its correct twin);
#  - the same with FIDEDUPERANGE, after the bystander wrote and fsynced
#    the same records itself: lost with an aware owner, intact with a
#    shared one.
# The sync+aware, copy_file_range, rewrite and 6.1 rows of the scenario
# table are run by make crashtest, and their results are in
# docs/findings.md (section 7).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/bystander
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/xfs-reflink.img" "$B/kernels/6.12-aware/bzImage"

# The owner's store of its records, where every lost line must come from.
store_line=$(grep -n -m1 -F 'memcpy(map + i * BS, buf, BS);' workloads/crash/reflink-bystander.c | cut -d: -f1)
rows=bystander-clone-aware-adr,bystander-clone-shared-adr,bystander-dedupe-aware-adr,bystander-dedupe-shared-adr
"$H" crashtest --fs xfs-reflink --scenarios "$rows" --subsets 8 --results "$out" --run-id rows \
	>"$out/rows.out" 2>"$out/rows.err"
rc=$?
sum=$out/rows/crash/summary.json
grep -E '^ *bystander-' "$out/rows.out" | sed 's/^/# /'
echo "# crashtest exit status $rc"

# Every lost image drops only lines the owner stored at reflink-bystander.c
# (or the variant that includes it) line $store_line, never written back.
owner_blamed() { # scenario
	local dir=$out/rows/crash/$1__xfs-reflink
	jq -s --arg re "^reflink-bystander(-[a-z]+)?\\.c:$store_line \\(main\\)$" '[.[] | select(.verdict == "lost") |
		select((.dropped_sites | length) > 0 and
			all(.dropped_sites[]; (.site | test($re)) and .why == "never written back"))] | length' \
		"$dir"/image-*.json
}
for remap in clone dedupe; do
	planted=bystander-$remap-aware-adr twin=bystander-$remap-shared-adr
	lost=$(jq --arg n "$planted" '.scenarios[] | select(.scenario == $n) | .verdicts.lost' "$sum")
	blamed=$(owner_blamed "$planted")
	echo "# $planted: $lost lost images, $blamed with only the owner's unflushed store dropped"
	[ "$rc" -eq 0 ] && [ "${lost:-0}" -gt 0 ] && [ "$blamed" = "$lost" ] &&
		jq -e --arg n "$planted" '.scenarios[] | select(.scenario == $n) | .model.unresolved_flushes == 0' \
			"$sum" >/dev/null
	tap_ok $? "$remap under an aware owner (planted): the bystander's fsynced records lost under ADR, each loss the owner's store, never written back"
	[ "$rc" -eq 0 ] && jq -e --arg n "$twin" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0)' "$sum" >/dev/null
	tap_ok $? "$remap under a shared owner (its correct twin): every ADR image intact, the remap's prep wrote the owner's lines back"
done
tap_done
