#!/usr/bin/env bash
# The dirty-tracking test must be able to fail. On a kernel whose
# dax_insert_entry gate is removed (patch set test-nogate), writes through an
# aware mapping are tracked again, so every "dirty-tracking aware" case must
# fail there, while the legacy shared cases still pass. Both ports (6.1 and
# 6.12) have such a kernel.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

result_of() { # case name -> ok | not ok | skip | (empty)
	printf '%s' "$GUEST_RESULTS" | awk -F'\t' -v n="$1" '$2 == n { print $1 }'
}

echo "TAP version 13"
for version in 6.1 6.12; do
	# The guest's own failures are this test's expected result: collect, do not emit.
	GUEST_TAP_EMIT=0 guest_tap "nogate-$version/ext4" "$version-aware-nogate" ext4 \
		tests/guest/semantics.job

	for layout in hole prealloc; do
		for sync in fsync msync; do
			name="dirty-tracking aware $layout $sync"
			got=$(result_of "$name")
			[ "$got" = "not ok" ]
			tap_ok $? "$version: broken port caught: '$name' fails (got: ${got:-missing})"
		done
	done
	got=$(result_of "dirty-tracking shared hole fsync")
	[ "$got" = "ok" ]
	tap_ok $? "$version: legacy shared mapping still passes on the broken port (got: ${got:-missing})"
done
tap_done
