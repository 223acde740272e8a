#!/usr/bin/env bash
# make crashtest PROGRAM='prog args' RECOVER='prog args': unmodified
# programs judged by their own recovery, with no ack protocol.
#  - tests/fixtures/bb-log.c, a log with a committed count under the ADR
#    model: the correct build recovers in every image; its PLANT_LATE_FLUSH
#    twin (the count committed before its entry is written back) is caught
#    as a crash bug, with its eADR twins recovering, and the store that
#    lost it named by file:line;
#  - what the program printed before each crash point reaches RECOVER
#    (PMEM_PRINTED), arguments with spaces and quotes arrive whole;
#  - bad input, one line each and the images kept: a RECOVER that hangs
#    (timed out; it fails on the clean exit too, so a target problem, no
#    crash bug), a program that never fences under ADR, a program that
#    exits non-zero before its first fence.
#  - PMDK built from source (skipped, class pmdk-source, where the mirror
#    serves none and no PMDK= is given): data_store finds no crash bug by
#    lost lines, and its crashes inside pmemobj_create() are the only ones
#    it cannot restart from; map-driver and map-check recover every image;
#    the mutant tx-flush-range is caught, its suspects in btree_map.c.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/blackbox
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/kernels/6.1-aware/bzImage" "$B/initramfs-crash.cpio" "$B/images/ext4.img" \
	"$B/plugins/adr-cache.so"

# crash ID ARGS...: one crashtest on ext4; RC, N (images), OK (recovered),
# FAILED (recovery-failed), BUGS (crash bugs), DIR, S (the summary's row).
crash() {
	local id=$1 s
	shift
	"$H" crashtest --fs ext4 --results "$out" --run-id "$id" "$@" >"$out/$id.out" 2>"$out/$id.err"
	RC=$?
	s=$out/$id/crash/summary.json
	DIR=$out/$id/crash/program__ext4
	S=$(jq -c '.scenarios[0] // {}' "$s" 2>/dev/null || echo '{}')
	N=$(jq '.images // 0' <<<"$S")
	OK=$(jq '.verdicts.recovered // 0' <<<"$S")
	FAILED=$(jq '.verdicts["recovery-failed"] // 0' <<<"$S")
	BUGS=$(jq '.blackbox.crash_bugs // 0' <<<"$S")
	echo "# $id: rc $RC, $N images, $OK recovered, $FAILED failed, $BUGS crash bugs; $(jq -c '.blackbox.fence_points // {}' <<<"$S")"
	[ "$RC" -le 1 ] || sed 's/^/# /' "$out/$id.err" | tail -n 5
}

log=(--program "tests/fixtures/bb-log.c append 48" --recover "tests/fixtures/bb-log.c check" --platform adr
	--subsets 4 --fence-points 12)

crash log "${log[@]}"
printed=$(jq '.blackbox.printed_lines // 0' <<<"$S")
offered=$(jq '.blackbox.fence_points.offered // 0' <<<"$S")
[ "$RC" -eq 0 ] && [ "$N" -gt 4 ] && [ "$OK" = "$N" ] && [ "$printed" -eq 48 ] && [ "$offered" -gt 48 ] &&
	[ "$(jq '.model.points_by_kind.fence' <<<"$S")" -gt 0 ]
tap_ok $? "bb-log under ADR: every image recovered ($OK of $N), its 48 lines kept, fence points from $offered fences" \
	"$out/log.err"

crash log-late "${log[@]}" --cflags -DPLANT_LATE_FLUSH
want=$(grep -n 'e->sum = entry_sum(e);' tests/fixtures/bb-log.c | cut -d: -f1)
sites=$(jq -r 'select(.crash_bug == true) | .dropped_sites[]? | .site' "$DIR"/image-*.json 2>/dev/null | sort -u |
	tr '\n' ';')
