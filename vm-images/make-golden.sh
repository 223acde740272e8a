#!/usr/bin/env bash
# Make the golden NVDIMM images every run starts from a copy of.
#
#   vm-images/make-golden.sh FS...        (the names of vm-images/filesystems)
#   vm-images/make-golden.sh --list       those names
#   vm-images/make-golden.sh --kernels    the kernels their images are made on
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
table=$here/filesystems

die() { echo "make-golden: $*" >&2; exit 1; }

# Column $1 of every row of the table ($2: only the row named so), trimmed.
column() { # column [fs]
	awk -F'|' -v c="$1" -v fs="${2-}" '
		{ n = $1; gsub(/^[ \t]+|[ \t]+$/, "", n) }
		!/^[ \t]*#/ && NF >= 6 && (fs == "" || n == fs) { v = $c; gsub(/^[ \t]+|[ \t]+$/, "", v); print v }' "$table"
}

case ${1-} in
--list) column 1; exit 0 ;;
--kernels) column 3 | sort -u; exit 0 ;;
esac
[ $# -gt 0 ] || die "usage: make-golden.sh FS... ($(column 1 | tr '\n' ' '))"
[ -x "$harness" ] || die "no $harness: run 'make'"

for fs in "$@"; do
	k=$(column 3 "$fs")
	[ -n "$k" ] || die "unknown filesystem '$fs' ($(column 1 | tr '\n' ' ')): see $table"
	[ -e "$build/kernels/$k/bzImage" ] || die "no $k kernel (for $fs): run 'vm-images/build-kernel.sh $k'"
	key=$({
		echo "size $size kernel $k"
		dpkg-query -W -f='${Package} ${Version}\n' ndctl e2fsprogs xfsprogs
		cat "$here/guest/pmem-lib.sh"
		echo "mkfs $(column 6 "$fs")"
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
