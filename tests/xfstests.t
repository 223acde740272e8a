#!/usr/bin/env bash
# make xfstests, the short subset (issue 12): real xfstests from the upstream
# snapshot, in guests booted from the Debian root image, ext4 with -o dax,
# 6.12-stock beside 6.12-aware:
#  - generic/413 428 437 503 (mmap with direct I/O, stale PMD entries, PMD/PTE
#    collisions, hole punch and truncate under a pinned DAX mapping) pass on
#    both, and the run exits 0 with no regression;
#  - the planted twin: a copy of the tree, given as a user's checkout
#    (XFSTESTS=), whose generic/452 fails on a kernel that accepts
#    MAP_SHARED_VALIDATE | MAP_PMEM_AWARE: stock passes, aware fails, the run
#    exits 1, the cell says REGRESSION and the failure's out.bad and check
#    output are kept in the run directory;
#  - a test stuck past its timeout (the planted copy's generic/428 ignores
#    SIGTERM; the host's grace is cut to 5 s) makes the host kill the guest:
#    the test fails with that reason and the next passes in a new guest;
#  - a test that outlives its timeout (generic/413 given 10 s) is stopped in
#    the guest and fails with the reason, and the next test of the same guest
#    still runs and passes;
#  - our case, generic/788 (xfstests/patches, applied to the image's tree):
#    pass on 6.12-aware, notrun on 6.12-stock, fail on 6.12-aware-leakflag.
# The first run builds xfstests and the root image (about 2 minutes); both
# are cached, keyed by their inputs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/xfstests
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
kernels="6.12-stock 6.12-aware"
echo "TAP version 13"
rm -rf "$out"
mkdir -p "$out"

for k in $kernels; do
	tap_require "$B/kernels/$k/bzImage"
done
if ! vm-images/build-xfstests.sh >"$out/build.log" 2>&1; then
	# xfstests is no Debian package: a machine without a snapshot or a
	# checkout of it (and no network) truly cannot run it.
	if grep -q "no xfstests snapshot found" "$out/build.log"; then
		echo "1..0 # SKIP $(tail -n 1 "$out/build.log")"
		exit 0
	fi
	tap_ok 1 "the xfstests root image builds (log: $out/build.log)"
	tail -5 "$out/build.log" | sed 's/^/# /'
	tap_done
fi
tap_ok 0 "xfstests and its root image build (or come from the cache)"

# Cell status of RUN for KERNEL/FS/TEST in xfstests.json.
cell() { # run kernel fs test -> status
	jq -r --arg k "$2" --arg f "$3" --arg t "$4" \
		'.results[] | select(.kernel == $k and .fs == $f and .test == $t) | .status' \
		"$out/$1/xfstests.json" 2>/dev/null
}
field() { # run kernel fs test field
	jq -r --arg k "$2" --arg f "$3" --arg t "$4" --arg x "$5" \
		'.results[] | select(.kernel == $k and .fs == $f and .test == $t) | .[$x]' \
		"$out/$1/xfstests.json" 2>/dev/null
}

# --- the real tests, stock beside aware --------------------------------------
subset="generic/413 generic/428 generic/437 generic/503"
"$H" xfstests --kernels "$kernels" --fs ext4 --only "$subset" --timeout 600 --results "$out" \
	--run-id real --accel "${ACCEL:-auto}" >"$out/real.out" 2>"$out/real.err"
rc=$?
tap_ok $((rc != 0)) "the subset runs on both kernels with no regression (exit $rc)"
for k in $kernels; do
	for t in $subset; do
		s=$(cell real "$k" ext4 "$t")
		[ "$s" = pass ]
		tap_ok $? "$t passes on $k (got '${s:-none}': $(reason=$(field real "$k" ext4 "$t" reason); echo "${reason:0:200}"))"
	done
done
grep -q '^| generic/413 | pass | pass |' "$out/real/summary.md"
tap_ok $? "summary.md has the table, one column per kernel"

# --- the planted twin: a regression the suite must report ---------------------
tree=$(jq -r .tree "$B/images/xfstests-root.json")
fixtures=$(cat tests/fixtures/xfstests/planted-* | sha256sum | cut -c1-12)
planted=$cache/xfstests/planted-$(basename "$tree")-$fixtures
if [ ! -d "$planted" ]; then
	rm -rf "$planted.tmp"
	cp -a "$tree" "$planted.tmp"
	for t in 428 452; do
		cp "tests/fixtures/xfstests/planted-$t" "$planted.tmp/tests/generic/$t"
		printf 'QA output created by %s\nSilence is golden\n' $t >"$planted.tmp/tests/generic/$t.out"
		# Fixed times: the image is keyed by the tree's names, sizes and times.
		touch -d @0 "$planted.tmp/tests/generic/$t" "$planted.tmp/tests/generic/$t.out"
	done
	mv "$planted.tmp" "$planted"
fi
vm-images/build-xfstests.sh --out "$out/planted-root.img" "$planted" >>"$out/build.log" 2>&1
tap_ok $? "a user's checkout (the planted copy) gets its own root image"
printf 'generic/452  planted: fails where MAP_PMEM_AWARE is accepted\n' >"$out/planted.list"
"$H" xfstests --kernels "$kernels" --fs ext4 --tests "$out/planted.list" --root-image "$out/planted-root.img" \
	--timeout 300 --results "$out" --run-id planted --accel "${ACCEL:-auto}" >"$out/planted.out" 2>"$out/planted.err"
