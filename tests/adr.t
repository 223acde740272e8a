#!/usr/bin/env bash
# The ADR cache model (crash-inject/model/adr-cache.c) on real guests:
#  - a probe whose stores, write-backs and fences have known durable outcomes
#    gives exactly the expected strict-ADR and eADR images, byte for byte,
#    and every subset image between them;
#  - identical images are checked once;
#  - a "forgot to flush" program is caught under ADR, each lost record traced
#    to the line of its store, while eADR forgives it; its correct twin gives
#    only intact images;
#  - the model resolves every flush (the kernel's msync through its linear
#    map among them) and loses no line.
#  - the kernel's copy-on-write of a reflinked xfs block is never written
#    back upstream: lost under ADR through MAP_SYNC, and MAP_SHARED when
#    another fsync commits the remap before ours; intact under eADR;
#    lost through write(2) and FALLOC_FL_UNSHARE_RANGE (6.12, and write(2)
#    on 6.1) in every image taken after fsync returned; every path intact on
#    the fixed kernels (cow-flush), which write back exactly the copied lines.
#  - series v3 (6.12-aware, on cow-flush) leaves aware CoW faults untracked
#    and loses nothing: aware + fsync, sync+aware, and the bystander window.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/adr
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/images/xfs-reflink.img" "$B/kernels/6.1-aware/bzImage" \
	"$B/kernels/6.12-stock/bzImage" "$B/kernels/6.12-aware/bzImage" \
	"$B/kernels/6.12-stock-cowflush/bzImage" \
	"$B/kernels/6.1-stock/bzImage" "$B/kernels/6.1-stock-cowflush/bzImage"

crash() { # run-id args...
	local id=$1
	shift
	"$H" crashtest --fs ext4 --results "$out" --run-id "$id" "$@" >"$out/$id.out" 2>"$out/$id.err"
}

# 64 bytes as hex: "ADRP-<letter>\0\0" then 56 bytes of the value.
line_hex() { # letter value
	printf 'ADRP-%s' "$1" | od -An -tx1 | tr -d ' \n'
	printf '0000'
	for _ in $(seq 56); do printf '%s' "$2"; done
}
zero_hex() { printf '0%.0s' $(seq 128); }
read_line() { # image offset
	od -An -tx1 -v -j "$2" -N 64 "$1" | tr -d ' \n'
}

crash probe --program tests/fixtures/adr-probe.c --check tests/fixtures/adr-probe-check.c \
	--platform adr --keep --fence-period 1
rc=$?
dir=$out/probe/crash/program__ext4
ack=$(jq -s '[.[] | select(.taken == "ack")] | .[0].point' "$dir"/image-*.json)
pending=$(jq -s --argjson p "${ack:-0}" '[.[] | select(.point == $p)][0].pending_lines' "$dir"/image-*.json)
subsets=$(jq -s --argjson p "${ack:-0}" '[.[] | select(.point == $p and (.variant | startswith("s")))] | length' \
	"$dir"/image-*.json)
echo "# ack point $ack: $pending pending lines, $subsets subset images, crashtest exit $rc"
# The probe acknowledges a page with lines of it still pending on purpose:
# the ack check must say so (exit 1), and the images show what they lose.
[ "$rc" -eq 1 ] && [ "$pending" = 4 ] && [ "$subsets" = 14 ]
tap_ok $? "probe: 4 lines pending at the ack (never written back, re-stored after clwb, NT unfenced, clwb unfenced), all 14 proper subsets imaged" \
	"$out/probe.err" "$out/probe.out"
jq -e '.scenarios[0].model | .unresolved_flushes == 0 and .overflow_lines == 0 and .flushes >= 6' \
	"$out/probe/crash/summary.json" >/dev/null
tap_ok $? "probe: every flush resolved (also through a second mapping, and a third never stored through), no line lost by the model"
fences=$(jq '.scenarios[0].model.points_by_kind.fence' "$out/probe/crash/summary.json")
fence_images=$(jq -s '[.[] | select(.taken == "fence")] | length' "$dir"/image-*.json)
[ "${fences:-0}" -ge 1 ] && [ "${fence_images:-0}" -ge 2 ]
tap_ok $? "probe: crash points at fences that wrote lines back and left others pending ($fences points, $fence_images images; --fence-period 1)"

