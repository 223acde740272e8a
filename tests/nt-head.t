#!/usr/bin/env bash
# A non-temporal store carries only its own bytes to the fence (the ADR
# model, crash-inject/model/adr-cache.c). nt-head.c copies each record as
# the kernel's __memcpy_flushcache() does, cached stores up to the first
# 8-byte boundary and movnti after, then sfence and ack, but never writes
# the cached head back:
#  - planted (sync-nt-head-adr): every image taken at an ack (eADR aside)
#    loses records, and every line a lost image drops is the head's
#    store, left behind by the non-temporal stores beside it;
#  - its correct twin (sync-nt-head-flushed-adr), which writes the head
#    back with clwb first: every image intact.
# A model that let a non-temporal store carry the whole line passed both.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/nt-head
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.1-aware/bzImage"

planted=sync-nt-head-adr twin=sync-nt-head-flushed-adr
"$H" crashtest --fs ext4 --scenarios "$planted,$twin" --subsets 4 --results "$out" --run-id rows \
	>"$out/rows.out" 2>"$out/rows.err"
rc=$?
sum=$out/rows/crash/summary.json
grep -E '^ *sync-nt-head-' "$out/rows.out" | sed 's/^/# /'
echo "# crashtest exit status $rc"

# The head's store: the cached store of the copy, where every loss must be.
head_line=$(grep -n -F '/* the head: cached stores */' workloads/crash/nt-head.c | cut -d: -f1)
site="nt-head.c:$head_line (copy_nt)"
evicted="cached bytes beside a non-temporal store: durable only by eviction"
dir=$out/rows/crash/${planted}__ext4
# An image taken at an ack or at the end holds only acknowledged records,
# so it loses one whenever it drops a line: each such image but the eADR
# one must lose records (an image taken at a random time or a fence may
# keep every acknowledged head and drop only the one in flight). Every lost
# image drops the head of an acknowledged record, left behind by the
# non-temporal stores; one taken at an ack or at the end drops nothing but
# heads (a crash between a head's stores and the movnti beside it also drops
# that head, never written back). One taken at a random time may also drop
# the kernel's own non-temporal copy in flight: the program's pwrite()s that
# fill its file go through __memcpy_flushcache().
counts=$(jq -s -c --arg site "$site" --arg why "$evicted" '{
	images: length, lost: map(select(.verdict == "lost")) | length,
	at_acks: map(select((.taken == "ack" or .taken == "kill") and .variant != "eadr")) | length,
	at_acks_lost: map(select((.taken == "ack" or .taken == "kill") and .variant != "eadr" and .verdict == "lost")) | length,
	blamed: map(select(.verdict == "lost" and any(.dropped_sites[]; .site == $site and .why == $why) and
		(.taken == "time" or all(.dropped_sites[]; .site == $site)))) | length}' "$dir"/image-*.json)
echo "# $planted: $counts; every loss expected at $site, '$evicted'"
[ "$rc" -eq 0 ] && jq -e '.at_acks > 0 and .at_acks_lost == .at_acks and .blamed == .lost' <<<"$counts" >/dev/null &&
	jq -e --arg n "$planted" --arg site "$site" --arg why "$evicted" '.scenarios[] | select(.scenario == $n) |
		.model.unresolved_flushes == 0 and .model.acks_with_pending_lines == .acks and
		.model.first_pending_ack.site == $site and .model.first_pending_ack.why == $why' "$sum" >/dev/null
tap_ok $? "$planted (planted): every image at an ack but eADR loses records, each loss the head's cached store beside the non-temporal ones ($site)" \
	"$out/rows.err"

jq -c --arg n "$twin" '.scenarios[] | select(.scenario == $n) | {images, verdicts, flushes: .model.flushes}' "$sum" |
	sed 's/^/# /'
[ "$rc" -eq 0 ] && jq -e --arg n "$twin" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
	all(.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0 and
		.model.acks_with_pending_lines == 0 and .model.flushes >= 64)' "$sum" >/dev/null
tap_ok $? "$twin (its correct twin): the head written back with clwb, every ADR image intact, every ack durable"
tap_done
