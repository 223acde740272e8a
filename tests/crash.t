#!/usr/bin/env bash
# make crashtest's judge on real guests:
#  - a program that acknowledges before persisting is caught (lost records);
#  - its correct twin shows every crash image intact, also with 512-byte
#    records (verified in slots of the acknowledged length) and when given
#    as a prebuilt static binary (a dynamic one needing a library the
#    guests lack is refused in one line);
#  - a planted-bug row that loses nothing (a negative control) says MISSED
#    and fails the run;
#  - planted damage in a known-good image is found: a zeroed record (lost),
#    a flipped payload byte (torn), a wiped superblock (fs-corrupt);
#  - one checker guest takes several images in a row without stale caches:
#    good, damaged, good again give intact, lost, intact; two guests at once,
#    with every image given twice, give the same verdicts, twins shared;
#  - a checker that hangs on some images gives them their verdict and the
#    run goes on with a fresh checker; one whose QEMU is killed from outside
#    has its image checked again by a fresh one; crashtest killed with -9
#    leaves no guest behind;
#  - crashbench checks a run's kept images again, twice, in two guests at
#    once, with the run's verdicts and the time per phase, and fails when a
#    verdict differs from the run's (a run with one verdict turned around).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/crash
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"

"$H" crashtest --program tests/fixtures/ack-early.c --fs ext4 --keep --results "$out" --run-id early \
	>"$out/early.out" 2>"$out/early.err"
rc=$?
row=$(grep -E '^ *program ' "$out/early.out")
echo "# $row"
lost=$(jq '[.scenarios[0].verdicts.lost] | add' "$out/early/crash/summary.json")
[ "$rc" -eq 1 ] && [ "${lost:-0}" -gt 0 ] && grep -q UNEXPECTED <<<"$row"
tap_ok $? "acking before persisting is caught: $lost images with lost acknowledged records"

"$H" crashtest --program tests/fixtures/ack-late.c --fs ext4 --keep --results "$out" --run-id late \
	>"$out/late.out" 2>"$out/late.err"
rc=$?
row=$(grep -E '^ *program ' "$out/late.out")
echo "# $row"
dir=$out/late/crash/program__ext4
n=$(jq '.scenarios[0].images' "$out/late/crash/summary.json")
intact=$(jq '.scenarios[0].verdicts.intact' "$out/late/crash/summary.json")
[ "$rc" -eq 0 ] && [ "$n" -gt 0 ] && [ "$intact" = "$n" ]
tap_ok $? "persisting before acking: all $n crash images intact"

# A planted bug that loses nothing is a miss, never a pass: the writer's
# sync-none bug under eADR, expected "lost" (tests/fixtures/scenarios-missed).
"$H" crashtest --scenario-table tests/fixtures/scenarios-missed --fs ext4 --results "$out" --run-id missed \
	>"$out/missed.out" 2>"$out/missed.err"
rc=$?
row=$(grep -E '^ *missed-control ' "$out/missed.out")
echo "# $row"
[ "$rc" -eq 1 ] && [[ $row == *"MISSED: the planted bug lost nothing"* ]] &&
	jq -e '.scenarios[0] | .missed == true and .images > 0 and .verdicts.intact == .images' \
		"$out/missed/crash/summary.json" >/dev/null
tap_ok $? "a planted-bug row that loses nothing says MISSED and fails the run (rc $rc)"
grep -qx "report: $out/late/report/index.html (markdown beside it: report.md)" "$out/late.out" &&
	jq -e '.kind == "crashtest" and .kernels["6.1-aware"].patches and .qemu.version' "$out/late/run.json" >/dev/null &&
	grep -q '^| program | [a-z+]* | intact | [0-9]* intact, 0 lost, 0 torn, 0 fs-corrupt of' "$out/late/report/report.md"
tap_ok $? "crashtest records run.json, writes its report and prints the path"

# Records of 512 bytes: the verifier walks the file in the length the
# program acknowledged, not in a size the host assumed (it read 4096-byte
# slots before, and judged every such image lost).
"$H" crashtest --program tests/fixtures/ack-late.c --cflags -DBS=512 --fs ext4 --results "$out" --run-id bs512 \
	>"$out/bs512.out" 2>"$out/bs512.err"