img() { printf '%s/images/p%03d-%s.img' "$dir" "$ack" "$1"; }
eadr=$(img eadr)
adr=$(img adr)
base=$(LC_ALL=C grep -obUaP 'ADRP-A' "$eadr" | cut -d: -f1)
base=${base%%$'\n'*}
[ -n "$base" ]
tap_ok $? "probe page found in the eADR image at ${base:-?}"

letters=(A B C D E F G H I J)
new=(11 22 cc 44 ee 55 66 77 99 aa)
# Strict ADR: B, E and I are old (zero), C holds what clwb wrote back (33).
old=(11 - 33 44 - 55 66 77 - aa)
bad=
for i in "${!letters[@]}"; do
	want=$(line_hex "${letters[$i]}" "${new[$i]}")
	[ "$(read_line "$eadr" $((base + i * 64)))" = "$want" ] || bad+=" eadr:${letters[$i]}"
	if [ "${old[$i]}" = - ]; then want=$(zero_hex); else want=$(line_hex "${letters[$i]}" "${old[$i]}"); fi
	[ "$(read_line "$adr" $((base + i * 64)))" = "$want" ] || bad+=" adr:${letters[$i]}"
done
echo "# mismatched lines:${bad:- none}"
[ -z "$bad" ]
tap_ok $? "probe: eADR image holds every store, strict-ADR image exactly the durable lines (byte for byte)"

# Each subset keeps each of B, C, E, I either as in eADR or as in ADR, and
# the 14 subsets are 14 different choices.
patterns=
bad=
for s in $(seq 0 13); do
	p=
	for i in 1 2 4 8; do
		l=$(read_line "$(img "$(printf 's%02d' "$s")")" $((base + i * 64)))
		if [ "$l" = "$(read_line "$eadr" $((base + i * 64)))" ]; then p+=1
		elif [ "$l" = "$(read_line "$adr" $((base + i * 64)))" ]; then p+=0
		else bad+=" s$s:${letters[$i]}"; fi
	done
	patterns+="$p "
done
distinct=$(tr ' ' '\n' <<<"$patterns" | grep -v -e '^$' -e '^0000$' -e '^1111$' | sort -u | wc -l)
echo "# subset patterns (B C E I kept): $patterns"
[ -z "$bad" ] && [ "$distinct" -eq 14 ]
tap_ok $? "probe: the 14 subset images are the 14 proper subsets of the pending lines"
twins=$(jq '.scenarios[0].deduplicated' "$out/probe/crash/summary.json")
[ "${twins:-0}" -ge 1 ] && jq -s -e '[.[] | select(.same_as != null)] | all(.verdict == "intact")' "$dir"/image-*.json >/dev/null
tap_ok $? "identical images are checked once ($twins twins share a verdict)"
first=$(jq -c '.scenarios[0].model.first_pending_ack' "$out/probe/crash/summary.json")
echo "# probe's ack: first pending line of its record: $first"
jq -e '.scenarios[0] | .acked_not_durable == 1 and .model.acks_checked == 1 and
	.model.first_pending_ack.why == "never written back" and (.model.first_pending_ack.site | startswith("adr-probe.c:"))' \
	"$out/probe/crash/summary.json" >/dev/null
tap_ok $? "every ack is checked for lines of its record still pending: the probe's one ack is, and says which line and why"

crash noflush --program tests/fixtures/adr-noflush.c --platform adr
rc=$?
dir=$out/noflush/crash/program__ext4
store_line=$(grep -m1 -n 'volatile unsigned long long' tests/fixtures/adr-noflush.c | cut -d: -f1)
lost=$(jq -s '[.[] | select(.verdict == "lost" or .verdict == "torn")] | length' "$dir"/image-*.json)
blamed=$(jq -s --arg s "adr-noflush.c:$store_line (main)" \
	'[.[] | select(.verdict == "lost" or .verdict == "torn") | select(all(.causes[]; .site == $s and .why == "never written back"))] | length' \
	"$dir"/image-*.json)
example=$(jq -r -s 'map(select(.verdict == "lost")) | .[0] | "record \(.causes[0].seq) lost: stored at \(.causes[0].site), \(.causes[0].why)"' "$dir"/image-*.json)
echo "# $lost images lost or tore records; $blamed name adr-noflush.c:$store_line for every record; e.g. $example"
[ "$rc" -eq 1 ] && [ "${lost:-0}" -gt 0 ] && [ "$blamed" = "$lost" ] &&
	jq -e '.scenarios[0].model.unresolved_flushes == 0 and
	.scenarios[0].model.acks_with_pending_lines == .scenarios[0].acks and
	.scenarios[0].model.first_pending_ack.site == "adr-noflush.c:'"$store_line"' (main)"' "$out/noflush/crash/summary.json" >/dev/null
