# shellcheck shell=sh
# Guest-side helpers for job scripts: . /usr/share/pmem/lib.sh
# One place knows how each filesystem is made, mounted with DAX and checked.

PMEM_DEV=/dev/pmem0
PMEM_MNT=/mnt

pmem_die() {
	echo "pmem-lib: $*" >&2
	exit 1
}

# Turn the raw label-backed namespace into fsdax; DAX is refused on a raw one.
pmem_setup_namespace() {
	# --map=mem keeps the struct page array in RAM, not on the media: the crash
	# checker rewrites the media under a running guest, which must not touch
	# live kernel state.
	ndctl create-namespace -f -e namespace0.0 -m fsdax -M mem -a 2M >/dev/null ||
		pmem_die "ndctl create-namespace failed"
	[ -b "$PMEM_DEV" ] || pmem_die "$PMEM_DEV did not appear"
}

# The row of /usr/share/pmem/filesystems (vm-images/filesystems) named $2:
# its column $1 (5: fsck, 6: mkfs), blanks around it trimmed.
pmem_fs_column() { # column fs
	awk -F'|' -v c="$1" -v fs="$2" '
		{ n = $1; gsub(/^[ \t]+|[ \t]+$/, "", n) }
		!/^[ \t]*#/ && n == fs { v = $c; gsub(/^[ \t]+|[ \t]+$/, "", v); print v }' \
		/usr/share/pmem/filesystems
}

# Made as its row of the filesystem table says (why each is so: there).
pmem_mkfs() { # fs
	pmem_cmd=$(pmem_fs_column 6 "$1")
	[ -n "$pmem_cmd" ] || pmem_die "unknown filesystem '$1' (not in /usr/share/pmem/filesystems)"
	# shellcheck disable=SC2086 # the column is words
	$pmem_cmd "$PMEM_DEV"
}

# The console says, before the first mount, what the platform told the
# pmem driver: the pmem disk's dax/write_cache (0 where the region is
# persistence_domain cpu_cache, an eADR platform) and the region's
# persistence_domain (vm-images/flavours names the platform).
pmem_say_platform() {
	[ -z "${pmem_platform_said-}" ] || return 0
	pmem_platform_said=1
	f=/sys/block/${PMEM_DEV##*/}/dax/write_cache
	wc=$(cat "$f" 2>/dev/null) || wc=absent
	# The region the disk is on: its device is a namespace or pfn of it.
	domain=$(cat "/sys/block/${PMEM_DEV##*/}/device/../persistence_domain" 2>/dev/null) || domain=
	echo "pmem-lib: $f is $wc; persistence_domain '${domain}'" >/dev/console
}

pmem_mount() { # [dax mode: always|inode]
	pmem_say_platform
	mount -o "dax${1:+=$1}" "$PMEM_DEV" "$PMEM_MNT" ||
		pmem_die "mount -o dax${1:+=$1} $PMEM_DEV failed"
}

pmem_umount() {
	umount "$PMEM_MNT" || pmem_die "umount $PMEM_MNT failed"
}

# Read-only check; exit status 0 means consistent.
pmem_fsck() { # fs
	pmem_cmd=$(pmem_fs_column 5 "$1")
	[ -n "$pmem_cmd" ] || pmem_die "unknown filesystem '$1' (not in /usr/share/pmem/filesystems)"
	# shellcheck disable=SC2086 # the column is words
	$pmem_cmd "$PMEM_DEV"
}