rc=$?
n=$(jq '.scenarios[0].images' "$out/bs512/crash/summary.json")
intact=$(jq '.scenarios[0].verdicts.intact' "$out/bs512/crash/summary.json")
acked=$(jq -s '[.[].acked] | max' "$out"/bs512/crash/program__ext4/image-*.json)
echo "# $(grep -E '^ *program ' "$out/bs512.out")"
[ "$rc" -eq 0 ] && [ "$n" -gt 0 ] && [ "$intact" = "$n" ] && [ "${acked:-0}" -gt 0 ]
tap_ok $? "512-byte records, persisted before acked: all $n images intact, verified in 512-byte slots"

# The same program as a prebuilt static binary, and a dynamic one needing a
# library the guests do not carry (jq: libjq) refused.
program_static "$out/ack-late.static" tests/fixtures/ack-late.c
"$H" crashtest --program "$out/ack-late.static" --fs ext4 --results "$out" --run-id prebuilt \
	>"$out/prebuilt.out" 2>"$out/prebuilt.err"
rc=$?
pn=$(jq '.scenarios[0].images' "$out/prebuilt/crash/summary.json")
pi=$(jq '.scenarios[0].verdicts.intact' "$out/prebuilt/crash/summary.json")
"$H" crashtest --program /usr/bin/jq --fs ext4 --results "$out" --run-id dynamic >/dev/null 2>"$out/dynamic.err"
drc=$?
[ "$rc" -eq 0 ] && [ "${pn:-0}" -gt 0 ] && [ "$pi" = "$pn" ] && [ "$drc" -eq 2 ] &&
	grep -q "dynamically linked and needs libjq.so.1, which the crash guests do not carry: link it with -static" \
		"$out/dynamic.err"
tap_ok $? "a prebuilt static binary is crash-tested as its source is ($pi of $pn intact); a dynamic one needing libjq is refused"

# The last image: taken by kill -9 after all 512 acks.
good=$(jq -r -s 'map(select(.taken == "kill")) | .[0].image // empty' "$dir"/image-*.json)
good=$dir/images/$(printf '%03d' "$good").img
[ -f "$good" ]
tap_ok $? "the kill -9 image was kept ($good)"

# Byte offset of record <seq>'s header in an image (magic "PMEDREC1", then seq).
record_offset() { # image seq
	local seq at
	seq=$(printf '\\x%02x' "$2")
	at=$(LC_ALL=C grep -obUaP "PMEDREC1${seq}\\x00\\x00\\x00\\x00\\x00\\x00\\x00" "$1" | cut -d: -f1)
	echo "${at%%$'\n'*}"
}

lostimg=$out/lost.img
tornimg=$out/torn.img
badfs=$out/badfs.img
cp --sparse=always "$good" "$lostimg"
cp --sparse=always "$good" "$tornimg"
cp --sparse=always "$good" "$badfs"
o5=$(record_offset "$good" 5)
o7=$(record_offset "$good" 7)
[ -n "$o5" ] && [ -n "$o7" ]
tap_ok $? "records 5 and 7 found in the image at $o5 and $o7"
dd if=/dev/zero of="$lostimg" bs=1 seek="$o5" count=4096 conv=notrunc status=none
printf '\xff' | dd of="$tornimg" bs=1 seek=$((o7 + 100)) count=1 conv=notrunc status=none
# The filesystem starts at the fsdax data offset: find ext4's magic 0xEF53 at
# superblock + 0x38, then wipe the superblock and group descriptors.
fsoff=
for cand in $((2 << 20)) $((4 << 20)) $((1 << 20)) 4096 65536; do
	magic=$(od -An -tx1 -j $((cand + 1024 + 56)) -N2 "$good" | tr -d ' ')
	[ "$magic" = 53ef ] && fsoff=$cand && break
done
[ -n "$fsoff" ] && dd if=/dev/zero of="$badfs" bs=1 seek="$fsoff" count=65536 conv=notrunc status=none
tap_ok $? "ext4 superblock found at image offset ${fsoff:-?} and wiped"