tap_ok $? "forgot to flush: caught under ADR, at every ack and in the images, every lost record traced to adr-noflush.c:$store_line"

# The same bug acknowledged by ack() alone, with no address: no ack can be
# checked, but each image places its records by the data file's extents
# (the checker's FIEMAP), and every lost record is still traced to the store.
crash noflush-noaddr --program tests/fixtures/adr-noflush.c --cflags -DACK_NO_ADDR --platform adr
rc=$?
dir=$out/noflush-noaddr/crash/program__ext4
lost=$(jq -s '[.[] | select(.verdict == "lost" or .verdict == "torn")] | length' "$dir"/image-*.json)
blamed=$(jq -s --arg s "adr-noflush.c:$store_line (main)" '[.[] | select(.verdict == "lost" or .verdict == "torn") |
	select(.records_placed_by_extents > 0 and all(.causes[]; .site == $s and .why == "never written back"))] | length' \
	"$dir"/image-*.json)
echo "# ack() alone: $lost images lost or tore records; $blamed trace every one to adr-noflush.c:$store_line by the file's extents"
[ "$rc" -eq 1 ] && [ "${lost:-0}" -gt 0 ] && [ "$blamed" = "$lost" ] &&
	jq -e '.scenarios[0].model.acks_unlocated == .scenarios[0].acks' "$out/noflush-noaddr/crash/summary.json" >/dev/null
tap_ok $? "forgot to flush, acknowledged without an address: every lost record traced to adr-noflush.c:$store_line by the file's extents"

crash noflush-eadr --program tests/fixtures/adr-noflush.c --platform eadr
rc=$?
n=$(jq '.scenarios[0].images' "$out/noflush-eadr/crash/summary.json")
jq -e '.scenarios[0].verdicts.intact == .scenarios[0].images' "$out/noflush-eadr/crash/summary.json" >/dev/null
ok=$?
[ "$ok" -eq 0 ] && [ "$rc" -eq 0 ] && [ "${n:-0}" -gt 0 ]
tap_ok $? "the same program under eADR: all $n images intact (eADR cannot see the bug)"

crash flush --program tests/fixtures/adr-flush.c --platform adr
rc=$?
sum=$out/flush/crash/summary.json
n=$(jq '.scenarios[0].images' "$sum")
fences=$(jq '.scenarios[0].model.points_by_kind.fence' "$sum")
[ "$rc" -eq 0 ] && jq -e '.scenarios[0] | .verdicts.intact == .images and .images > 0 and
	.model.unresolved_flushes == 0 and .model.flushes >= 4096 and .model.pending_at_last_point == 0 and
	.model.acks_checked == .acks and .model.acks_with_pending_lines == 0' "$sum" >/dev/null
tap_ok $? "its correct twin (clwb + sfence per record): every ack checked, none with a line pending; all $n ADR images intact (${fences:-0} taken at fences), 4096+ flushes, none unresolved"

# A fence forgotten before one ack of 64 (adr-rare.c): the next record's
# fence heals it, so an image shows it only if its crash point is that
# ack, which sampling takes by luck. The check of every ack names it.
crash rare --program tests/fixtures/adr-rare.c --platform adr
rc=$?
sum=$out/rare/crash/summary.json
img_lost=$(jq '.scenarios[0] | .verdicts.lost + .verdicts.torn' "$sum")
echo "# adr-rare: $(jq -c '.scenarios[0].model.first_pending_ack' "$sum"); images that lost it: ${img_lost:-?} of $(jq '.scenarios[0].images' "$sum")"
[ "$rc" -eq 1 ] && jq -e '.scenarios[0] | .acked_not_durable == 1 and .model.acks_checked == .acks and
	.model.first_pending_ack.seq == 37 and .model.first_pending_ack.why == "written back, never fenced"' "$sum" >/dev/null
tap_ok $? "a fence forgotten before one ack of 64: that ack, and only it, found by the check of every ack (rc $rc)" "$out/rare.err"

