#!/usr/bin/env bash
# Make the golden NVDIMM images every run starts from a copy of.
#
#   vm-images/make-golden.sh FS...        (ext4, xfs)
#
# Each image is made once in a guest: the raw namespace becomes fsdax
# (ndctl create-namespace -m fsdax), the filesystem is made with DAX-capable
# options, mounted with -o dax, unmounted and checked. The namespace info
# block lives in the backing file, so the result can be cached and copied.
# Cached under $PMEM_CACHE/golden/, keyed by the tool versions, the guest
# helpers and the size; published as build/images/<fs>.img.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
build=${PMEM_BUILD:-$top/build}
harness=$build/pmem-harness
# 512 MiB region + the 128 KiB label area QEMU keeps at the end of the file.
size=$(((512 << 20) + (128 << 10)))
kernel=6.1-stock
# 6.1 mounts xfs with reflink and DAX too, but gives DAX to no inode that
# is reflinked when it is loaded; the reflink image is made on 6.12.
reflink_kernel=6.12-stock

die() { echo "make-golden: $*" >&2; exit 1; }

[ $# -gt 0 ] || die "usage: make-golden.sh FS... (ext4, xfs)"
[ -x "$harness" ] || die "no $harness: run 'make'"
[ -e "$build/kernels/$kernel/bzImage" ] || die "no $kernel kernel: run 'make kernels'"

for fs in "$@"; do
	case $fs in
	ext4 | xfs) k=$kernel ;;
	xfs-reflink) k=$reflink_kernel ;;
	*) die "unknown filesystem '$fs' (ext4, xfs, xfs-reflink)" ;;
	esac
	[ -e "$build/kernels/$k/bzImage" ] || die "no $k kernel (for $fs): run 'vm-images/build-kernel.sh $k'"
	key=$({
		echo "size $size kernel $k"
		dpkg-query -W -f='${Package} ${Version}\n' ndctl e2fsprogs xfsprogs
		cat "$here/guest/pmem-lib.sh"
	} | sha256sum | cut -c1-16)
	img=$cache/golden/$fs-$key.img
	if [ ! -e "$img" ]; then
		avail=$(df -Pm "$cache" | awk 'NR == 2 { print $4 }')
		[ "$avail" -ge 1024 ] || die "only $avail MiB free under $cache; a golden image needs up to 1 GiB"
		mkdir -p "$cache/golden"
		work=$(mktemp -d "$cache/golden/$fs.XXXXXX")
		echo "make-golden: making the $fs image in a guest (log in $work)" >&2
		cat >"$work/job.sh" <<-EOF
			set -e
			. /usr/share/pmem/lib.sh
			pmem_setup_namespace
			pmem_mkfs $fs
			pmem_mount
			pmem_umount
			pmem_fsck $fs
			ndctl list -N
		EOF
		"$harness" run --kernel "$k" --fs raw --raw-size "$size" --keep-image \
			--script "$work/job.sh" --out "$work" --quiet ||
			die "making the $fs image failed: see $work/guest.log and $work/console.log"
		mv "$work/nvdimm.img" "$img"
		rm -rf "$work"
	fi
	# Zeros as holes: mkfs writes the whole xfs log (64 MiB of zeros), and
	# every crash image, copy and rewrite follows the golden image's data
	# extents. Idempotent, so images cached before this are dug too.
	fallocate --dig-holes "$img"
	mkdir -p "$build/images"
	ln -sfn "$img" "$build/images/$fs.img"
	echo "make-golden: $fs ready: $build/images/$fs.img" >&2
done
