#!/usr/bin/env bash
# The dirty-tracking tests must be able to fail. On a kernel whose two gates
# are removed (dax_aware_test=nogate), faults through an aware mapping are
# tracked again: every "dirty-tracking aware" case must fail there (the
# dax_insert_entry gate), and so must every "dirty-tracking sync+aware" case
# (synchronous faults are tagged only in dax_insert_pfn_mkwrite), while the
# legacy shared cases still pass. Both ports (6.1 and 6.12) have such a
# kernel. On one that write-protects aware mappings on a legacy
# write-back (=wpaware, v1) the refault case must fail. The two are one
# kernel per version (patch set test-knobs), each broken by its boot
# parameter, which its console names. (Series v1's untracked CoW fault,
# =cowuntracked, is the series itself since v3: on top of the CoW
# write-back fix it loses nothing, tests/adr.t.)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

result_of() { # case name -> ok | not ok | skip | (empty)
	printf '%s' "$GUEST_RESULTS" | awk -F'\t' -v n="$1" '$2 == n { print $1 }'
}

# The broken ports are one build per version (patch set test-knobs),
# broken by a boot parameter: its guest must say the port is broken on
# purpose, and how, or the failures below would prove nothing.
knob_on() { # label knob
	grep -qF "dax: TEST ONLY: MAP_PMEM_AWARE broken on purpose ($2)" "$RUNS/$1/console.log"
	tap_ok $? "$1: the kernel says it is broken on purpose (dax_aware_test=$2)"
}

echo "TAP version 13"
for version in 6.1 6.12; do
	# The guest's own failures are this test's expected result: collect, do not emit.
	GUEST_TAP_EMIT=0 guest_tap "nogate-$version/ext4" "$version-aware-nogate" ext4 \
		tests/guest/semantics.job
	knob_on "nogate-$version/ext4" nogate

	for mode in aware sync+aware; do
		for layout in hole prealloc; do
			for sync in fsync msync; do
				name="dirty-tracking $mode $layout $sync"
				got=$(result_of "$name")
				[ "$got" = "not ok" ]
				tap_ok $? "$version: broken port caught: '$name' fails (got: ${got:-missing})"
			done
		done
	done
	# The other cases that count write-backs of aware faults must fail too.
	for name in "fork-child-stays-aware" "pmd-dirty-tracking aware" "pmd-dirty-tracking sync+aware"; do
		got=$(result_of "$name")
		[ "$got" = "not ok" ]
		tap_ok $? "$version: broken port caught: '$name' fails (got: ${got:-missing})"
	done
	got=$(result_of "dirty-tracking shared hole fsync")
	[ "$got" = "ok" ]
	tap_ok $? "$version: legacy shared mapping still passes on the broken port (got: ${got:-missing})"
done

# Series v1 write-protected aware mappings on a legacy write-back too (patch 5
# reverted): the aware stores after a legacy msync refault there, and the
# legacy mapping's own write-back still works.
for version in 6.1 6.12; do
	GUEST_TAP_EMIT=0 guest_tap "wpaware-$version/ext4" "$version-aware-wpaware" ext4 \
		tests/guest/semantics.job
	knob_on "wpaware-$version/ext4" wpaware
	got=$(result_of "legacy-msync-leaves-aware-writable")
	[ "$got" = "not ok" ]
	tap_ok $? "$version: v1 write-back caught: 'legacy-msync-leaves-aware-writable' fails (got: ${got:-missing})"
	got=$(result_of "aware-msync-writes-back-legacy-writes")
	[ "$got" = "ok" ]
	tap_ok $? "$version: 'aware-msync-writes-back-legacy-writes' still passes there (got: ${got:-missing})"
done
tap_done