# The kernel's own write-back: msync flushes the user's lines through the
# linear map, which the model must resolve.
crash msync --scenarios shared-msync-adr
rc=$?
sum=$out/msync/crash/summary.json
grep -E '^ *shared-msync-adr ' "$out/msync.out" | sed 's/^/# /'
[ "$rc" -eq 0 ] && jq -e '.scenarios[0] | .verdicts.intact == .images and .model.unresolved_flushes == 0 and
	.model.flushes > 0' "$sum" >/dev/null
tap_ok $? "msync under ADR: every image intact, the kernel's flushes all resolved"

# The writer's three planted bugs (no write-back, no fence after clwb, no
# fence after NT stores): every lost or torn record is blamed on a source
# line of the writer, for the reason its bug gives, and the summary names
# that line too.
# Where each planted bug stores what it then fails to make durable, read
# from the sources: the writer's copy of a record into the mapping (libc's
# memcpy, named by its caller) and the non-temporal store of the unfenced
# copy. Every cause must name exactly that line.
copy_site="writer.c:$(grep -n -F 'memcpy(s->map + off, buf, j->bs);' workloads/writer.c | cut -d: -f1) (do_write) via a shared library"
nt_site="cpu_flush.c:$(grep -n -F 'asm volatile("movnti %1, %0"' workloads/cpu_flush.c | cut -d: -f1) (cpu_ntstore_copy_unfenced)"
crash planted --scenarios sync-none-adr,sync-clwb-nofence-adr,sync-ntstore-nofence-adr
rc=$?
sum=$out/planted/crash/summary.json
grep -E '^ *sync-(none|clwb-nofence|ntstore-nofence)-adr ' "$out/planted.out" | sed 's/^/# /'
for s in "sync-none-adr:never written back:$copy_site" "sync-clwb-nofence-adr:written back, never fenced:$copy_site" \
	"sync-ntstore-nofence-adr:non-temporal store, never fenced:$nt_site"; do
	name=${s%%:*} rest=${s#*:}
	why=${rest%%:*} site=${rest#*:}
	dir=$out/planted/crash/${name}__ext4
	counts=$(jq -s -c --arg why "$why" --arg site "$site" '[.[] | select(.verdict == "lost" or .verdict == "torn") | .causes[]] |
		{all: length, blamed: map(select(.why == $why and .site == $site)) | length}' \
		"$dir"/image-*.json)
	top=$(jq -r --arg n "$name" '.scenarios[] | select(.scenario == $n) | .causes[0] | "\(.site), \(.why) (\(.images) images, \(.records) records)"' "$sum")
	echo "# $name: causes $counts; summary: $top"
	[ "$rc" -eq 0 ] && [ "$(jq '.all > 0 and .all == .blamed' <<<"$counts")" = true ] &&
		jq -e --arg n "$name" --arg why "$why" --arg site "$site" '.scenarios[] | select(.scenario == $n) |
			.model.unresolved_flushes == 0 and .causes[0].site == $site and .causes[0].why == $why' \
			"$sum" >/dev/null
	tap_ok $? "$name (planted): caught, every record blamed on $site, '$why'; the summary names it"
done
grep -q '^Why ADR images lost records' "$out/planted.out"
tap_ok $? "crashtest's summary says why the ADR images lost records"

# The planted rows' correct twins, in the same model: clwb + sfence, libpmem
# and a preallocated aware file lose nothing, so the model does not blame
# what is flushed and fenced.
crash twins --scenarios sync-clwb-adr,sync-libpmem-adr,aware-clwb-prealloc-adr
rc=$?
sum=$out/twins/crash/summary.json
grep -E '^ *(sync-clwb|sync-libpmem|aware-clwb-prealloc)-adr ' "$out/twins.out" | sed 's/^/# /'
for name in sync-clwb-adr sync-libpmem-adr aware-clwb-prealloc-adr; do
	[ "$rc" -eq 0 ] && jq -e --arg n "$name" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0)' "$sum" >/dev/null
	tap_ok $? "$name (correct twin): every ADR image intact, every flush resolved"
done

# The kernel's own missing write-back: a write fault on a reflinked block
# copies the block with cached stores (dax_iomap_copy_around()). The
# program flushes only its own line.
reflink() { # id kernel mode [program [platform]]
	"$H" crashtest --fs xfs-reflink --kernel "$2" --results "$out" --run-id "$1" \
		--program "workloads/crash/${4:-cow-reflink}.c" --check workloads/crash/cow-reflink-check.c \
		--mode "$3" --platform "${5:-adr}" >"$out/$1.out" 2>"$out/$1.err"
}
# Lost images that drop a kernel store never written back and nothing else
# the checker reads: a crash between the program's memset and its clwb also
# drops the program's own first line, which cow-reflink-check.c does not check.
# A kernel store is named by its function and offset (the flavour's System.map).
# dax_iomap_copy_around() copies with copy_mc_to_kernel(), which on a CPU
# with ERMS (the writer guests' -cpu max) is copy_mc_enhanced_fast_string
# (arch/x86/lib/copy_mc_64.S): the store every loss must be blamed on.
cow_copy='copy_mc_enhanced_fast_string'
kernel_blamed() { # dir
	jq -s --arg fn "$cow_copy" '[.[] | select(.verdict == "lost") |
		select(any(.dropped_sites[]; (.pc | startswith("0xffff")) and .why == "never written back" and
			(.site | test("^" + $fn + "\\+0x[0-9a-f]+$")))) |
		select(all(.dropped_sites[]; ((.pc | startswith("0xffff")) and .why == "never written back") or
			(.site | startswith("cow-reflink.c:"))))] | length' "$1"/image-*.json
}
all_intact_adr() { # summary: the program finished, images were taken, every one intact, every flush resolved
	[ "$(jq '.scenarios[0] | .images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0 and
		.protocol_error == null and .writer_failure == null' "$1")" = true ]
}
unblamed() { # dir: on a mismatch, show one lost image the rule above does not explain
	jq -s -c 'map(select(.verdict == "lost") | select(all(.dropped_sites[]; ((.pc | startswith("0xffff")) and
		.why == "never written back") or (.site | startswith("cow-reflink.c:"))) | not)) | .[0] |
		select(. != null) | {point, acked, dropped_sites}' "$1"/image-*.json | sed 's/^/# not explained: /'
}
# The CoW rows of the scenario table (6.12: 6.1 gives a reflinked file no
# DAX): on 6.12-stock the MAP_SYNC program loses the kernel's copy under
# ADR, every loss blamed on a kernel function, and under eADR it keeps every
# record. On 6.12-aware (series v3, on top of cow-flush) the aware program
# with fsync, and the MAP_SHARED one whose remap another fsync commits
# early, keep every record under ADR.
crash cow --fs xfs-reflink --scenarios cow-sync,cow-sync-adr,cow-aware-fsync-adr,cow-shared-bystander-adr
rc=$?
sum=$out/cow/crash/summary.json
grep -E '^ *cow-sync(-adr)? ' "$out/cow.out" | sed 's/^/# /'
dir=$out/cow/crash/cow-sync-adr__xfs-reflink
lost=$(jq '.scenarios[] | select(.scenario == "cow-sync-adr") | .verdicts.lost' "$sum")
blamed=$(kernel_blamed "$dir")
echo "# scenario table, 6.12-stock: cow-sync-adr $lost lost images, $blamed explained by kernel stores never written back"
{ [ "$rc" -eq 0 ] && [ "${lost:-0}" -gt 0 ] && [ "$blamed" = "$lost" ] || { unblamed "$dir"; false; }; } &&
	jq -e --arg fn "$cow_copy" '[.scenarios[] | select(.scenario == "cow-sync-adr")][0] | .model.unresolved_flushes == 0 and
		(.causes[0].site | test("^" + $fn + "\\+0x[0-9a-f]+$"))' "$sum" >/dev/null &&
	jq -e '[.scenarios[] | select(.scenario == "cow-sync")][0] | .images > 0 and .verdicts.intact == .images' \
		"$sum" >/dev/null
