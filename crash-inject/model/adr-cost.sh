#!/usr/bin/env bash
# What the ADR model costs: the same writer job in the same guest, with and
# without the adr-cache plugin, runs interleaved; prints the guest's job time
# (its hello to its exit report, as vm.json records it) for each, their
# medians and the ratio. Both are TCG: only the ratio means anything.
#
#   crash-inject/model/adr-cost.sh [JOB.fio] [REPS]     (make adr-cost)
set -euo pipefail
cd "$(dirname "$0")/../.."
job=${1:-workloads/crash/alloc-clwb.fio}
reps=${2:-3}
B=${PMEM_BUILD:-build}
kernel=${KERNEL:-$(vm-images/build-kernel.sh --default crashtest)}
plugin=$B/plugins/adr-cache.so
[ -x "$B/pmem-harness" ] || { echo "adr-cost: no $B/pmem-harness: run 'make'" >&2; exit 1; }
fs=${FS:-$("$B/pmem-harness" filesystems --default quick)}
[ -r "$plugin" ] || { echo "adr-cost: no $plugin: run 'make plugins' (needs QEMU >= 10)" >&2; exit 1; }
[ -r "$B/images/$fs.img" ] || { echo "adr-cost: no $B/images/$fs.img: run 'make images'" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/adr-cost.XXXXXX")
# The model's files in memory, as crashtest keeps them (crash-inject/model/adr.c).
mdir=$(mktemp -d /dev/shm/adr-cost.XXXXXX 2>/dev/null || mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$out" "$mdir"' EXIT

# The job without acknowledgements (no harness answers them here), sent to
# the guest as data: /tmp/in/job.fio.
sed 's/^verify=1/verify=0/' "$job" >"$out/job.fio"
{
	echo ". /usr/share/pmem/lib.sh"
	echo "pmem_mount"
	echo "mkdir -p /mnt/crash"
	echo "pmem-writer --no-trace --output /tmp/r.json /tmp/in/job.fio"
} >"$out/job.sh"

size=$(stat -L -c %s "$B/images/$fs.img")
region=$((size - 131072))
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for r in $(seq "$reps"); do
	for model in off on; do
		d=$out/$model-$r
		mkdir -p "$d"
		args=()
		if [ "$model" = on ]; then
			# run copies the golden image to $d/nvdimm.img; the durable
			# copy starts equal to it.
			cp --sparse=always "$B/images/$fs.img" "$mdir/durable"
			args=(--plugin "$plugin,base=0x100000000,size=$region,media=$d/nvdimm.img,durable=$mdir/durable,state=$mdir/state")
		fi
		"$B/pmem-harness" run --kernel "$kernel" --fs "$fs" --accel tcg --script "$out/job.sh" --file "job.fio=$out/job.fio" \
			--out "$d" --quiet "${args[@]}" >/dev/null 2>"$d/err" ||
			{ echo "adr-cost: the guest failed (model $model): $(tail -n 1 "$d/err")" >&2; exit 1; }
		t=$(jq -r '.run_seconds' "$d/vm.json")
		echo "$model $t" >>"$out/times"
		echo "adr-cost: rep $r, model $model: ${t} s"
	done
done
off=$(awk '$1 == "off" { print $2 }' "$out/times" | median)
on=$(awk '$1 == "on" { print $2 }' "$out/times" | median)
printf 'adr-cost: %s on %s (%s, TCG), %d reps: median job time %.2f s without the model, %.2f s with it: %.2fx\n' \
	"$job" "$fs" "$kernel" "$reps" "$off" "$on" "$(echo "$on / $off" | bc -l)"
