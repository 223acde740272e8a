#!/bin/bash
# The xfstests guest's side of `make xfstests`, shipped in its root image as
# /usr/share/pmem/xfstests-run.sh and started by the harness's job:
#
#   XFSTESTS_FS=ext4|xfs [XFSTESTS_TIMEOUT=s] [XFSTESTS_FORCE_AWARE=1] \
#   xfstests-run.sh TEST...
#
# It makes fsdax namespaces on the two blank NVDIMMs (TEST_DEV and
# SCRATCH_DEV), the filesystem on TEST_DEV, runs each TEST alone with
# xfstests' check, both devices mounted with -o dax, and prints one JSON
# document per line on stdout, which the host reads as untrusted input:
#   {"kind":"xfstests-env","version":1,...}      what the tests ran on
#   {"kind":"xfstests-test","version":1,"test":"generic/413",
#    "status":"pass|fail|notrun","seconds":N,"reason":"...",
#    "aware_mappings":N,
#    "files":{"out.bad":"...","full":"...","dmesg":"...","check":"..."}}
# Each file is its last 32 KiB. Before each test it tells the host
# ("xfstests-start TEST" on the control port), so a test that hangs the kernel
# is killed from outside and the run goes on in a new guest; a test that only
# hangs in user space is stopped here by timeout(1).
set -u
fs=${XFSTESTS_FS:?XFSTESTS_FS is not set}
limit=${XFSTESTS_TIMEOUT:-900}
cap=32768

fail_run() {
	jq -cn --arg m "$*" '{kind: "xfstests-error", version: 1, message: $m}'
	exit 1
}

# devtmpfs has no /dev/fd links (udev makes them): bash's <(...) and
# xfstests need them.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0 1 2; do
	n=(stdin stdout stderr)
	[ -e "/dev/${n[$i]}" ] || ln -s "/proc/self/fd/$i" "/dev/${n[$i]}"
done

# The two NVDIMMs under test arrive blank (zeros and an empty label area), so
# the kernel shows each as one raw namespace: each becomes fsdax with its
# memmap in RAM (-M mem), as vm-images/guest/pmem-lib.sh makes the golden
# images. The raw namespace the root is mounted from is left alone.
root_dev=$(findmnt -n -o SOURCE /)
devs=()
for ns in /sys/bus/nd/devices/namespace*; do
	[ "$(cat "$ns/size")" != 0 ] || continue
	[ ! -e "$ns/block/${root_dev#/dev/}" ] || continue
	out=$(ndctl create-namespace -f -e "${ns##*/}" -m fsdax -M mem -a 2M 2>/tmp/ndctl.err) ||
		fail_run "ndctl create-namespace on ${ns##*/} failed: $(head -c 300 /tmp/ndctl.err)"
	devs+=("/dev/$(jq -r .blockdev <<<"$out")")