tap_ok $? "scenario rows cow-sync-adr and cow-sync (6.12-stock): MAP_SYNC's CoW copy lost under ADR, blamed on the kernel; intact under eADR"
for name in cow-aware-fsync-adr cow-shared-bystander-adr; do
	jq -c --arg n "$name" '.scenarios[] | select(.scenario == $n) | {scenario, images, verdicts, flushes: .model.flushes}' \
		"$sum" | sed 's/^/# /'
	[ "$rc" -eq 0 ] && jq -e --arg n "$name" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0)' "$sum" >/dev/null
	tap_ok $? "scenario row $name (6.12-aware, series v3): every ADR image intact"
done
# Series v1 left an aware CoW fault untracked and lost the kernel's copy
# (42 of 68 images); v2 tracked it, and lost it only to a log force
# between the fault and the program's fsync. Series v3 leaves it untracked
# again, on top of the fix that writes the copy back when it is made
# (cow-flush): the aware program, flushing only its own line, keeps every
# record, with fsync and with MAP_SYNC (whose fault v2 tracked through
# PAGECACHE_TAG_TOWRITE in dax_insert_pfn_mkwrite(), now gone).
for row in rl-aware:aware rl-syncaware:sync+aware; do
	id=${row%%:*} mode=${row#*:}
	reflink "$id" 6.12-aware "$mode"
	sum=$out/$id/crash/summary.json
	jq -c '.scenarios[0] | {images, verdicts, flushes: .model.flushes, unresolved: .model.unresolved_flushes}' \
		"$sum" | sed 's/^/# /'
	all_intact_adr "$sum"
	tap_ok $? "series v3 (6.12-aware): $mode + clwb on a reflinked file, CoW fault untracked, every ADR image intact"
done
reflink rl-sync 6.12-stock sync
lost=$(jq '.scenarios[0].verdicts.lost' "$out/rl-sync/crash/summary.json")
dir=$out/rl-sync/crash/program__xfs-reflink
blamed=$(kernel_blamed "$dir")
echo "# MAP_SYNC + clwb, no fsync, on a reflinked file (6.12-stock): $lost lost images, $blamed explained by kernel stores never written back"
{ [ "${lost:-0}" -gt 0 ] && [ "$blamed" = "$lost" ] || { unblamed "$dir"; false; }; } &&
	jq -e '.scenarios[0].model.unresolved_flushes == 0' "$out/rl-sync/crash/summary.json" >/dev/null
tap_ok $? "finding: upstream MAP_SYNC CoW fault loses the kernel's copy of the block under ADR (no fsync after the fault)"
# A bystander's fsync forces the xfs log between our fault and our fsync:
# the fault's CoW remap becomes durable while the kernel's copy of the block
# is still in the CPU cache. MAP_SHARED's dirty tracking cannot help, since
# our fsync comes too late.
reflink rl-bystander 6.12-stock shared cow-reflink-bystander
sum=$out/rl-bystander/crash/summary.json
lost=$(jq '.scenarios[0].verdicts.lost' "$sum")
dir=$out/rl-bystander/crash/program__xfs-reflink
blamed=$(kernel_blamed "$dir")
echo "# MAP_SHARED + clwb + fsync, another file fsynced after each fault (6.12-stock): $lost lost images, $blamed explained by kernel stores never written back"
jq -c '.scenarios[0] | {images, verdicts, unresolved: .model.unresolved_flushes}' "$sum" | sed 's/^/# /'
{ [ "${lost:-0}" -gt 0 ] && [ "$blamed" = "$lost" ] || { unblamed "$dir"; false; }; } && jq -e '.scenarios[0].model.unresolved_flushes == 0' "$sum" >/dev/null
tap_ok $? "finding: upstream MAP_SHARED CoW fault loses the acknowledged block under ADR when another fsync commits the remap before ours"
reflink rl-bystander-eadr 6.12-stock shared cow-reflink-bystander eadr
sum=$out/rl-bystander-eadr/crash/summary.json
jq -c '.scenarios[0] | {images, verdicts}' "$sum" | sed 's/^/# /'
[ "$(jq '.scenarios[0].images > 0 and .scenarios[0].verdicts.intact == .scenarios[0].images' "$sum")" = true ]
tap_ok $? "the same program under eADR: every image intact (the loss is the unflushed copy, nothing else)"
# The correct twin: the kernel with the copy written back before the remap
# (vm-images/patches/6.12/cow-flush). Both programs that lost the copy on
# 6.12-stock keep it.
reflink rl-bystander-fix 6.12-stock-cowflush shared cow-reflink-bystander
sum=$out/rl-bystander-fix/crash/summary.json
jq -c '.scenarios[0] | {images, verdicts, flushes: .model.flushes, unresolved: .model.unresolved_flushes}' "$sum" | sed 's/^/# /'
all_intact_adr "$sum"
tap_ok $? "fixed kernel (cow-flush): MAP_SHARED with the bystander fsync, every ADR image intact"
# Every path that copies a shared block, as scenario rows: the write fault
# (MAP_SYNC), write(2) and FALLOC_FL_UNSHARE_RANGE, on the stock kernels
# (planted: upstream's bug) and with the fix (cow-flush: the correct twins),
# and write(2) on 6.1, which keeps DAX on an inode cloned while cached.
cow_rows=cow-sync-fixed-adr,cow-write-adr,cow-write-fixed-adr,cow-unshare-adr,cow-unshare-fixed-adr
cow_rows+=,cow-write-61-adr,cow-write-61-fixed-adr
crash cowpaths --fs xfs-reflink --scenarios "$cow_rows"
rc=$?
sum=$out/cowpaths/crash/summary.json
grep -E '^ *cow-(sync-fixed|write|unshare|write-61)(-fixed)?-adr ' "$out/cowpaths.out" | sed 's/^/# /'
# After the clone every page's copy is made, then fsync returns, then the
# ack: an image whose ack count passed the 16 records of before the clone
# was taken after an fsync that promised a copied page. Each of them loses
# it, but the eADR image, which keeps every store, and the structured ones
# (drop-one, prefixes, keep-one) of a time or fence point: there the line
# being copied at that moment may be the only one such an image drops, and
# the copies fsynced before are kept (drop63 at a time point, 64 lines
# pending). At an ack or the kill every image but eADR loses it.
after_fsync_lost() { # dir: "<images after the first fsync, as above> <of them lost>"
	jq -s -r '[.[] | select(.acked > 16 and .variant != "eadr" and
		(.taken == "ack" or .taken == "kill" or (.variant | test("^(adr|s[0-9]+)$"))))] |
		"\(length) \(map(select(.verdict == "lost")) | length)"' "$1"/image-*.json
}
for row in cow-write-adr:6.12-stock cow-unshare-adr:6.12-stock cow-write-61-adr:6.1-stock; do
	name=${row%%:*} kernel=${row#*:}
	dir=$out/cowpaths/crash/${name}__xfs-reflink
	read -r after lost_after <<<"$(after_fsync_lost "$dir")"
	lost=$(jq --arg n "$name" '.scenarios[] | select(.scenario == $n) | .verdicts.lost' "$sum")
	blamed=$(kernel_blamed "$dir")
	echo "# $name ($kernel): $lost_after of $after images taken after an fsync returned (eADR aside) lost the copy; $blamed of $lost losses explained by kernel stores never written back"
	{ [ "$rc" -eq 0 ] && [ "${after:-0}" -gt 0 ] && [ "$lost_after" = "$after" ] && [ "$blamed" = "$lost" ] ||
		{ unblamed "$dir"; false; }; } &&
		jq -e --arg n "$name" --arg fn "$cow_copy" '.scenarios[] | select(.scenario == $n) |
			.model.unresolved_flushes == 0 and (.causes[0].site | test("^" + $fn + "\\+0x[0-9a-f]+$"))' "$sum" >/dev/null
	tap_ok $? "finding: $name ($kernel), every image after the fsync returned loses the copied block, blamed on the kernel's copy"
done
# The twins: every image intact, and the model saw the fix write back the
# copied lines and no more: 16 pages of 63 lines around write(2)'s line
# (the line itself goes through non-temporal stores), 64 for unshare; the
# fault copies a whole page too, and the program writes back its own line:
# at least 1040 there, since MAP_SYNC tags each entry dirty after its
# fault, and a later write-back of the file (1488 in one run) may find it.
for row in cow-write-fixed-adr:1008 cow-unshare-fixed-adr:1024 cow-write-61-fixed-adr:1008 cow-sync-fixed-adr:1040; do
	name=${row%%:*} want=${row#*:}
	jq -c --arg n "$name" '.scenarios[] | select(.scenario == $n) | {scenario, images, verdicts, flushes: .model.flushes}' \
		"$sum" | sed 's/^/# /'
	[ "$rc" -eq 0 ] && jq -e --arg n "$name" --argjson w "$want" '[.scenarios[] | select(.scenario == $n)] | length == 1 and
		all(.images > 0 and .verdicts.intact == .images and .model.unresolved_flushes == 0 and
			(if $n == "cow-sync-fixed-adr" then .model.flushes >= $w else .model.flushes == $w end))' \
		"$sum" >/dev/null
	tap_ok $? "fixed kernel (cow-flush): $name, every ADR image intact, $want lines written back (the copy; MAP_SYNC: at least)"
done
tap_done
