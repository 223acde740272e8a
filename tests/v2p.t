#!/usr/bin/env bash
# The ADR model's translation of virtual addresses (crash-inject/model/
# adr-cache.c), under the model on ext4 (6.1-aware):
#  - remap-stale.c (planted) stores records through V, unmaps V without
#    writing them back, maps another file at V and writes that mapping
#    back before touching it: its records are lost under ADR, every loss
#    the record's store, never written back. A model that resolved V through
#    what it remembered of the old mapping found them intact. Its correct
#    twin, which writes the records back before the unmap, stays intact;
#  - crosspage.c's one store across two pages that are not adjacent on the
#    NVDIMM, both lines written back: intact (a model that took both lines
#    from the first page lost the second in every image); crosspage-half.c
#    (planted) writes back only the first line: lost, the crossing store's
#    line, never written back.
# No flush is left unresolved in any of them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/v2p
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.1-aware/bzImage"

# The stores whose lines every loss must come from.
remap_line=$(grep -n -m1 -F 'memcpy(map + i * BS, buf, BS);' workloads/crash/remap-stale.c | cut -d: -f1)
cross_line=$(grep -n -m1 -F '*(volatile uint64_t *)(v + BS - 4) = VALUE;' workloads/crash/crosspage.c | cut -d: -f1)
rows=remap-stale-adr,remap-stale-flushed-adr,crosspage-adr,crosspage-half-adr
"$H" crashtest --fs ext4 --scenarios "$rows" --subsets 4 --results "$out" --run-id rows \
	>"$out/rows.out" 2>"$out/rows.err"
rc=$?
sum=$out/rows/crash/summary.json
grep -E '^ *(remap-stale|crosspage)' "$out/rows.out" | sed 's/^/# /'
echo "# crashtest exit status $rc"

# Lost images of a scenario, and those whose every dropped line is the
# store at the program's line $2 (or its variant's, which includes it),
# never written back.
lost() { # scenario
	jq --arg n "$1" '.scenarios[] | select(.scenario == $n) | .verdicts.lost' "$sum"
}
blamed() { # scenario program line
	jq -s --arg re "^$2(-[a-z]+)?\\.c:$3 \\(main\\)$" '[.[] | select(.verdict == "lost") |
		select((.dropped_sites | length) > 0 and
			all(.dropped_sites[]; (.site | test($re)) and .why == "never written back"))] | length' \
		"$out/rows/crash/$1__ext4"/image-*.json
}
resolved() { # scenario
	jq -e --arg n "$1" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.model.unresolved_flushes == 0)' "$sum" >/dev/null
}
intact() { # scenario
	jq -e --arg n "$1" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.images > 0 and .verdicts.intact == .images)' "$sum" >/dev/null
}

n=$(lost remap-stale-adr)
b=$(blamed remap-stale-adr remap-stale "$remap_line")
echo "# remap-stale-adr: $n lost images, $b with only remap-stale.c:$remap_line dropped, never written back"
[ "$rc" -eq 0 ] && [ "${n:-0}" -gt 0 ] && [ "$b" = "$n" ] && resolved remap-stale-adr
tap_ok $? "a virtual page remapped to another file (planted): records lost under ADR, each loss their store, never written back" \
	"$out/rows.err"
[ "$rc" -eq 0 ] && intact remap-stale-flushed-adr && resolved remap-stale-flushed-adr
tap_ok $? "the same, written back before the unmap (its correct twin): every ADR image intact"

[ "$rc" -eq 0 ] && intact crosspage-adr && resolved crosspage-adr
tap_ok $? "a store across two pages apart on the NVDIMM, both lines written back: every ADR image intact"
n=$(lost crosspage-half-adr)
b=$(blamed crosspage-half-adr crosspage "$cross_line")
echo "# crosspage-half-adr: $n lost images, $b with only crosspage.c:$cross_line dropped, never written back"
[ "$rc" -eq 0 ] && [ "${n:-0}" -gt 0 ] && [ "$b" = "$n" ] && resolved crosspage-half-adr
tap_ok $? "the same store with its second page's line not written back (planted): lost, the crossing store's line"
tap_done
