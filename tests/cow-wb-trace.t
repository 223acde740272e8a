#!/usr/bin/env bash
# The CoW write-back check that needs no cache model: tracefs kprobes on
# the kernel's copy (copy_mc_to_kernel() inside dax_iomap_copy_around() /
# dax_iomap_cow_copy() and dax_file_unshare()), its write-backs
# (arch_wb_cache_pmem()) and the remap commit (xfs_reflink_end_cow()), by
# vm-images/guest/cow-wb-trace.sh, the script a maintainer runs on real
# hardware. On the stock kernels no copied line is ever written back, on
# any of the three paths (MAP_SYNC fault, write(2), unshare); with the
# fix (cow-flush) every one is, before its remap is committed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

echo "TAP version 13"
tap_require "$B/images/xfs-reflink.img" "$B/guest/cow-paths"
for flavour in 6.12-stock 6.12-stock-cowflush 6.1-stock 6.1-stock-cowflush; do
	tap_require "$B/kernels/$flavour/bzImage"
	guest_tap "cow-wb-trace/$flavour" "$flavour" xfs-reflink tests/guest/cow-wb-trace.job
done
tap_done
