#!/usr/bin/env bash
# What the CoW write-back costs, in guest kernel instructions counted by
# the insn-per-fault TCG plugin (deterministic: it does not move with host
# load). For each kernel, one guest runs cow-paths --cost: three rounds of
# FALLOC_FL_UNSHARE_RANGE of a freshly cloned 2 MiB file (one 2 MiB copy,
# the copy a PMD fault makes), a 2 MiB aligned pwrite() into it and a
# 64-byte pwrite() mid-page. Prints the median of each call's own kernel
# instructions per kernel, and the difference.
#
#   examples/cow-writeback/cost.sh [STOCK FIXED]   (default 6.12-stock 6.12-stock-cowflush)
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
stock=${1:-6.12-stock}
fixed=${2:-6.12-stock-cowflush}
out=${COST_OUT:-build/cow-cost}
plugin=build/plugins/insn-per-fault.so
for f in "$plugin" build/pmem-harness "build/kernels/$stock/bzImage" "build/kernels/$fixed/bzImage"; do
	[ -e "$f" ] || { echo "cost: $f is missing: run 'make all test-kernels images'" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "-") }'; }
declare -A own
for k in "$stock" "$fixed"; do
	build/pmem-harness run --kernel "$k" --fs xfs-reflink --script examples/cow-writeback/cost.job \
		--out "$out/$k" --accel tcg --quiet --plugin "$plugin,out=$out/$k.insn" >"$out/$k.log" 2>&1 ||
		{ echo "cost: the guest on $k failed: see $out/$k.log and $out/$k/" >&2; exit 1; }
	# One line per interval, "vcpu own irq other": unshare, pwrite 2 MiB,
	# pwrite 64 B, three rounds.
	grep -v '^#' "$out/$k.insn" >"$out/$k.rows"
	[ "$(wc -l <"$out/$k.rows")" -eq 9 ] ||
		{ echo "cost: $out/$k.insn has $(wc -l <"$out/$k.rows") intervals, not 9" >&2; exit 1; }
	for op in 0 1 2; do
		own[$k.$op]=$(awk -v op="$op" '(NR - 1) % 3 == op { print $2 }' "$out/$k.rows" | median)
	done
done
printf '%-34s %14s %14s %12s\n' "call (own kernel instructions)" "$stock" "$fixed" "difference"
names=("unshare 2 MiB (= a PMD CoW copy)" "pwrite 2 MiB, aligned" "pwrite 64 B mid-page")
for op in 0 1 2; do
	printf '%-34s %14s %14s %12s\n' "${names[$op]}" "${own[$stock.$op]}" "${own[$fixed.$op]}" \
		"$((${own[$fixed.$op]} - ${own[$stock.$op]}))"
done
