#!/usr/bin/env bash
# The filesystem table (vm-images/filesystems) on real guests:
#  - make images made one golden image per row, and pmem-harness names the
#    table's filesystems, refusing one that is not a row in one line;
#  - pmem-harness filesystems --default KIND gives scripts each run's
#    defaults as the table's default column says;
#  - ext2, added as one row and nothing else, is crash-tested: a correct
#    program's acknowledged records survive in every crash image, each
#    image mounts, and e2fsck -n finds what a crash leaves on a filesystem
#    without a journal (fs-corrupt), where ext4 in the same run, the twin,
#    is intact.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/filesystems
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
mapfile -t names < <(vm-images/make-golden.sh --list)
images=()
for n in "${names[@]}"; do images+=("$B/images/$n.img"); done
tap_require "$H" "$B/kernels/6.1-stock/bzImage" "${images[@]}"

[ "${#names[@]}" -ge 4 ] && "$H" run --help | grep -F "FS: $(printf '%s, ' "${names[@]}" | sed 's/, $//')" >/dev/null
tap_ok $? "a golden image for each of the ${#names[@]} rows (${names[*]}), and run --help names them"

# Scripts read a run's defaults through the harness: the rows whose default
# column names it, in the table's order.
ok=0
for kind in bench quick crashtest program xfstests; do
	want=$(awk -F'|' -v k="$kind" '!/^[ \t]*#/ && NF >= 7 {
		n = $1; gsub(/[ \t]/, "", n)
		if (index(" " $7 " ", " " k " ")) { printf "%s%s", s, n; s = " " } }' \
		vm-images/filesystems)
	got=$("$H" filesystems --default "$kind") || ok=1
	[ "$got" = "$want" ] || { echo "# --default $kind: '$got', the table says '$want'"; ok=1; }
done
"$H" filesystems --default nope >/dev/null 2>&1
[ $? -eq 2 ] || ok=1
tap_ok $ok "filesystems --default KIND prints the table's default column for each run, and refuses an unknown one"

"$H" crashtest --fs ext3 --results "$out" --run-id nofs >/dev/null 2>"$out/nofs.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$out/nofs.err")" -eq 1 ] &&
	grep -F "unknown filesystem 'ext3' (ext4, xfs, xfs-reflink, ext2)" "$out/nofs.err" >/dev/null
tap_ok $? "a filesystem that is not a row is refused in one line naming the rows offered (rc $rc)" "$out/nofs.err"

"$H" crashtest --program tests/fixtures/ack-late.c --fs "ext4 ext2" --kernel 6.1-stock --results "$out" \
	--run-id ext2 >"$out/ext2.out" 2>"$out/ext2.err"
rc=$?
sed -n 's/^ *program /# program /p' "$out/ext2.out"
dir=$out/ext2/crash
e2=$(jq -s '[.[] | select(.mounted and .lost_count == 0 and .torn_count == 0)] | length' \
	"$dir"/program__ext2/image-*.json)
e2all=$(jq -s 'length' "$dir"/program__ext2/image-*.json)
e2fsck=$(jq -s '[.[] | select(.fsck_status != 0)] | length' "$dir"/program__ext2/image-*.json)
e4=$(jq -s '[.[] | select(.verdict == "intact")] | length' "$dir"/program__ext4/image-*.json)
e4all=$(jq -s 'length' "$dir"/program__ext4/image-*.json)
echo "# ext2: $e2 of $e2all images mounted with every record; e2fsck -n found damage in $e2fsck; ext4: $e4 of $e4all intact"
[ "$rc" -eq 1 ] && [ "${e2all:-0}" -gt 0 ] && [ "$e2" = "$e2all" ]
tap_ok $? "ext2: every acknowledged record survives in every crash image, each image mounts" "$out/ext2.err"
[ "${e2fsck:-0}" -gt 0 ]
tap_ok $? "ext2: fsck finds what a crash leaves without a journal ($e2fsck of $e2all images fs-corrupt)"
[ "${e4all:-0}" -gt 0 ] && [ "$e4" = "$e4all" ]
tap_ok $? "ext4, the twin in the same run: every image intact"
tap_done
