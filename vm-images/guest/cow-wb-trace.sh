#!/bin/sh
# cow-wb-trace.sh DIR [PROGRAM]: does the kernel write back what a DAX
# copy-on-write copies? No cache model needed: run it as root on any
# machine with persistent memory (or an emulated NVDIMM), tracefs and
# CONFIG_KPROBE_EVENTS, with DIR on a DAX mount of xfs made with
# reflink=1 (mount -o dax=always).
#
# PROGRAM (default: cow-paths, examples/cow-writeback/cow-paths.c) makes
# the kernel copy shared blocks by each path, phase by phase (fault under
# MAP_SYNC, write(2), FALLOC_FL_UNSHARE_RANGE), and announces each phase
# in the trace. Kprobes record every copy_mc_to_kernel() made inside the
# CoW copy (dax_iomap_copy_around(), or dax_iomap_cow_copy() on 6.1, and
# dax_file_unshare()), every write-back (arch_wb_cache_pmem(), which
# dax_flush() and dax_writeback_one() use) and every remap commit
# (xfs_reflink_end_cow()). Each copied 64-byte line is then written back
# before its remap was committed, after it, or never. Prints one line per
# phase and a verdict; exit 0: every copied line written back before the
# commit; 1: some were not; 2: the check could not be made.
#
# Addresses are compared by their low 48 bits (one direct map).
set -eu
# busybox ash and bash have pipefail; a plain POSIX sh may not.
# shellcheck disable=SC3040
if (set -o pipefail) 2>/dev/null; then set -o pipefail; fi

