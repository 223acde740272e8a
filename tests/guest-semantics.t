#!/usr/bin/env bash
# MAP_PMEM_AWARE semantics under the stock and aware 6.1 and 6.12 kernels
# (6.1-aware carries the read-fault fix its series is based on), on ext4 and
# xfs, and on xfs with reflink for the copy-on-write cases (6.1 keeps DAX on
# a file cloned while its inode is cached, which is how the case clones it),
# each in a fresh guest (tests/guest/semantics.c has the cases).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

# make test KERNELS=<path or flavour> adds your kernels (PMEM_TEST_KERNELS).
echo "TAP version 13"
for flavour in 6.1-stock 6.1-aware 6.12-stock 6.12-aware ${PMEM_TEST_KERNELS:-}; do
	fss="ext4 xfs xfs-reflink"
	for fs in $fss; do
		# One run per kernel also has a virtio-pmem device: DAX that is not
		# synchronous, where MAP_SYNC and MAP_PMEM_AWARE must be refused.
		vpmem=
		[ "$fs" = ext4 ] && vpmem="--virtio-pmem 256"
		GUEST_RUN_ARGS=$vpmem guest_tap "$flavour/$fs" "$flavour" "$fs" tests/guest/semantics.job
	done
done
tap_done