rc=$?
tap_ok $((rc != 1)) "the run exits 1 when aware fails a test stock passes (exit $rc)"
s1=$(cell planted 6.12-stock ext4 generic/452) s2=$(cell planted 6.12-aware ext4 generic/452)
[ "$s1" = pass ] && [ "$s2" = fail ]
tap_ok $? "planted generic/452: stock $s1, aware $s2"
[ "$(field planted 6.12-aware ext4 generic/452 regression)" = true ] &&
	grep -q '^| generic/452 | pass | fail \*\*REGRESSION\*\* |' "$out/planted/summary.md"
tap_ok $? "the aware cell is a regression in xfstests.json and the table"
d=$out/planted/xfstests/6.12-aware/ext4
grep -q "MAP_PMEM_AWARE accepted" "$d/generic-452.out.bad" 2>/dev/null && [ -s "$d/generic-452.check" ]
tap_ok $? "the failure's out.bad and check output are kept in the run directory"
[ ! -e "$out/planted/xfstests/6.12-stock/ext4/generic-452.out.bad" ]
tap_ok $? "a test that passed keeps no failure files"

# --- a test stuck past its timeout: the host kills the guest and goes on -----
printf 'generic/428  planted: ignores SIGTERM past its timeout\ngeneric/452  planted\n' >"$out/hang.list"
PMEM_XFSTESTS_GRACE=5 "$H" xfstests --kernels 6.12-stock --fs ext4 --tests "$out/hang.list" \
	--root-image "$out/planted-root.img" --timeout 10 --results "$out" --run-id hang --accel "${ACCEL:-auto}" \
	>"$out/hang.out" 2>"$out/hang.err"
r=$(field hang 6.12-stock ext4 generic/428 reason)
[ "$(cell hang 6.12-stock ext4 generic/428)" = fail ] && [[ $r == "no result 5 s past its timeout: the guest was killed"* ]]
tap_ok $? "planted generic/428, stuck past 10 s: the host kills the guest and fails it ($r)"
[ "$(cell hang 6.12-stock ext4 generic/452)" = pass ] && [ -e "$out/hang/xfstests/6.12-stock/ext4/guest-2/guest.log" ]
tap_ok $? "generic/452 then passes in a second guest"

# --- a test past its timeout fails, and the guest goes on ---------------------
"$H" xfstests --kernels 6.12-stock --fs ext4 --only "generic/413 generic/428" --timeout 10 --results "$out" \
	--run-id timeout --accel "${ACCEL:-auto}" >"$out/timeout.out" 2>"$out/timeout.err"
r=$(field timeout 6.12-stock ext4 generic/413 reason)
[ "$(cell timeout 6.12-stock ext4 generic/413)" = fail ] && [[ $r == "timed out after 10 s"* ]]
tap_ok $? "generic/413 given 10 s fails with the reason ($r)"
[ "$(cell timeout 6.12-stock ext4 generic/428)" = pass ] &&
	[ "$(find "$out/timeout/xfstests/6.12-stock/ext4" -maxdepth 1 -name 'guest-*' | wc -l)" = 1 ]
tap_ok $? "generic/428 then passes in the same guest"

# --- our case, generic/788 (xfstests/patches, for fstests) --------------------
# Applied to the image's tree: it passes where the flag is, is notrun where
# it is not, and fails on a kernel that keeps VM_PMEM_AWARE on plain
# MAP_SHARED (test-knobs: dax_aware_test=leakflag).
tap_require "$B/kernels/6.12-aware-leakflag/bzImage"
"$H" xfstests --kernels "6.12-stock 6.12-aware 6.12-aware-leakflag" --fs ext4 --only generic/788 --timeout 300 \
	--results "$out" --run-id ours --accel "${ACCEL:-auto}" >"$out/ours.out" 2>"$out/ours.err"
s=$(cell ours 6.12-aware ext4 generic/788)
[ "$s" = pass ]
tap_ok $? "generic/788 passes on 6.12-aware (got '${s:-none}': $(r=$(field ours 6.12-aware ext4 generic/788 reason); echo "${r:0:200}"))"
s=$(cell ours 6.12-stock ext4 generic/788) r=$(field ours 6.12-stock ext4 generic/788 reason)
[ "$s" = notrun ] && [[ $r == *"MAP_PMEM_AWARE not supported"* ]]
tap_ok $? "generic/788 is notrun on 6.12-stock, which lacks the flag (got '${s:-none}': ${r:0:200})"
d=$out/ours/xfstests/6.12-aware-leakflag/ext4
s=$(cell ours 6.12-aware-leakflag ext4 generic/788)
[ "$s" = fail ] && grep -q '^MAP_SHARED|MAP_PMEM_AWARE: mapped, pa' "$d/generic-788.out.bad" 2>/dev/null
tap_ok $? "generic/788 fails on 6.12-aware-leakflag, its out.bad showing the flag on MAP_SHARED (got '${s:-none}')"

tap_done
