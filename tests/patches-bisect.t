#!/usr/bin/env bash
# Every series is bisectable: after each of its patches the files it
# touches still build (vm-images/check-bisect.sh, cached per series). The
# check must be able to fail: the 6.12 series with its ext4 patch moved
# before the patch that defines FOP_MMAP_PMEM_AWARE ends in the very same
# tree, so only a per-patch build catches it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

echo "TAP version 13"
for spec in "6.1 rdfix cow-flush aware" "6.12 cow-flush aware"; do
	# shellcheck disable=SC2086
	vm-images/check-bisect.sh $spec >"$RUNS/bisect.out" 2>"$RUNS/bisect.err"
	rc=$?
	sed 's/^/# /' "$RUNS/bisect.out"
	[ $rc -eq 0 ] || sed 's/^/# /' "$RUNS/bisect.err"
	tap_ok $rc "series $spec: every patch builds on its own"
done

planted=$RUNS/bisect-planted
rm -rf "$planted"
mkdir -p "$planted/6.12/aware"
cp vm-images/patches/6.12/aware/000[1-9]-*.patch "$planted/6.12/aware/"
mv "$planted"/6.12/aware/0006-ext4-*.patch "$planted/6.12/aware/0000a-ext4-first.patch"
PMEM_PATCHES=$planted vm-images/check-bisect.sh 6.12 aware >"$RUNS/bisect.out" 2>"$RUNS/bisect.err"
rc=$?
grep 'does not build' "$RUNS/bisect.err" | sed 's/^/# /'
[ $rc -ne 0 ] && grep -q 'after patch 1 (6.12/aware/0000a-ext4-first.patch) the tree does not build' \
	"$RUNS/bisect.err"
tap_ok $? "a series whose first patch uses a flag a later one defines is caught at patch 1"
tap_done
