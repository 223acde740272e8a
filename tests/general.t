#!/usr/bin/env bash
# The general-case fix asked for in 2016 instead of MAP_PMEM_AWARE
# (vm-images/patches/6.12/general: no DAX dirty tracking where the dax
# device's write cache is off), crash-tested on ext4 (6.12-general, on a
# machine that says it is eADR, so the pmem driver turns the write cache
# off):
#  - eADR, the platform the machine claims: msync'd records intact;
#  - ADR, where the claim is a lie (planted): msync writes nothing back,
#    and the records are lost, each traced to the writer's store, never
#    written back;
#  - its correct twin: stock 6.12 with the write cache on under ADR, intact.
# Each guest says on its console what the platform told its pmem driver:
# the general flavour persistence_domain cpu_cache and the write cache off,
# stock (no claim) the write cache on.
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

said() { # scenario: its guest's console line about the platform (less the
	# serial console's CR), also on a # line
	local line
	line=$(grep -F 'pmem-lib: /sys/block/pmem0/dax/write_cache is' "$out/rows/crash/$1__ext4/console.log" |
		tr -d '\r')
	echo "# $1: ${line:-no line}" >&2
	printf '%s\n' "$line"
}
[ "$(said general-msync)" = "pmem-lib: /sys/block/pmem0/dax/write_cache is 0; persistence_domain 'cpu_cache'" ]
tap_ok $? "the general-case guest ran on an eADR machine (persistence_domain cpu_cache, write cache off)"
[ "$(said general-msync-adr-stock)" = "pmem-lib: /sys/block/pmem0/dax/write_cache is 1; persistence_domain ''" ]
tap_ok $? "the stock guest ran with its write cache on"

[ "$rc" -eq 0 ] && row general-msync '.images > 0 and .verdicts.intact == .images'
tap_ok $? "eADR (what the machine claims): every msync'd record intact"

# Every lost image drops the writer's copy of a record, never written back.
copy_site="writer.c:$(grep -n -F 'memcpy(s->map + off, buf, j->bs);' workloads/writer.c | cut -d: -f1) (do_write) via a shared library"
dir=$out/rows/crash/general-msync-adr__ext4
counts=$(jq -s -c --arg site "$copy_site" '[.[] | select(.verdict == "lost" or .verdict == "torn") | .causes[]] |
	{all: length, blamed: map(select(.site == $site and .why == "never written back")) | length}' "$dir"/image-*.json)
echo "# general-msync-adr causes: $counts ($copy_site)"
[ "$rc" -eq 0 ] && row general-msync-adr '.verdicts.lost + .verdicts.torn > 0 and .model.unresolved_flushes == 0' &&
	[ "$(jq '.all > 0 and .all == .blamed' <<<"$counts")" = true ]
tap_ok $? "ADR on a machine that claims eADR (planted): msync'd records lost, each the writer's store, never written back"

[ "$rc" -eq 0 ] && row general-msync-adr-stock '.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0'
tap_ok $? "its correct twin, stock with the write cache on under ADR: every image intact"
tap_done
