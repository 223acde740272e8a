#!/usr/bin/env bash
# A kernel of the user's own, by its path (not a flavour name): here a
# built tree, a directory with a .config and arch/x86/boot/bzImage as an
# O= build leaves them, holding our 6.12-aware kernel as a developer's
# build would (tests/long/user-kernel-tree.t builds a source tree from
# scratch: make test-long):
#  - --name maps the path to a name of its own; make bench KERNELS= and make
#    crashtest KERNELS= take the path;
#  - it is checked, published under that name with a kernel.json that says
#    whose it is, and the probe (semantics probe, in a guest) finds
#    MAP_PMEM_AWARE in it, and not in 6.1-stock; its bzImage alone is taken
#    too;
#  - crashtest --kernel <name> with ack-late.c: every crash image intact;
#  - bench of 6.1-stock and it: the aware mode ran on it and wrote nothing
#    back, and not on 6.1-stock; compare sets the two kernels side by side;
#  - a config without FS_DAX, or with XFS as a module, is refused in one
#    line, as a config file and as a built tree given by its path.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
BK=vm-images/build-kernel.sh
top=$RUNS/user-kernel
out=$top/results
echo "TAP version 13"
tap_require "$H" "$B/kernels/6.1-stock/bzImage" "$B/kernels/6.12-aware/bzImage" "$B/kernels/6.12-aware/config" \
	"$B/initramfs.cpio" "$B/initramfs-crash.cpio" "$B/images/ext4.img"
rm -rf "$out"
mkdir -p "$out"

# The user's build: a directory as make O=... leaves it (copies, not links:
# the path is the user's, and its key is its bzImage's bytes).
tree=$top/o-6.12
rm -rf "$tree"
mkdir -p "$tree/arch/x86/boot"
cp "$B/kernels/6.12-aware/config" "$tree/.config" &&
	cp "$B/kernels/6.12-aware/bzImage" "$tree/arch/x86/boot/bzImage"
tap_ok $? "a built tree (.config, arch/x86/boot/bzImage) holding a 6.12 kernel with the series"
tree=$(realpath "$tree")

name=$($BK --name "$tree")
[[ $name == user-o-6.12-[0-9a-f]* ]] && [ "$($BK --name 6.1-stock "$tree/")" = "6.1-stock
$name" ]
tap_ok $? "--name maps the tree to $name and a flavour to itself"
# Whole outputs first: grep -q closing the pipe early would fail make under
# pipefail, as it did once from a fresh clone.
make -n bench KERNELS="6.1-stock $tree" >"$out/make-bench.n" 2>/dev/null
make -n crashtest KERNELS="$tree" PROGRAM=x.c >"$out/make-crashtest.n" 2>/dev/null
grep -qF -- "--kernels \"6.1-stock $name\"" "$out/make-bench.n" &&
	grep -qF -- "crashtest --kernel $name " "$out/make-crashtest.n"
tap_ok $? "make bench KERNELS= and make crashtest KERNELS= take the path"

$BK "$tree" 2>"$out/build.err"
rc=$?
sed 's/^/# /' "$out/build.err"
k=$B/kernels/$name
[ "$rc" -eq 0 ] && [ -e "$k/bzImage" ] && [ -e "$k/config" ] &&
	grep -q "^build-kernel: $tree ready as $name (MAP_PMEM_AWARE: true): .*/kernels/$name/bzImage$" "$out/build.err"
tap_ok $? "checked and published as $name, with its config; the probe found MAP_PMEM_AWARE"
jq -e --arg p "$tree" --arg c "$(sha256sum <"$tree/.config" | cut -d' ' -f1)" \
	'.user == true and .kind == "built" and .path == $p and .config_sha256 == $c and
	 (.release | startswith("6.12.")) and .patch_sets == [] and .map_pmem_aware == true' \
	"$k/kernel.json" >/dev/null
tap_ok $? "kernel.json: a user's kernel, its path, release, config hash, no patch sets, MAP_PMEM_AWARE found"
$BK "$tree/arch/x86/boot/bzImage" 2>"$out/bzimage.err"
rc=$?
pname=$($BK --name "$tree/arch/x86/boot/bzImage")
[ "$rc" -eq 0 ] && [ "$pname" != "$name" ] &&
	jq -e '.kind == "bzimage" and .map_pmem_aware == true' "$B/kernels/$pname/kernel.json" >/dev/null
tap_ok $? "its bzImage alone: published as $pname, MAP_PMEM_AWARE found"

# The probe on a kernel without the flag answers no (exit 3).
printf '. /usr/share/pmem/lib.sh\npmem_mount\nsemantics probe /mnt\n' >"$out/probe.sh"
"$H" run --kernel 6.1-stock --fs ext4 --script "$out/probe.sh" --out "$out/probe-stock" --quiet \
	>/dev/null 2>"$out/probe-stock.err"
rc=$?
sed 's/^/# 6.1-stock: /' "$out/probe-stock/guest.log"
[ "$rc" -eq 3 ] && grep -q '^map_pmem_aware: no (.*Operation not supported)' "$out/probe-stock/guest.log"
tap_ok $? "the probe finds no MAP_PMEM_AWARE in 6.1-stock (exit $rc)"

$BK --check-config "$B/kernels/6.1-stock/bzImage" 2>"$out/noikconfig.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(wc -l <"$out/noikconfig.err")" -eq 1 ] && grep -q 'cannot be checked' "$out/noikconfig.err"
tap_ok $? "a bzImage without IKCONFIG: one line says its config cannot be checked"