done
[ ${#devs[@]} -eq 2 ] || fail_run "expected two blank NVDIMMs under test, found ${#devs[@]}"
test_dev=${devs[0]}
scratch_dev=${devs[1]}
for dev in "$test_dev" "$scratch_dev"; do
	[ -b "$dev" ] || fail_run "no $dev after creating its namespace"
	[ "$(cat "/sys/block/${dev#/dev/}/queue/dax" 2>/dev/null)" = 1 ] ||
		fail_run "$dev is not DAX-capable"
done

# How the filesystems are made is decided here, not by the filesystem table
# (vm-images/filesystems), on purpose:
#  - this guest cannot read the table: it switches from the initramfs (which
#    has /usr/share/pmem/filesystems) to the xfstests root image, which does
#    not; shipping it there would rebuild that image on every table edit;
#  - the table's mkfs column is the wrong command for xfstests. It is how
#    the golden images are made for the benchmarks and crash tests: xfs with
#    reflink off (DAX on 6.1) and a geometry for a 512 MiB device (su=2m,
#    agcount=4 for a 64 MiB log). xfstests wants the filesystem as the
#    kernel can best make it, reflink and rmapbt included when they work
#    with DAX, found by the probe below, and the same on both devices;
#  - xfstests takes MKFS_OPTIONS, options alone: it runs mkfs.$FSTYP itself
#    with its own -f/-F and -q, so the column's command would have to be
#    taken apart word by word;
#  - the probe (mount -o dax, cp --reflink=always) is xfs's own, not a
#    column's value.
# An xfstests column in the table would hold these variants for xfs and
# nothing for ext4; the table would still need shipping, and the probe
# would still be here. The harness offers xfstests only the rows whose runs
# name it; a new one needs a line below, and "unknown filesystem" says so.
#
# xfs: reflink and rmapbt (which xfs/550-552 need) where the kernel can
# reflink a file on a DAX mount; where it cannot (a kernel that refuses DAX
# with reflink), reflink=0 and the CoW tests report notrun instead of failing
# on a feature that kernel lacks.
mkfs_opts=
if [ "$fs" = xfs ]; then
	mkdir -p /mnt/scratch
	for opts in reflink=1,rmapbt=1 reflink=0,rmapbt=1 reflink=0; do
		mkfs.xfs -q -f -m "$opts" "$scratch_dev" 2>/dev/null || continue
		mount -o dax "$scratch_dev" /mnt/scratch 2>/dev/null || continue
		ok=1
		if [ "${opts%%,*}" = reflink=1 ]; then
			echo data >/mnt/scratch/a
			cp --reflink=always /mnt/scratch/a /mnt/scratch/b 2>/dev/null || ok=
		fi
		umount /mnt/scratch
		if [ -n "$ok" ]; then
			mkfs_opts="-m $opts"
			break
		fi
	done
	[ -n "$mkfs_opts" ] || fail_run "mkfs.xfs made no filesystem that mounts with -o dax on $scratch_dev"
fi
case $fs in
ext4) mkfs.ext4 -q -F "$test_dev" ;;
xfs) mkfs.xfs -q -f -m "${mkfs_opts#-m }" "$test_dev" ;;
*) fail_run "unknown filesystem $fs" ;;
esac || fail_run "mkfs.$fs on $test_dev failed"

cd /xfstests || fail_run "no /xfstests in the image"
cat >local.config <<EOF
export FSTYP=$fs
export TEST_DEV=$test_dev
export TEST_DIR=/mnt/test
export SCRATCH_DEV=$scratch_dev
export SCRATCH_MNT=/mnt/scratch
export MKFS_OPTIONS="$mkfs_opts"
export MOUNT_OPTIONS="-o dax"
export TEST_FS_MOUNT_OPTS="-o dax"
EOF
mkdir -p /mnt/test /mnt/scratch

# FORCE_AWARE: every shared file mapping asks for MAP_PMEM_AWARE first
# (xfstests/aware-mmap.c), and says so in $PMEM_AWARE_LOG.
if [ "${XFSTESTS_FORCE_AWARE:-0}" = 1 ]; then
	export LD_PRELOAD=/usr/local/lib/pmem-aware-mmap.so PMEM_AWARE_LOG=/tmp/aware-mappings
fi

jq -cn --arg fs "$fs" --arg mkfs "$mkfs_opts" --arg kernel "$(uname -r)" \
	--arg dax "-o dax" --argjson force "${XFSTESTS_FORCE_AWARE:-0}" '{kind: "xfstests-env", version: 1, fs: $fs, mkfs_options: $mkfs,
	mount_options: $dax, kernel: $kernel, force_aware: $force}'

# The last $cap bytes of a result file, or nothing.
tail_of() { if [ -f "$1" ]; then tail -c "$cap" "$1"; fi; }

for t in "$@"; do
	pmem-agent ask "xfstests-start $t" >/dev/null || fail_run "the host did not answer xfstests-start"
	rm -f "results/$t".*
	rm -f /tmp/aware-mappings
	start=$(date +%s%N)
	timeout -k 30 "$limit" ./check "$t" >/tmp/check.out 2>&1
	rc=$?
	secs=$((($(date +%s%N) - start) / 1000000))
	aware=0
	[ ! -e /tmp/aware-mappings ] || aware=$(wc -l </tmp/aware-mappings)
	reason=
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		status=fail reason="timed out after $limit s (killed in the guest)"
	elif [ -e "results/$t.notrun" ]; then
		status=notrun reason=$(head -c 400 "results/$t.notrun")
	elif [ $rc -eq 0 ] && grep -q '^Passed all 1 tests' /tmp/check.out; then
		status=pass
	else
		status=fail
		# check's own line for the test: "generic/413 3s ... - output mismatch (see ...)"
		reason=$(grep -m1 "^$t " /tmp/check.out | sed 's/^[^ ]* *//'); reason=${reason:0:400}
		[ -n "$reason" ] || reason="check exited $rc"
	fi
	jq -cn --arg test "$t" --arg status "$status" --argjson ms "$secs" --argjson aware "$aware" --arg reason "$reason" \
		--rawfile outbad <(tail_of "results/$t.out.bad") --rawfile full <(tail_of "results/$t.full") \
		--rawfile dmesg <(tail_of "results/$t.dmesg") --rawfile check <(tail_of /tmp/check.out) \
		'{kind: "xfstests-test", version: 1, test: $test, status: $status, seconds: ($ms / 1000),
		  reason: $reason, aware_mappings: $aware, files: {"out.bad": $outbad, full: $full, dmesg: $dmesg, check: $check}}'
done