refs=$(jq -s -c '[.[] | select(.crash_bug == true) | .reference.verdict] | unique' "$DIR"/image-*.json 2>/dev/null)
echo "# crash bugs' references: $refs; stores that lost them: $sites"
[ "$RC" -eq 1 ] && [ "$BUGS" -gt 0 ] && [ "$refs" = '["recovered"]' ] && [[ $want =~ ^[0-9]+$ ]] &&
	[[ ";$sites" == *";bb-log.c:$want (append)"* ]] && grep -q 'is counted but not whole' "$DIR"/image-*.json
tap_ok $? "bb-log's twin with the late flush: caught ($BUGS crash bugs of $N), each where its eADR twin recovers, traced to bb-log.c:$want" \
	"$out/log-late.err"

# Arguments as sh would split PROGRAM='...'; RECOVER reads what was printed.
cat >"$out/args.sh" <<'SH'
#!/bin/sh
for a in "$@"; do echo "arg [$a]"; done
printf 'x\n' | dd of=log bs=64 conv=sync,notrunc,fsync 2>/dev/null
SH
cat >"$out/printed.sh" <<'SH'
#!/bin/sh
[ -f "$PMEM_PRINTED" ] || exit 3
while read -r line; do
	case $line in "arg ["*"]") ;; *) echo "not printed by args.sh: $line"; exit 1 ;; esac
done <"$PMEM_PRINTED"
SH
chmod +x "$out/args.sh" "$out/printed.sh"
crash args --program "$out/args.sh 'a b' \"c'd\" e\\ f" --recover "$out/printed.sh"
got=$(tr '\n' '|' <"$DIR/printed.log" 2>/dev/null)
echo "# printed: $got"
[ "$RC" -eq 0 ] && [ "$got" = "arg [a b]|arg [c'd]|arg [e f]|" ] && [ "$OK" = "$N" ] && [ "$N" -gt 0 ]
tap_ok $? "arguments with spaces and quotes arrive whole; RECOVER reads the printed lines ($OK of $N recovered)" \
	"$out/args.err"

cat >"$out/hang.sh" <<'SH'
#!/bin/sh
while :; do sleep 1; done
SH
chmod +x "$out/hang.sh"
PMEM_RECOVER_TIMEOUT=3 crash hang --program "$out/args.sh x" --recover "$out/hang.sh"
timed=$(jq -s '[.[] | select(.recover_timed_out == true)] | length' "$DIR"/image-*.json 2>/dev/null || echo 0)
kept=$(jq -s '[.[] | select(.kept == true)] | length' "$DIR"/image-*.json 2>/dev/null || echo 0)
[ "$RC" -eq 1 ] && [ "$BUGS" -eq 0 ] && [ "$timed" = "$N" ] && [ "$kept" -gt 0 ] &&
	[ "$(grep -c 'RECOVER fails on the state after a clean exit' "$out/hang.err")" -eq 1 ] &&
	jq -e '.blackbox.target_problem' <<<"$S" >/dev/null
tap_ok $? "a RECOVER that hangs: timed out in each of $N images, kept ($kept), one line: a target problem, no crash bug" \
	"$out/hang.err"

printf '#!/bin/sh\nexit 0\n' >"$out/nothing.sh"
chmod +x "$out/nothing.sh"
crash nofence --program "$out/nothing.sh" --recover "$out/nothing.sh" --platform adr --subsets 2
[ "$RC" -eq 0 ] && [ "$(grep -c 'never fenced a line it wrote back' "$out/nofence.err")" -eq 1 ]
tap_ok $? "a program that never fences under ADR: said in one line" "$out/nofence.err"

printf '#!/bin/sh\nexit 3\n' >"$out/fails.sh"
chmod +x "$out/fails.sh"
crash early-exit --program "$out/fails.sh" --recover "$out/nothing.sh" --platform adr --subsets 2
[ "$RC" -eq 1 ] && grep -q 'exited with status 3 before its first fence' "$out/early-exit.err"
tap_ok $? "a program that fails before its first fence: said in one line, its images still judged" \
	"$out/early-exit.err"