die() { echo "cow-wb-trace: $*" >&2; exit 2; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then die "usage: cow-wb-trace.sh DIR [PROGRAM]"; fi
dir=$1
prog=${2:-cow-paths}
[ -d "$dir" ] || die "$dir is not a directory"
[ "$(id -u)" = 0 ] || die "kprobes need root"
tr=/sys/kernel/tracing
[ -w "$tr/kprobe_events" ] || tr=/sys/kernel/debug/tracing
[ -w "$tr/kprobe_events" ] ||
	die "no writable kprobe_events in /sys/kernel/tracing (mount -t tracefs nodev /sys/kernel/tracing; CONFIG_KPROBE_EVENTS)"
has() { grep -q "^$1\$" "$2"; }
[ -r /proc/kallsyms ] || die "no /proc/kallsyms"
awk '$2 == "t" || $2 == "T" { print $3 }' /proc/kallsyms >"${TMPDIR:-/tmp}/cowwb.syms" ||
	die "cannot read /proc/kallsyms"
syms=${TMPDIR:-/tmp}/cowwb.syms
copy=
for f in dax_iomap_copy_around dax_iomap_cow_copy; do
	if has "$f" "$syms"; then copy=$f; break; fi
done
[ -n "$copy" ] || die "neither dax_iomap_copy_around nor dax_iomap_cow_copy in /proc/kallsyms (FS_DAX? inlined?)"
for f in dax_file_unshare copy_mc_to_kernel arch_wb_cache_pmem xfs_reflink_end_cow; do
	has "$f" "$syms" || die "$f not in /proc/kallsyms: this kernel cannot be traced this way"
done
rm -f "$syms"

inst=$tr/instances/cowwb
cleanup() {
	if [ -d "$inst" ]; then
		echo 0 >"$inst/events/cowwb/enable" 2>/dev/null || true
		rmdir "$inst" 2>/dev/null || true
	fi
	for e in around around_ret unshare unshare_ret mc wb endcow; do
		echo "-:cowwb/$e" >>"$tr/kprobe_events" 2>/dev/null || true
	done
	return 0
}
trap cleanup EXIT
cleanup
mkdir "$inst" || die "cannot create the trace instance $inst"
# x86-64 calling convention: arguments in di, si, dx, cx, r8.
{
	echo "p:cowwb/around $copy"
	echo "r:cowwb/around_ret $copy"
	echo "p:cowwb/unshare dax_file_unshare"
	echo "r:cowwb/unshare_ret dax_file_unshare"
	echo "p:cowwb/mc copy_mc_to_kernel dst=%di:x64 len=%dx:u32"
	echo "p:cowwb/wb arch_wb_cache_pmem addr=%di:x64 size=%si:u64"
	echo "p:cowwb/endcow xfs_reflink_end_cow"
} >>"$tr/kprobe_events" 2>/dev/null || die "the kernel refused a kprobe (see $tr/error_log)"
echo 16384 >"$inst/buffer_size_kb"
echo 1 >"$inst/events/cowwb/enable"
echo 1 >"$inst/tracing_on"

COWWB_MARKER=$inst/trace_marker
export COWWB_MARKER
status=0
"$prog" "$dir" || status=$?
echo 0 >"$inst/tracing_on"
[ "$status" -eq 0 ] || die "$prog $dir failed (exit $status)"
cp "$inst/trace" "${TMPDIR:-/tmp}/cowwb.trace"

awk -v copyfn="$copy" '
function hex48(s,   i, v) {
	sub(/^0x/, "", s)
	if (length(s) > 12) s = substr(s, length(s) - 11)
	v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
	return v
}
function arg(name,   i, kv) {
	for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
	return ""
}
/^#/ { next }
{
	ev = ""; pid = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^\[[0-9]+\]$/ && pid == "") { p = $(i - 1); sub(/.*-/, "", p); pid = p }
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { ev = $(i + 1); break }
	}
	if (ev == "") next
	if (ev == "tracing_mark_write:") {
		for (i = 1; i <= NF; i++) if (index($i, "phase=") == 1) phase = substr($i, 7)
		if (phase != "end" && !(phase in seen)) { seen[phase] = 1; order[++nph] = phase }
		next
	}
	if (ev == "around:" || ev == "unshare:") { depth[pid]++; next }
	if (ev == "around_ret:" || ev == "unshare_ret:") { if (depth[pid] > 0) depth[pid]--; next }
	if (ev == "mc:") {
		if (depth[pid] < 1 || phase == "" || phase == "end") next
		a = hex48(arg("dst")); n = arg("len") + 0
		if (n <= 0) next
		for (l = int(a / 64); l <= int((a + n - 1) / 64); l++) {
			if (!(l in st)) copied[phase]++
			st[l] = "C"; ph[l] = phase
		}
		next
	}
	if (ev == "wb:") {
		a = hex48(arg("addr")); n = arg("size") + 0
		if (n <= 0) next
		for (l = int(a / 64); l <= int((a + n - 1) / 64); l++) {
			if (!(l in st)) continue
			if (st[l] == "C") st[l] = "W"
			else if (st[l] == "K") st[l] = "L"
		}
		next
	}
	if (ev == "endcow:") { for (l in st) if (st[l] == "C") st[l] = "K"; next }
}
END {
	for (l in st) {
		if (st[l] == "W") before[ph[l]]++
		else if (st[l] == "L") late[ph[l]]++
		else never[ph[l]]++
	}
	bad = 0; missing = 0
	for (i = 1; i <= nph; i++) {
		p = order[i]
		if (!copied[p]) {
			printf "cow-wb-trace: %s: no CoW copy seen (not a shared DAX block?)\n", p
			missing = 1
			continue
		}
		printf "cow-wb-trace: %s: %d bytes copied by %s; written back before the remap was committed: %d, after it: %d, never: %d\n",
			p, copied[p] * 64, (p == "unshare" ? "dax_file_unshare" : copyfn), before[p] * 64, late[p] * 64, never[p] * 64
		if (late[p] + never[p]) bad++
	}
	if (nph == 0 || missing) { print "cow-wb-trace: the trace holds no phase or no copy: nothing was checked"; exit 2 }
	if (bad) { printf "cow-wb-trace: NOT WRITTEN BACK: %d of %d paths leave the copy in the CPU cache when the remap is committed\n", bad, nph; exit 1 }
	printf "cow-wb-trace: written back: on all %d paths every copied line was written back before the remap was committed\n", nph
}' "${TMPDIR:-/tmp}/cowwb.trace"