# A kernel without FS_DAX. Building one costs a kernel build, so the check
# runs on an edited copy of the real config: --check-config FILE runs the
# same check_config() that build-kernel.sh PATH runs on a tree's .config and
# on the config it reads out of a bzImage, before anything is published.
sed '/^CONFIG_FS_DAX=y$/d' "$tree/.config" >"$out/nodax.config"
$BK --check-config "$out/nodax.config" 2>"$out/nodax.err"
rc=$?
sed "s/^/# /" "$out/nodax.err"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$out/nodax.err")" -eq 1 ] &&
	grep -qx "build-kernel: $out/nodax.config lacks CONFIG_FS_DAX=y, which the guest needs: enable it (vm-images/config/guest.config lists them)" "$out/nodax.err"
tap_ok $? "a config without FS_DAX is refused in one line naming it and the fix"
sed 's/^CONFIG_XFS_FS=y$/CONFIG_XFS_FS=m/' "$tree/.config" >"$out/xfsmod.config"
$BK --check-config "$out/xfsmod.config" 2>"$out/xfsmod.err"
[ $? -eq 1 ] && [ "$(wc -l <"$out/xfsmod.err")" -eq 1 ] && grep -q 'has CONFIG_XFS_FS=m, but the guest loads no modules' "$out/xfsmod.err"
tap_ok $? "=m counts as missing: the guest loads no modules"
# The same through a path: a built tree without FS_DAX is refused and not
# published.
mkdir -p "$out/nodax-tree/arch/x86/boot"
cp "$out/nodax.config" "$out/nodax-tree/.config"
cp "$tree/arch/x86/boot/bzImage" "$out/nodax-tree/arch/x86/boot/bzImage"
$BK "$out/nodax-tree" 2>"$out/nodax-tree.err"
rc=$?
sed "s/^/# /" "$out/nodax-tree.err"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$out/nodax-tree.err")" -eq 1 ] && grep -q 'lacks CONFIG_FS_DAX=y' "$out/nodax-tree.err" &&
	[ ! -e "$B/kernels/$($BK --name "$out/nodax-tree")" ]
tap_ok $? "a built tree without FS_DAX is refused in one line and not published"

# crashtest on it, as make crashtest KERNELS=<tree> runs it.
t0=$(date +%s)
"$H" crashtest --kernel "$name" --program tests/fixtures/ack-late.c --fs ext4 --checkers 1 \
	--results "$out" --run-id crash >"$out/crash.out" 2>"$out/crash.err"
rc=$?
t1=$(date +%s)
grep -E '^ *program |crash images in' "$out/crash.out" | sed 's/^/# /'
n=$(jq '.scenarios[0].images' "$out/crash/crash/summary.json" 2>/dev/null)
intact=$(jq '.scenarios[0].verdicts.intact' "$out/crash/crash/summary.json" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "${n:-0}" -gt 0 ] && [ "$intact" = "$n" ]
tap_ok $? "crashtest --kernel $name: all ${n:-0} crash images intact ($((t1 - t0)) s)"
jq -e --arg k "$name" --arg p "$tree" '.kernels[$k].user == true and .kernels[$k].path == $p' \
	"$out/crash/run.json" >/dev/null
tap_ok $? "the crashtest run records the kernel's identity"

# bench of 6.1-stock and the user's kernel, as make bench KERNELS= runs it.
t0=$(date +%s)
"$H" bench --kernels "6.1-stock $name" --fs ext4 --modes "shared aware" --jobs tests/fixtures/tiny.fio \
	--reps 1 --no-peer --results "$out" --run-id bench >"$out/bench.out" 2>"$out/bench.err"
rc=$?
t1=$(date +%s)
grep '^bench: .*MAP_PMEM_AWARE\|^bench: .*patch set' "$out/bench.err" | sed 's/^/# /'
echo "# bench of 2 guests: $((t1 - t0)) s"
[ "$rc" -eq 0 ] &&
	grep -qx "bench: 6.1-stock has no aware patch set: only shared and sync run on it" "$out/bench.err" &&
	grep -qx "bench: $name has MAP_PMEM_AWARE (probed in a guest): every mode runs on it" "$out/bench.err"
tap_ok $? "bench says in one line per kernel where the aware modes run"
c=$out/bench/cells
wb() { jq '[.reps[].result.jobs[] | select(.jobname == "tiny-msync") | .pmem.tracepoints.dax_writeback_one] | max' "$1"; }
wb_shared=$(wb "$c/${name}__ext4__shared__tiny.json" 2>/dev/null)
wb_aware=$(wb "$c/${name}__ext4__aware__tiny.json" 2>/dev/null)
[ "${wb_shared:-x}" = 256 ] && [ "${wb_aware:-x}" = 0 ] && [ -e "$c/6.1-stock__ext4__shared__tiny.json" ] &&
	[ ! -e "$c/6.1-stock__ext4__aware__tiny.json" ]
tap_ok $? "aware ran on $name (msync wrote back ${wb_aware:-?} entries, shared ${wb_shared:-?}), not on 6.1-stock"
jq -e --arg k "$name" '.kernels[$k].map_pmem_aware == true and .kernels[$k].user == true and
	.kernels["6.1-stock"].patch_sets == []' "$out/bench/run.json" >/dev/null
tap_ok $? "run.json carries both kernels' identities"
"$H" compare "$out/bench" >"$out/compare.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "$name" "$out/compare.out" && grep -q 'tiny-msync' "$out/compare.out"
tap_ok $? "compare sets 6.1-stock and $name side by side"
tap_done
