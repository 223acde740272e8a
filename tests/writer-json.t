#!/usr/bin/env bash
# pmem-writer's JSON has fio's --output-format=json shape where fio has one:
# real fio (ioengine=mmap) and pmem-writer run the same job on the host, and
# every path fio tooling reads must exist in both with the same JSON type.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "TAP version 13"
cat >"$dir/job.fio" <<JOB
[global]
directory=$dir
rw=write
bs=4k
size=1m

[seq]
JOB
fio --output-format=json --output="$dir/fio.json" --ioengine=mmap "$dir/job.fio" >/dev/null 2>&1
tap_ok $? "real fio ran the job (ioengine=mmap)"
build/guest/pmem-writer --no-trace --output "$dir/ours.json" "$dir/job.fio" 2>/dev/null
tap_ok $? "pmem-writer ran the same job file"

for path in '."fio version"' '.jobs[0].jobname' '.jobs[0].error' \
	'.jobs[0].write.io_bytes' '.jobs[0].write.io_kbytes' '.jobs[0].write.bw' '.jobs[0].write.bw_bytes' \
	'.jobs[0].write.iops' '.jobs[0].write.runtime' '.jobs[0].write.total_ios' \
	'.jobs[0].write.clat_ns.min' '.jobs[0].write.clat_ns.max' '.jobs[0].write.clat_ns.mean' \
	'.jobs[0].write.clat_ns.stddev' '.jobs[0].write.clat_ns.N' \
	'.jobs[0].write.clat_ns.percentile["50.000000"]' '.jobs[0].write.clat_ns.percentile["99.000000"]' \
	'.jobs[0].read.io_bytes' '.jobs[0].read.clat_ns.mean' '.jobs[0].sync.total_ios' \
	'.jobs[0].job_runtime' '.jobs[0].minf' '.jobs[0].majf'; do
	theirs=$(jq -r "$path | type" "$dir/fio.json" 2>/dev/null)
	ours=$(jq -r "$path | type" "$dir/ours.json" 2>/dev/null)
	# fio writes some numbers as integers and others as floats; both are "number".
	[ -n "$ours" ] && [ "$ours" != null ] && [ "$ours" = "$theirs" ]
	tap_ok $? "$path: fio has $theirs, pmem-writer has ${ours:-nothing}"
done
a=$(jq '.jobs[0].write.io_bytes' "$dir/fio.json")
b=$(jq '.jobs[0].write.io_bytes' "$dir/ours.json")
[ "$a" = "$b" ] && [ "$a" = 1048576 ]
tap_ok $? "both wrote the same bytes ($a vs $b)"
n=$(jq '.jobs[0].write.clat_ns.N' "$dir/ours.json")
[ "$n" = 256 ]
tap_ok $? "one completion latency per 4 KiB write ($n)"
tap_done
