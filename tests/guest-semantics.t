#!/usr/bin/env bash
# MAP_PMEM_AWARE semantics under the stock, the aware and the aware+rdfix
# 6.1 kernels and the stock and aware 6.12 kernels (6.12 needs no rdfix), on
# ext4 and xfs, each in a fresh guest (tests/guest/semantics.c has the cases).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

echo "TAP version 13"
for flavour in 6.1-stock 6.1-aware 6.1-aware-rdfix 6.12-stock 6.12-aware; do
	for fs in ext4 xfs; do
		guest_tap "$flavour/$fs" "$flavour" "$fs" tests/guest/semantics.job
	done
done
tap_done
