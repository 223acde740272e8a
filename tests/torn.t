#!/usr/bin/env bash
# Torn lines in the ADR images (--torn, crash-inject/model/adr.c): x86
# promises failure atomicity for 8 bytes, not for a cache line.
# torn-commit.c (planted) keeps each record's commit word in the record's
# own line and trusts the line to become durable whole:
#  - with --torn 8, at each fence point between the tail and the record's
#    write-back, the images that leave one data word old in the eADR image
#    (drop00wW) or take the commit word new in the strict one (keep00w7)
#    lose: recovery takes a record whose data is not all there (exit 2);
#  - its correct twin (torn-commit-ordered.c), which fences the data
#    before it stores the commit word, is intact with the same images;
#  - with whole lines (--torn 0, the default) the same points give the
#    line old or new, and both are consistent: nothing lost.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/torn
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.1-aware/bzImage"

crash() { # id program torn
	"$H" crashtest --fs ext4 --results "$out" --run-id "$1" --program "workloads/crash/$2.c" \
		--check "workloads/crash/$2-check.c" --mode sync --platform adr --subsets 4 --torn "$3" \
		--fence-period 16 >"$out/$1.out" 2>"$out/$1.err"
	RC=$?
	grep -E '^ *program ' "$out/$1.out" | sed "s/^/# $1: /"
}
# The images of a run by verdict and family.
images() { # id
	jq -s -c '{images: length,
		lost: [.[] | select(.verdict == "lost") | .variant] | unique,
		lost_images: map(select(.verdict == "lost")) | length,
		torn_record: map(select(.verdict == "lost" and .user_check_status == 2 and .taken == "fence")) | length,
		fence_points: map(select(.taken == "fence" and .pending_lines > 0) | .point) | unique | length,
		torn_images: map(select(.variant | test("w[0-7]$"))) | length}' \
		"$out/$1/crash/program__ext4"/image-*.json
}

crash planted torn-commit 8
p=$(images planted)
echo "# torn-commit, --torn 8: $p; crashtest exit status $RC"
want='["drop00w0","drop00w1","drop00w2","drop00w3","drop00w4","drop00w5","drop00w6","keep00w7"]'
[ "$RC" -eq 1 ] && jq -e --argjson want "$want" '.fence_points > 0 and .lost == $want and
	.lost_images == 8 * .fence_points and .torn_record == .lost_images' <<<"$p" >/dev/null
tap_ok $? "torn-commit (planted), --torn 8: at each fence point a data word left old, or the commit word taken new, loses the record; nothing else does" \
	"$out/planted.err"

crash twin torn-commit-ordered 8
t=$(images twin)
echo "# torn-commit-ordered, --torn 8: $t; crashtest exit status $RC"
[ "$RC" -eq 0 ] && jq -e '.fence_points > 0 and .torn_images > 0 and .lost_images == 0' <<<"$t" >/dev/null
tap_ok $? "torn-commit-ordered (its correct twin), --torn 8: every image intact, the torn ones included" \
	"$out/twin.err"

crash whole torn-commit 0
w=$(images whole)
echo "# torn-commit, --torn 0: $w; crashtest exit status $RC"
[ "$RC" -eq 0 ] && jq -e --argjson p "$p" '.fence_points == $p.fence_points and .lost_images == 0 and
	.torn_images == 0' <<<"$w" >/dev/null
tap_ok $? "torn-commit with whole lines (--torn 0): the same fence points, nothing lost" "$out/whole.err"
tap_done
