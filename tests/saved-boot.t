#!/usr/bin/env bash
# Saved boots (vm/saved_boot.c): a crash writer or checker guest starts
# from a guest saved at its hello instead of booting, and judges as a
# guest that booted does.
#  - Into an empty cache, the first run boots once per configuration,
#    saves each (the writer's, the checkers'), and restores from them: its
#    writer's boot is in boot/console.log, its own console has none.
#  - The next run boots nothing. The planted ADR program (adr-noflush.c)
#    is lost with every ack pending and the same store to blame as in a
#    run that boots (PMEM_SAVED_BOOTS=0); its twin (adr-flush.c) is intact.
#  - A saved boot QEMU will not take (cut short) is said in one line and
#    removed, and the run boots and judges as before.
#  - A cache disk too full to save one: said in one line, and the run boots
#    and judges as before.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/saved-boot
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"
tap_require "$B/plugins/adr-cache.so" "$B/images/ext4.img" "$B/kernels/6.1-stock/bzImage" "$B/initramfs-crash.cpio"

# A cache of its own: what the first run finds is nothing.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export PMEM_CACHE=$cache
boots=$cache/saved-boots

crash() { # id program [env...]
	local id=$1 prog=$2
	shift 2
	env "$@" "$H" crashtest --program "tests/fixtures/$prog.c" --platform adr --fs ext4 --kernel 6.1-stock \
		--accel tcg --results "$out" --run-id "$id" >"$out/$id.out" 2>"$out/$id.err"
	RC=$?
	W=$out/$id/crash/program__ext4
}
# What a run judged: its verdicts, the acks it found pending, the stores
# blamed at its ack points (a time point can land in the kernel's stores).
judged() { # id
	jq -c --slurpfile im <(cat "$out/$1/crash/program__ext4"/image-*.json) \
		'.scenarios[0] | {lost: (.verdicts.lost > 0), intact: (.verdicts.lost == 0 and .verdicts["fs-corrupt"] == 0),
			pending: (.acked_not_durable // 0), acks,
			sites: ([$im[] | select(.taken == "ack") | .dropped_sites[]? | .site] | unique)}' "$out/$1/crash/summary.json"
}
states() { find "$boots" -name '*.state' 2>/dev/null | wc -l; }
boot_s() { jq -r '.scenarios[0].writer_phases.boot' "$out/$1/crash/summary.json"; }

crash first adr-noflush
first_states=$(states)
echo "# first run: exit $RC, $first_states saved boots, $(judged first)"
[ "$RC" -eq 1 ] && [ "$first_states" -eq 2 ] && grep -q 'Linux version' "$W/boot/console.log" &&
	! grep -q 'Linux version' "$W/console.log" && grep -q 'EXT4-fs (pmem0): mounted' "$W/console.log"
tap_ok $? "an empty cache: the writer's and the checkers' guests boot once, are saved, and the run restores from them" \
	"$out/first.err" "$out/first.out"

crash saved adr-noflush
saved=$(judged saved)
crash cold adr-noflush PMEM_SAVED_BOOTS=0
cold=$(judged cold)
echo "# restored: $saved, boot $(boot_s saved) s"
echo "# booted:   $cold, boot $(boot_s cold) s"
[ ! -e "$out/saved/crash/program__ext4/boot" ] && ! grep -q 'Linux version' "$out/saved/crash/program__ext4/console.log" &&
	grep -q 'Linux version' "$out/cold/crash/program__ext4/console.log" &&
	[ "$saved" = "$cold" ] && jq -e '.lost and .pending == .acks and (.sites | length) > 0' <<<"$saved" >/dev/null
tap_ok $? "restored, the planted program is lost with every ack pending and the same stores blamed as when it boots" \
	"$out/saved.err" "$out/cold.err"

crash twin adr-flush
echo "# twin: exit $RC, $(judged twin)"
[ "$RC" -eq 0 ] && jq -e '.intact and .pending == 0' <<<"$(judged twin)" >/dev/null
tap_ok $? "restored, the correct twin is intact" "$out/twin.err"

for s in "$boots"/*.state; do
	truncate -s 1M "$s"
done
crash cut adr-noflush
echo "# cut short: $(grep -c 'removed it, booting instead' "$out/cut.err") lines said, $(states) saved boots left, $(judged cut)"
grep -q "^pmem-harness: QEMU could not restore the saved guest $boots/.*removed it, booting instead\$" "$out/cut.err" &&
	[ "$(states)" -eq 0 ] && [ "$(judged cut)" = "$cold" ] && grep -q 'Linux version' "$W/console.log"
tap_ok $? "a saved boot cut short: said in one line, removed, and the run boots and judges as before" "$out/cut.err"

# A cache on a disk too small for a saved guest (tens of MiB each).
small=$(mktemp -d)
if ! mount -t tmpfs -o size=8m tmpfs "$small" 2>"$out/mount.err"; then
	tap_skip "a cache disk too full to save a guest: the runs boot, said in one line" \
		"cannot mount a tmpfs: $(head -n 1 "$out/mount.err")"
else
	PMEM_CACHE=$small
	boots=$small/saved-boots
	crash full adr-noflush
	echo "# full cache disk: $(grep -c 'booting instead' "$out/full.err") lines said, $(states) saved, $(judged full)"
	grep -q "^pmem-harness: could not save the guest into $boots/.*; booting instead: free room under $boots, or set PMEM_SAVED_BOOTS=0 to stop saving\$" "$out/full.err" &&
		[ "$(states)" -eq 0 ] && [ "$(judged full)" = "$cold" ] && [ -z "$(find "$boots" -name '*.tmp')" ]
	tap_ok $? "a cache disk too full to save a guest: the runs boot, said in one line, and judge as before; no part of a file is left" \
		"$out/full.err"
	umount "$small"
fi
rmdir "$small"

tap_done