"$H" crashcheck --fs ext4 --acks "$dir/acks.log" --acked 512 --image "$good" --image "$lostimg" \
	--image "$good" --image "$tornimg" --image "$badfs" >"$out/check.out" 2>"$out/check.err"
mapfile -t v < <(jq -r .verdict "$out/check.out")
echo "# verdicts: ${v[*]}"
[ "${v[0]:-}" = intact ]
tap_ok $? "known-good image: intact"
[ "${v[1]:-}" = lost ] && sed -n 2p "$out/check.out" | jq -e '.lost == [5] and .lost_count == 1' >/dev/null
tap_ok $? "zeroed record 5: lost, and only seq 5"
[ "${v[2]:-}" = intact ]
tap_ok $? "the good image again after a damaged one, same checker guest: intact (no stale cache)"
[ "${v[3]:-}" = torn ] && sed -n 4p "$out/check.out" | jq -e '.torn == [7]' >/dev/null
tap_ok $? "flipped byte in record 7: torn, seq 7"
[ "${v[4]:-}" = fs-corrupt ]
tap_ok $? "wiped superblock: fs-corrupt"
# The same planted images, two guests at once, each damaged image given twice:
# the twins are checked once and share the verdict.
"$H" crashcheck --fs ext4 --acks "$dir/acks.log" --acked 512 --checkers 2 --image "$good" \
	--image "$lostimg" --image "$tornimg" --image "$badfs" --image "$lostimg" --image "$tornimg" \
	--image "$badfs" --image "$good" >"$out/check2.out" 2>"$out/check2.err"
mapfile -t v2 < <(jq -r '.verdict + (if .same_as then "=" else "" end)' "$out/check2.out")
echo "# verdicts, two guests: ${v2[*]}"
[ "${v2[*]}" = "intact lost torn fs-corrupt lost= torn= fs-corrupt= intact=" ] &&
	sed -n 2p "$out/check2.out" | jq -e '.lost == [5]' >/dev/null &&
	sed -n 3p "$out/check2.out" | jq -e '.torn == [7]' >/dev/null
tap_ok $? "two checker guests with identical images: lost, torn and fs-corrupt still caught, twins share them"
# A checker that hangs on one image: that image is judged, the run goes on.
PMEM_CHECK_IMAGE_TIMEOUT=5 "$H" crashtest --program tests/fixtures/ack-late.c \
	--check tests/fixtures/hang-check.c --fs ext4 --results "$out" --run-id hang \
	>"$out/hang.out" 2>"$out/hang.err"
rc=$?
hdir=$out/hang/crash/program__ext4
hung=$(jq -s '[.[] | select(.checker_failure | test("hung"))] | length' "$hdir"/image-*.json)
rest=$(jq -s '[.[] | select((.checker_failure | test("hung") | not) and .verdict != "intact")] | length' \
	"$hdir"/image-*.json)
all=$(jq -s length "$hdir"/image-*.json)
echo "# $all images: $hung hung (verdict fs-corrupt), $rest others not intact"
last_hung=$(jq -s '[.[] | select(.checker_failure | test("hung")) | .image] | max' "$hdir"/image-*.json)
later=$(jq -s --argjson h "${last_hung:-999}" '[.[] | select(.image > $h and .verdict == "intact")] | length' \
	"$hdir"/image-*.json)
echo "# images judged intact after the last hang (image $last_hung): $later"
[ "$rc" -eq 1 ] && [ "${hung:-0}" -ge 1 ] && [ "${rest:-1}" -eq 0 ] && [ "${later:-0}" -ge 1 ]
tap_ok $? "a checker hang is the verdict of its image; the other images are still judged"

# A checker's QEMU killed from outside while it is on an image: not the
# image's doing, so that image goes again to a fresh checker and is judged.
kdir=$out/killed/crash
(
	for _ in $(seq 600); do
		ends=$(grep -c '^{"schema":1,"kind":"check"' "$kdir/checker-0.0/guest.log" 2>/dev/null)
		[ "${ends:-0}" -ge 3 ] && break
		sleep 0.2
	done
	sleep 0.5 # inside the next image's two seconds
	pkill -KILL -f "mem-path=$kdir/checker-0.0/nvdimm.img"
) &
killer=$!
"$H" crashtest --program tests/fixtures/ack-late.c --check tests/fixtures/slow-check.c --fs ext4 --checkers 1 \
	--results "$out" --run-id killed >"$out/killed.out" 2>"$out/killed.err"
