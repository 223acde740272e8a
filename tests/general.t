#!/usr/bin/env bash
# The general-case fix asked for in 2016 instead of MAP_PMEM_AWARE
# (vm-images/patches/6.12/general: no DAX dirty tracking where the dax
# device's write cache is off), crash-tested on ext4 (6.12-general, booted
# with the write cache off):
#  - eADR, the platform that setting describes: msync'd records intact;
#  - ADR, where the setting is a lie (planted): msync writes nothing back,
#    and the records are lost, each traced to the writer's store, never
#    written back;
#  - its correct twin: stock 6.12 with the write cache on under ADR, intact.
# The guest says on its console that it set the write cache off.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/general
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.12-general/bzImage" \
	"$B/kernels/6.12-stock/bzImage"

rows=general-msync,general-msync-adr,general-msync-adr-stock
"$H" crashtest --fs ext4 --scenarios "$rows" --subsets 8 --results "$out" --run-id rows \
	>"$out/rows.out" 2>"$out/rows.err"
rc=$?
sum=$out/rows/crash/summary.json
grep -E '^ *general-' "$out/rows.out" | sed 's/^/# /'
echo "# crashtest exit status $rc"
row() { # scenario jq-filter on the row
	jq -e --arg n "$1" "[.scenarios[] | select(.scenario == \$n)] | length == 1 and all($2)" "$sum" >/dev/null
}

grep -q 'pmem-lib: /sys/block/pmem0/dax/write_cache is 0 (pmem_write_cache=0)' \
	"$out/rows/crash/general-msync__ext4/console.log"
tap_ok $? "the general-case guest booted with its write cache off, and said so"

[ "$rc" -eq 0 ] && row general-msync '.images > 0 and .verdicts.intact == .images'
tap_ok $? "eADR (what write_cache=0 claims): every msync'd record intact"

# Every lost image drops the writer's copy of a record, never written back.
copy_site="writer.c:$(grep -n -F 'memcpy(s->map + off, buf, j->bs);' workloads/writer.c | cut -d: -f1) (do_write) via a shared library"
dir=$out/rows/crash/general-msync-adr__ext4
counts=$(jq -s -c --arg site "$copy_site" '[.[] | select(.verdict == "lost" or .verdict == "torn") | .causes[]] |
	{all: length, blamed: map(select(.site == $site and .why == "never written back")) | length}' "$dir"/image-*.json)
echo "# general-msync-adr causes: $counts ($copy_site)"
[ "$rc" -eq 0 ] && row general-msync-adr '.verdicts.lost + .verdicts.torn > 0 and .model.unresolved_flushes == 0' &&
	[ "$(jq '.all > 0 and .all == .blamed' <<<"$counts")" = true ]
tap_ok $? "ADR with the write cache off (planted): msync'd records lost, each the writer's store, never written back"

[ "$rc" -eq 0 ] && row general-msync-adr-stock '.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0'
tap_ok $? "its correct twin, stock with the write cache on under ADR: every image intact"
tap_done
