#!/usr/bin/env bash
# The guest runner's watchdog on real guests: a kernel panic, a job that
# hangs and a guest that never boots are each detected, reported in one
# line and in vm.json, and leave no QEMU behind; bad input is refused.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
echo "TAP version 13"

# run_case NAME [harness options...]: runs with --fs raw so that the QEMU
# command line names the run directory and a leftover QEMU can be found.
run_case() {
	local name=$1
	shift
	out=$RUNS/watchdog-$name
	rm -rf "$out"
	"$H" run --kernel 6.1-stock --fs raw --raw-size $((64 << 20)) --out "$out" \
		--accel "${ACCEL:-auto}" --quiet "$@" >"$out.stdout" 2>"$out.stderr"
	rc=$?
	status=$(jq -r .status "$out/vm.json" 2>/dev/null)
}

no_qemu_left() {
	! pgrep -f "$out/nvdimm.img" >/dev/null
}

echo 'echo ran; exit 7' >"$RUNS/exit7.sh"
run_case exit --script "$RUNS/exit7.sh"
[ "$rc" -eq 7 ] && [ "$status" = ok ] && grep -qx ran "$out/guest.log"
tap_ok $? "job exit status and output come back (rc $rc, status $status)"
boot=$(jq -r .boot_seconds "$out/vm.json")
accel=$(jq -r .accel.name "$out/vm.json")
echo "# boot to userspace: ${boot} s under $accel ($(jq -r .accel.reason "$out/vm.json"))"
qv=$(jq -r .qemu.version "$out/vm.json")
[ -n "$qv" ] && [ "$qv" != null ] && { [ "$accel" = tcg ] || [ "$accel" = kvm ]; }
tap_ok $? "vm.json records QEMU $qv and accelerator $accel"

run_case panic --script "$RUNS/exit7.sh" --append rdinit=/bin/false
[ "$rc" -eq 125 ] && [ "$status" = kernel-failure ] &&
	[ "$(jq -r .console_event "$out/vm.json")" = panic ] &&
	grep -q 'guest kernel panic.*console.log' "$out.stderr"
tap_ok $? "kernel panic detected and reported with the console log path (rc $rc, status $status)"
sed 's/^/# /' "$out.stderr"
no_qemu_left
tap_ok $? "no QEMU left after the panic"

# The panic above is this test's own; any other splat fails it (tap_done).
tap_console_expect $'^panic\t'

# A WARNING reaches the console the way the kernel's own do: through printk
# (here /dev/kmsg). The guest goes on, the run keeps its status, and the
# suite's record of splats (PMEM_GUEST_EVENTS) names it, so the test that
# booted it fails: shown here in a subshell, the record then cleared.
printf '%s\n' 'echo "WARNING: CPU: 0 PID: 1 at fs/dax.c:1 planted_by_the_suite" >/dev/kmsg' \
	'sleep 1; exit 0' >"$RUNS/warn.sh"
run_case warning --script "$RUNS/warn.sh"
[ "$rc" -eq 0 ] && [ "$status" = ok ] && [ "$(jq -r .console_event "$out/vm.json")" = warning ] &&
	grep -q 'guest kernel warning.*planted_by_the_suite' "$out.stderr"
tap_ok $? "a kernel WARNING is recorded in vm.json and said in one line (rc $rc, status $status)"
verdict=$( (TAP_N=0 TAP_FAILED=0 TAP_CONSOLE_EXPECTED=$'^panic\t'; tap_console_check) )
[[ $verdict == "not ok 1 guest kernel warning on the console: "*planted_by_the_suite*"$out/console.log)" ]]
tap_ok $? "the WARNING fails the test that booted the guest: '$verdict'"
: >"$PMEM_GUEST_EVENTS"

echo 'sleep 600' >"$RUNS/hang.sh"
run_case hang --script "$RUNS/hang.sh" --timeout 5
[ "$rc" -eq 125 ] && [ "$status" = run-timeout ] && [ "$(wc -l <"$out.stderr")" -eq 1 ]
tap_ok $? "hung job killed after its timeout, one error line (rc $rc, status $status)"
sed 's/^/# /' "$out.stderr"
no_qemu_left
tap_ok $? "no QEMU left after the hang"

# /bin/cat as init waits on the console forever: the guest never says hello.
run_case noboot --script "$RUNS/exit7.sh" --append rdinit=/bin/cat --boot-timeout 8
[ "$rc" -eq 125 ] && [ "$status" = boot-timeout ]
tap_ok $? "guest that never boots is detected (rc $rc, status $status)"
no_qemu_left
tap_ok $? "no QEMU left after the boot timeout"

"$H" run --kernel 6.1-nosuch --fs ext4 --script "$RUNS/exit7.sh" --out "$RUNS/bad" 2>"$RUNS/bad.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$RUNS/bad.err")" -eq 1 ] && grep -q "make kernels" "$RUNS/bad.err"
tap_ok $? "unknown flavour: one line naming the fix ($(cat "$RUNS/bad.err"))"
"$H" run --kernel 6.1-stock --fs btrfs --script "$RUNS/exit7.sh" --out "$RUNS/bad" 2>"$RUNS/bad.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$RUNS/bad.err")" -eq 1 ] && grep -q "ext4, xfs" "$RUNS/bad.err"
tap_ok $? "unknown filesystem: one line listing the known ones ($(cat "$RUNS/bad.err"))"
# Input files travel as data (proto/job_files.h): every byte value, an
# executable kept executable, a data file not; a name that is not one safe
# path component is refused before the guest gets anything.
head -c 262144 /dev/urandom >"$RUNS/bytes.bin"
printf '#!/bin/sh\necho tool ran\n' >"$RUNS/tool.sh"
chmod +x "$RUNS/tool.sh"
printf 'sha256sum /tmp/in/data\n/tmp/in/tool\n[ ! -x /tmp/in/data ] && echo data not executable\n' >"$RUNS/files.sh"
run_case files --script "$RUNS/files.sh" --file "data=$RUNS/bytes.bin" --file "tool=$RUNS/tool.sh"
want=$(sha256sum <"$RUNS/bytes.bin")
[ "$rc" -eq 0 ] && grep -qx "${want%% *}  /tmp/in/data" "$out/guest.log" && grep -qx "tool ran" "$out/guest.log" &&
	grep -qx "data not executable" "$out/guest.log"
tap_ok $? "input files arrive byte for byte in /tmp/in, an executable one executable (rc $rc)" "$out/guest.log"
run_case badname --script "$RUNS/files.sh" --file "../data=$RUNS/bytes.bin"
[ "$rc" -eq 125 ] && grep -q "could not send the guest its input file ../data: ../data is no name" "$out.stderr"
tap_ok $? "an input file named ../data is refused, the guest given nothing (rc $rc)" "$out.stderr"
vm-images/build-kernel.sh 6.1-nosuch 2>"$RUNS/bad.err"
rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <"$RUNS/bad.err")" -eq 1 ] && grep -q "known:" "$RUNS/bad.err"
tap_ok $? "build-kernel.sh refuses an unknown flavour in one line"
tap_done
