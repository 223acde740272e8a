#!/usr/bin/env bash
# The aware series carries an mm selftest (patch 9: map_pmem_aware, under
# tools/testing/selftests/mm on 6.12 and selftests/vm on 6.1) for what
# needs no DAX: MAP_SHARED_VALIDATE | MAP_PMEM_AWARE refused on a file
# and a memfd that are not DAX, the flag ignored by plain MAP_SHARED and
# private mappings. build-kernel.sh builds it with its own Makefile; each
# guest runs it from a directory that is not DAX.
#  - It passes on both ports, and on stock 6.12 with 6.12's binary: these
#    are the cases where the flag must change nothing.
#  - It can fail: on 6.12-aware-leakflag (test-knobs: do_mmap() keeps
#    VM_PMEM_AWARE without MAP_SHARED_VALIDATE, as MAP_SYNC keeps VM_SYNC)
#    its three cases of ignored flags fail, its three refusals still pass,
#    and it exits non-zero.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

ignored="nondax.shared_ignores_flag_file nondax.shared_ignores_flag_memfd nondax.private_ignores_flag"
refused="nondax.validate_refuses_file nondax.validate_refuses_memfd nondax.validate_refuses_sync_aware"

result_of() { # case -> ok | not ok | skip | (empty)
	printf '%s' "$GUEST_RESULTS" | awk -F'\t' -v n="$1" '$2 == n { print $1 }'
}
exit_of() { # label -> the selftest's exit status, as the guest printed it
	sed -n 's/^# map_pmem_aware exited \([0-9]*\)$/\1/p' "$RUNS/$1/guest.log"
}

echo "TAP version 13"
for f in 6.1-aware 6.12-aware 6.12-aware-leakflag; do
	tap_require "$B/kernels/$f/selftests/map_pmem_aware"
done

# flavour, then the flavour whose build the binary comes from.
for run in "6.1-aware 6.1-aware" "6.12-aware 6.12-aware" "6.12-stock 6.12-aware"; do
	read -r flavour from <<<"$run"
	GUEST_RUN_ARGS="--file map_pmem_aware=$B/kernels/$from/selftests/map_pmem_aware" \
		guest_tap "mm-selftest/$flavour" "$flavour" none tests/guest/mm-selftest.job
	s=$(exit_of "mm-selftest/$flavour")
	[ "$s" = 0 ]
	tap_ok $? "mm-selftest/$flavour: map_pmem_aware exits 0 (got '${s:-none}')"
done

label=mm-selftest/6.12-aware-leakflag
GUEST_TAP_EMIT=0 GUEST_RUN_ARGS="--file map_pmem_aware=$B/kernels/6.12-aware-leakflag/selftests/map_pmem_aware" \
	guest_tap "$label" 6.12-aware-leakflag none tests/guest/mm-selftest.job
grep -qF "mmap: TEST ONLY: MAP_PMEM_AWARE kept without MAP_SHARED_VALIDATE" "$RUNS/$label/console.log"
tap_ok $? "$label: the kernel says it keeps the flag on purpose"
for name in $ignored; do
	got=$(result_of "$name")
	[ "$got" = "not ok" ]
	tap_ok $? "$label: the leak is caught: '$name' fails (got: ${got:-missing})"
done
for name in $refused; do
	got=$(result_of "$name")
	[ "$got" = ok ]
	tap_ok $? "$label: '$name' still passes (got: ${got:-missing})"
done
s=$(exit_of "$label")
[ -n "$s" ] && [ "$s" != 0 ]
tap_ok $? "$label: map_pmem_aware exits non-zero (got '${s:-none}')"
tap_done