rc=$?
wait "$killer"
grep '^crashtest: checker' "$out/killed.err" | sed 's/^/# /'
n=$(jq '.scenarios[0].images' "$kdir/summary.json")
intact=$(jq '.scenarios[0].verdicts.intact' "$kdir/summary.json")
[ "$rc" -eq 0 ] && [ "${n:-0}" -gt 3 ] && [ "$intact" = "$n" ] &&
	grep -q 'checker 0 stopped on image [0-9]* (.*); retrying it in a fresh checker' "$out/killed.err" &&
	[ -d "$kdir/checker-0.1" ]
tap_ok $? "a checker QEMU killed from outside: its image retried in a fresh checker, all $n intact (rc $rc)"

# crashtest killed with -9 while its writer and checkers run: no guest is left.
"$H" crashtest --program tests/fixtures/ack-late.c --fs ext4 --checkers 2 --results "$out" --run-id orphan \
	>/dev/null 2>&1 &
victim=$!
for _ in $(seq 300); do
	[ "$(pgrep -fc "mem-path=$out/orphan/")" -ge 3 ] && break
	sleep 0.2
done
up=$(pgrep -fc "mem-path=$out/orphan/")
kill -KILL "$victim"
wait "$victim" 2>/dev/null
sleep 3
left=$(pgrep -fc "mem-path=$out/orphan/|run-id orphan")
echo "# guests up when killed: $up; processes left 3 s later: $left"
[ "$up" -ge 3 ] && [ "$left" -eq 0 ]
tap_ok $? "crashtest killed with -9: its writer and checker guests end with it"
pkill -KILL -f "mem-path=$out/orphan/|run-id orphan"

# crashbench on the kept images of the losing run: lost and intact alike.
edir=$out/early/crash/program__ext4
"$H" crashbench --images "$out/early" --reps 2 --checkers 2 --results "$out" --run-id bench \
	>"$out/bench.out" 2>"$out/bench.err"
rc=$?
sed 's/^/# /' "$out/bench.out"
kept=$(jq -s '[.[] | select(.kept and .file)] | length' "$edir"/image-*.json)
twins=$(jq '.scenarios[0].deduplicated' "$out/early/crash/summary.json")
[ "$rc" -eq 0 ] && jq -e --argjson n "${kept:-0}" --argjson d "${twins:-0}" '
	.images == $n and $n > 0 and .deduplicated == $d and .checkers == 2 and .rows[0].disagreements == 0 and
	.rows[0].phases.round.n == 2 * ($n - $d) and .rows[0].phases.mount.median_ms > 0 and
	.rows[0].phases.fsck.median_ms > 0 and .images_per_s.median > 0 and .boot_seconds.median > 0' \
	"$out/bench/crashbench.json" >/dev/null
tap_ok $? "crashbench: $kept kept images ($twins twins) judged again twice in 2 guests, as the run judged them"

# The same images, with one verdict of the run turned around: crashbench must say so.
mkdir -p "$out/turned/crash/program__ext4"
cp "$out/early/crash/summary.json" "$out/turned/crash/"
cp "$edir"/acks.log "$edir"/image-*.json "$out/turned/crash/program__ext4/"
images=("$out/turned/crash/program__ext4"/image-*.json)
first=${images[0]}
jq '.verdict = (if .verdict == "intact" then "lost" else "intact" end)' "$first" >"$first.new" && mv "$first.new" "$first"
"$H" crashbench --images "$out/turned" --reps 1 --checkers 1 --results "$out" --run-id turned \
	>"$out/turned.out" 2>"$out/turned.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "now judged .*, the run said" "$out/turned.err" && grep -q "VERDICTS DIFFER" "$out/turned.out"
tap_ok $? "crashbench fails when a verdict differs from the run's (rc $rc)"
"$H" compare "$out/bench" "$out/turned" >"$out/compare.out" 2>&1
grep -q "crash images checked/s" "$out/compare.out"
tap_ok $? "make compare puts two crashbench runs' checking speeds side by side"
tap_done
