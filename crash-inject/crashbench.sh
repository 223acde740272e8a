#!/usr/bin/env bash
# make crashbench: how fast the checker judges crash images.
#
# The images are a fixed, seeded set: one crashtest --keep run of the
# scenarios below on the filesystems a crash program takes by default
# (vm-images/filesystems), made once and cached outside the tree under a
# key of everything that decides their bytes (the writer's kernel, the
# initramfs with the writer in it, the golden images, the scenarios and
# their job files, the seed). Every crashbench run then checks those same
# images, so two versions of the checker are compared on the same work.
#
#   crash-inject/crashbench.sh [REPS]   (KERNEL=, SCENARIOS=, FS=, SUBSETS=, SEED= override)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
B=${PMEM_BUILD:-build}
kernel=${KERNEL:-$(vm-images/build-kernel.sh --default crashtest)}
scenarios=${SCENARIOS:-shared-none sync-clwb sync-clwb-adr}
seed=${SEED:-1}
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}/crashbench

for f in "$B/pmem-harness" "$B/kernels/$kernel/bzImage" "$B/initramfs.cpio"; do
	[ -r "$f" ] || { echo "crashbench: no $f: run 'make kernels images'" >&2; exit 1; }
done
# The filesystems a crash program runs on unasked (vm-images/filesystems).
fss=${FS:-$("$B/pmem-harness" filesystems --default program)}
key=$({
	# The writer's side only: a new checker must be measured on the same
	# images as the old one, so its program and job are not in the key.
	sha256sum "$B/kernels/$kernel/bzImage" vm-images/build-initramfs.sh |
		cut -d' ' -f1
	find "$B/guest" vm-images/guest -maxdepth 1 -type f ! -name 'pmem-checker' ! -name 'checker-job.sh' ! -name '*.d' \
		-print0 | sort -z | xargs -0 sha256sum | cut -d' ' -f1
	dpkg-query -W -f='${Package} ${Version}\n' fio e2fsprogs xfsprogs ndctl 2>/dev/null || true
	for fs in $fss; do readlink -f "$B/images/$fs.img"; done
	for s in $scenarios; do
		row=$(awk -v s="$s" '$1 == s' crash-inject/scenarios)
		[ -n "$row" ] || { echo "crashbench: no scenario '$s' in crash-inject/scenarios" >&2; exit 1; }
		echo "$row"
		sha256sum "$(echo "$row" | awk '{print $2}')" | cut -d' ' -f1
	done
	echo "$fss $seed ${SUBSETS:-2}"
} | sha256sum | cut -c1-16)
set_dir=$cache/set-$key
if [ ! -r "$set_dir/done" ]; then
	echo "crashbench: making the image set (once, cached in $set_dir) ..." >&2
	rm -rf "$set_dir"
	mkdir -p "$set_dir"
	# Its own scenario verdicts do not matter here, only the kept images.
	"$B/pmem-harness" crashtest --keep --seed "$seed" --kernel "$kernel" --fs "$fss" \
		--scenarios "$scenarios" --subsets "${SUBSETS:-2}" --results "$set_dir" --run-id set >"$set_dir/crashtest.out" || true
	[ -r "$set_dir/set/crash/summary.json" ] || {
		echo "crashbench: the image set could not be made: see $set_dir/crashtest.out" >&2; exit 1; }
	# Zeros as holes, whatever the golden images were: the write phase then
	# copies what the image holds, on every machine alike.
	find "$set_dir" -name '*.img' -exec fallocate --dig-holes {} \;
	touch "$set_dir/done"
fi
exec "$B/pmem-harness" crashbench --images "$set_dir/set" --reps "$reps" --kernel "$kernel" \
	${RUN_ID:+--run-id "$RUN_ID"} ${ACCEL:+--accel "$ACCEL"}
