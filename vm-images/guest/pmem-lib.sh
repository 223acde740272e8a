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

# pmem_write_cache=0 or =1 on the kernel command line (a flavour's boot
# parameter, vm-images/flavours): write it to the pmem disk's
# dax/write_cache before mounting, the state in which the pmem driver
# leaves a device on a platform whose CPU caches are persistent (eADR).
# The console says what was set and what the region reports.
pmem_write_cache() {
	wc=
	read -r cmdline </proc/cmdline
	for w in $cmdline; do
		case $w in pmem_write_cache=*) wc=${w#pmem_write_cache=} ;; esac
	done
	[ -n "$wc" ] || return 0
	case $wc in 0 | 1) ;; *) pmem_die "pmem_write_cache=$wc: 0 or 1" ;; esac
	f=/sys/block/${PMEM_DEV##*/}/dax/write_cache
	[ -e "$f" ] || pmem_die "pmem_write_cache=$wc: $f does not exist"
	echo "$wc" >"$f" || pmem_die "pmem_write_cache=$wc: writing $f failed"
	domain=$(cat /sys/bus/nd/devices/region*/persistence_domain 2>/dev/null)
	echo "pmem-lib: $f is $(cat "$f") (pmem_write_cache=$wc); persistence_domain '${domain}'" >/dev/console
}

pmem_mount() { # [dax mode: always|inode]
	pmem_write_cache
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
