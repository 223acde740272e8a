#!/usr/bin/env bash
# bench has the writer check every job file before a guest boots, and runs
# it without a shell: a job path carrying shell syntax is one argument,
# never words on a command line. Host only: a stand-in build directory
# with empty kernel and image files, and the real writer.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

top=$(cd "$B" && pwd)
fake=$(mktemp -d "${TMPDIR:-/tmp}/bench-jobs.XXXXXX")
trap 'rm -rf "$fake"' EXIT
mkdir -p "$fake/kernels/6.1-aware" "$fake/images" "$fake/guest" "$fake/jobs"
: >"$fake/kernels/6.1-aware/bzImage"
: >"$fake/images/ext4.img"
ln -s "$top/guest/pmem-writer" "$fake/guest/pmem-writer"

echo "TAP version 13"
# shellcheck disable=SC2016 # the $ is the point: it must stay text
job="jobs/x';touch\${IFS}pwned;'.fio"
printf '[a/b]\nbs=4k\n' >"$fake/$job"
rc=0
(cd "$fake" && PMEM_BUILD=$fake "$top/pmem-harness" bench --kernels 6.1-aware --fs ext4 --jobs "$job" \
	--results "$fake/r" >out 2>err) || rc=$?
echo "# $(head -n 1 "$fake/err")"
[ "$rc" -eq 2 ] && grep -qF "$job:1: section name 'a/b' is not valid" "$fake/err" &&
	grep -qF "bench: job file $job is not valid" "$fake/err"
tap_ok $? "a bad job file is refused by the writer's one line, naming file and line"
[ ! -e "$fake/pwned" ] && [ ! -e "$fake/r" ]
tap_ok $? "shell syntax in a job path runs nothing, and no run is made"

# A valid job whose file name carries shell syntax: refused by its name,
# before any guest, since the name becomes a guest file and a cell name.
# shellcheck disable=SC2016 # the $ is the point: it must stay text
job2="jobs/y';touch\${IFS}pwned2;'.fio"
printf '[a]\nbs=4k\nsize=1m\n' >"$fake/$job2"
rc=0
(cd "$fake" && PMEM_BUILD=$fake "$top/pmem-harness" bench --kernels 6.1-aware --fs ext4 --jobs "$job2" \
	--results "$fake/r2" >out2 2>err2) || rc=$?
echo "# $(head -n 1 "$fake/err2")"
[ "$rc" -eq 2 ] && [ "$(wc -l <"$fake/err2")" -eq 1 ] && grep -qF "names cells and guest files" "$fake/err2" &&
	[ ! -e "$fake/pwned2" ] && [ ! -e "$fake/r2" ]
tap_ok $? "a good job file whose name is not a safe name is refused in one line, before any guest"

rm "$fake/guest/pmem-writer"
rc=0
(cd "$fake" && PMEM_BUILD=$fake "$top/pmem-harness" bench --kernels 6.1-aware --fs ext4 --jobs "$job" \
	--results "$fake/r" >out 2>err) || rc=$?
echo "# $(head -n 1 "$fake/err")"
[ "$rc" -eq 2 ] && grep -qF "pmem-harness: cannot run $fake/guest/pmem-writer: No such file or directory" "$fake/err"
tap_ok $? "no writer: said in one line, before any guest"
tap_done
