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

# ext4 defaults to 1 KiB blocks on small devices, which DAX refuses;
# xfs reflink (on by default) is incompatible with DAX in 6.1, so "xfs" has
# it off; "xfs-reflink" has it on, for the CoW cases on kernels that allow it.
# A 2 MiB stripe unit makes xfs align allocations of 2 MiB and more, as
# users who want DAX PMD faults set it; smaller ones are placed as before.
# Four AGs, as mkfs picks without it, so that the 64 MiB log fits in one.
pmem_mkfs() { # fs
	case $1 in
	ext4) mkfs.ext4 -F -q -b 4096 "$PMEM_DEV" ;;
	xfs) mkfs.xfs -f -q -m reflink=0 -d su=2m,sw=1,agcount=4 "$PMEM_DEV" ;;
	xfs-reflink) mkfs.xfs -f -q -m reflink=1 "$PMEM_DEV" ;;
	*) pmem_die "unknown filesystem '$1' (ext4, xfs, xfs-reflink)" ;;
	esac
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
	case $1 in
	ext4) e2fsck -fn "$PMEM_DEV" ;;
	xfs | xfs-reflink) xfs_repair -n "$PMEM_DEV" ;;
	*) pmem_die "unknown filesystem '$1' (ext4, xfs, xfs-reflink)" ;;
	esac
}