# --- PMDK's own example maps, built from source (targets/pmdk, docs/pmdk.md). ---
pmdk_tests=("data_store btree under ADR: no ADR crash bug; its eADR ones are crashes inside pmemobj_create, which data_store cannot restart from"
	"map-driver and map-check, hashmap_atomic under ADR: every image recovers, every printed key found"
	"PMDK mutant tx-flush-range (commit writes no range back): caught by lost lines, named in btree_map.c")
pmdk=$(targets/pmdk/build.sh 2>"$out/pmdk.err")
prc=$?
if [ "$prc" -eq 3 ]; then
	# This machine's mirror serves no PMDK source (class pmdk-source).
	for t in "${pmdk_tests[@]}"; do
		tap_skip "$t" "$(grep -m1 'no PMDK source' "$out/pmdk.err")"
	done
elif [ "$prc" -ne 0 ]; then
	for t in "${pmdk_tests[@]}"; do
		tap_ok 1 "$t: targets/pmdk/build.sh failed" "$out/pmdk.err"
	done
else
	ds=$pmdk/bin/data_store
	crash ds --program "$ds btree pool.obj 100" --recover "$ds btree pool.obj 1" --platform adr --subsets 2 \
		--fence-points 12
	# The eADR crash bugs all say data_store's "failed to open pool": the pool
	# is there (its header written) but pmemobj_create() was cut short.
	adr=$(jq '.blackbox.crash_bugs_by.adr // -1' <<<"$S")
	opens=$(jq -s '[.[] | select(.crash_bug == true) | .recover_output | startswith("failed to open pool")] | all' \
		"$DIR"/image-*.json 2>/dev/null)
	echo "# data_store: $(jq -c '.blackbox.crash_bugs_by' <<<"$S"), all 'failed to open pool': $opens"
	[ "$N" -gt 12 ] && [ "$adr" -eq 0 ] && [ "$opens" = true ] &&
		[ "$(jq -s '[.[] | select(.pools_checked == 1)] | length' "$DIR"/image-*.json)" -gt 0 ]
	tap_ok $? "${pmdk_tests[0]} ($OK of $N recovered)" "$out/ds.err"

	crash map --program "$pmdk/bin/map-driver hashmap_atomic pool.obj 60" \
		--recover "$pmdk/bin/map-check hashmap_atomic pool.obj" --platform adr --subsets 2 --fence-points 12
	seen=$(jq -s '[.[] | .printed // 0] | max' "$DIR"/image-*.json 2>/dev/null || echo 0)
	[ "$RC" -eq 0 ] && [ "$N" -gt 12 ] && [ "$OK" = "$N" ] && [ "$seen" -gt 0 ] &&
		[ "$(jq '.blackbox.printed_lines' <<<"$S")" -eq 60 ]
	tap_ok $? "${pmdk_tests[1]} ($OK of $N; up to $seen printed keys checked in one image)" "$out/map.err"

	mut=$(targets/pmdk/build.sh --mutant tx-flush-range 2>"$out/mutant.err")
	crash mutant --program "$mut/bin/map-driver btree pool.obj 100" --recover "$mut/bin/map-check btree pool.obj" \
		--platform adr --subsets 4 --fence-points 24
	adr=$(jq '.blackbox.crash_bugs_by.adr // 0' <<<"$S")
	sites=$(jq -r 'select(.bug_kind == "adr") | .suspect_sites[]?.site' "$DIR"/image-*.json 2>/dev/null | sort -u |
		tr '\n' ';')
	echo "# tx-flush-range: suspects $sites"
	[ "$RC" -eq 1 ] && [ "$adr" -gt 0 ] && [[ $sites == *btree_map.c:* ]]
	tap_ok $? "${pmdk_tests[2]} ($adr crash bugs by lost lines of $N)" "$out/mutant.err"
fi

tap_done
