#!/usr/bin/env bash
# Time a cold 'make test' phase by phase, as CI runs it: a fresh clone of
# HEAD, an empty cache, and make test's steps in make test's order, each
# timed on its own. Prints a markdown table (also kept in WORKDIR/phases.md)
# with the slowest test files under it.
#
#   vm-images/time-cold-run.sh [WORKDIR]     (root: set-up installs packages)
#
# WORKDIR (default: a new directory under /tmp) gets the clone, the cache
# (PMEM_CACHE) and one log per phase. Nothing of the caller's cache or
# build/ is read or written. Expect an hour or more on 2 cores.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/pmem-cold.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
export PMEM_CACHE=$work/cache
[ ! -e "$work/clone" ] || { echo "time-cold-run: $work/clone exists: give an empty WORKDIR" >&2; exit 1; }
mkdir -p "$PMEM_CACHE" "$work/logs"
git clone -q "$top" "$work/clone"
cd "$work/clone"

table=$work/phases.md
total=0
printf '| phase | seconds | status |\n|---|---:|---|\n' >"$table"
phase() { # name command...
	local name=$1 t0 rc=0 s
	shift
	t0=$(date +%s)
	"$@" >"$work/logs/${name// /-}.log" 2>&1 || rc=$?
	s=$(($(date +%s) - t0))
	total=$((total + s))
	printf '| %s | %d | %s |\n' "$name" "$s" "$([ "$rc" -eq 0 ] && echo ok || echo "failed ($rc)")" >>"$table"
	echo "time-cold-run: $name: $s s (status $rc)" >&2
}

# make test's own steps (Makefile, target test), one phase each.
# shellcheck disable=SC2016 # make expands these
read -r -a units <<<"$(make -s --no-print-directory --eval 'print-units: ; @echo $(UNIT_TESTS)' print-units)"
# shellcheck disable=SC2016
read -r -a fuzz <<<"$(make -s --no-print-directory --eval 'print-fuzz: ; @echo $(FUZZ_TARGETS)' print-fuzz)"
# shellcheck disable=SC2016
read -r -a kernels <<<"$(make -s --no-print-directory --eval 'print-kernels: ; @echo $(TEST_KERNELS)' print-kernels)"
phase "set-up (packages, plugin header)" vm-images/setup-host.sh
phase "shellcheck" make shellcheck
phase "programs, unit tests, fuzz targets" make all "${units[@]}" "${fuzz[@]}"
for k in "${kernels[@]}"; do
	phase "kernel $k" vm-images/build-kernel.sh "$k"
done
phase "images" make images
phase "xfstests root image" vm-images/build-xfstests.sh
phase "tests" tests/run.sh "${units[@]}" tests/*.t
printf '| **total** | **%d** | |\n' "$total" >>"$table"

# Each test file's wall time: prove -v --timer prints a file's name, its
# output, then "ok  N ms" (files run side by side, so stamps do not tell).
{
	echo
	echo "Slowest test files (prove --timer; they ran side by side, PMEM_TEST_JOBS at once):"
	echo
	awk '/^\[[0-9:]+\] [^ ]+ \.\./ { f = $2 }
		/^ok +[0-9]+ ms \(/ && f != "" { print $2 / 1000, f; f = "" }' build/test.log | sort -rn | awk 'NR <= 12 { printf "- %s: %d s\n", $2, $1 }'
} >>"$table"
cat "$table"
