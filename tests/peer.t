#!/usr/bin/env bash
# The reference peer does the writer's work. On the host: pmem-peer runs its
# command (and the command's children) with THP disabled, and passes its
# exit status on. In a guest, bench's peer job (workloads/jobs/peer.fio):
# fio's mmap and libpmem engines take the writer's faults, one 4 KiB fault
# per page of 32 MiB and no 2 MiB one, counted by the fs_dax tracepoints on
# both sides, and the summary shows both counts.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

P=$B/guest/pmem-peer
echo "TAP version 13"
# shellcheck disable=SC2016 # the guest shell expands it, not this one
[[ $("$P" --no-thp -- sh -c 'grep THP_enabled /proc/self/status') =~ ^THP_enabled:[[:space:]]+0$ ]]
tap_ok $? "--no-thp: the command's children run with THP disabled"
[[ $("$P" -- sh -c 'grep THP_enabled /proc/self/status') =~ ^THP_enabled:[[:space:]]+1$ ]]
tap_ok $? "without --no-thp THP stays enabled"
"$P" -- sh -c 'exit 3'
[ $? -eq 3 ]
tap_ok $? "the command's exit status is pmem-peer's"

runs=$RUNS/peer
rm -rf "$runs"
"$B/pmem-harness" bench --kernels 6.1-stock --fs ext4 --modes shared --jobs workloads/jobs/peer.fio \
	--reps 1 --results "$runs" --run-id peer --accel "${ACCEL:-auto}" >"$runs.out" 2>"$runs.err"
tap_ok $? "bench ran the peer job in a guest"
for mode in shared sync-libpmem fio-mmap fio-libpmem; do
	cell=$runs/peer/cells/6.1-stock__ext4__${mode}__peer.json
	got=$(jq -r '.reps[0].result.jobs[0].pmem.tracepoints | "\(.dax_pte_fault_done) \(.dax_pmd_fault_done)"' "$cell" 2>/dev/null)
	[ "$got" = "8192 0" ]
	tap_ok $? "$mode: 8192 4 KiB faults and no 2 MiB fault (got ${got:-nothing})"
done
[ "$(grep -c '8192 vs 8192' "$runs.out")" -eq 2 ]
tap_ok $? "the summary's peer table shows both sides' fault counts"
tap_done
