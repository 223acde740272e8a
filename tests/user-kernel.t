#!/usr/bin/env bash
# A kernel of the user's own, end to end (issue 13): a pristine
# linux-source-6.12 tree with our 6.12 series applied by hand with patch -p1,
# as a kernel developer's tree would be, given to build-kernel.sh as a path
# (not as a flavour):
#  - it is configured with our fragment and built out of tree into the cache,
#    leaving the tree as it was, and published under the name --name prints,
#    with a kernel.json that says whose it is;
#  - the probe (semantics probe, in a guest) finds MAP_PMEM_AWARE in it, and
#    not in 6.1-stock;
#  - crashtest --kernel <name> with ack-late.c: every crash image intact;
#  - bench of 6.1-stock and it: the aware mode ran on it and wrote nothing
#    back, and not on 6.1-stock; compare sets the two kernels side by side;
#  - its bzImage carries its config, which --check-config reads back;
#  - a config without FS_DAX is refused in one line, as a config file and as
#    a built tree given by its path.
# The first run builds the tree (about 10 minutes on 2 cores). The tree is
# kept in the cache, keyed by the series it carries, at the same path from
# every clone, so later runs (and CI's fresh clones) reuse its build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
BK=vm-images/build-kernel.sh
top=$RUNS/user-kernel
out=$top/results
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
series=$(cat vm-images/patches/6.12/aware/0[0-9][0-9][0-9]-*.patch | sha256sum | cut -c1-12)
tree=$cache/test-trees/linux-6.12-aware-$series
mkdir -p "$cache/test-trees"
echo "TAP version 13"

if [ ! -e /usr/src/linux-source-6.12.tar.xz ]; then
	tap_ok 1 "linux-source-6.12 is installed: run 'sudo make setup'"
	tap_done
fi
tap_require "$B/kernels/6.1-stock/bzImage" "$B/initramfs.cpio" "$B/images/ext4.img"
rm -rf "$out"
mkdir -p "$out"

# The user's tree: the cache's pristine 6.12 hard-linked (patch replaces
# the files it changes, so the pristine copy stays as it is), or extracted.
if [ ! -e "$tree.prepared" ]; then
	rm -rf "$tree" "$tree.tmp"
	pristine=$(find "$cache/src" -maxdepth 2 -path '*/linux-6.12-*/.extracted' -print -quit 2>/dev/null)
	if [ -n "$pristine" ]; then
		cp -al "$(dirname "$pristine")" "$tree.tmp" && rm -f "$tree.tmp/.extracted"
	else
		mkdir -p "$tree.tmp" &&
			tar -C "$tree.tmp" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	fi
	ok=$?
	for p in vm-images/patches/6.12/aware/0[0-9][0-9][0-9]-*.patch; do
		case $p in */0000-*) continue ;; esac
		patch -d "$tree.tmp" -p1 -s --no-backup-if-mismatch <"$p" || ok=1
	done
	[ "$ok" -eq 0 ] && mv "$tree.tmp" "$tree" && touch "$tree.prepared"
	tap_ok $? "a pristine linux-source-6.12 tree with the 6.12 series applied by hand"
else
	tap_ok 0 "a pristine linux-source-6.12 tree with the 6.12 series applied by hand (kept from an earlier run)"
fi
tree=$(realpath "$tree")

name=$($BK --name "$tree")
[[ $name == user-linux-6.12-[0-9a-f]* ]] && [ "$($BK --name 6.1-stock "$tree/")" = "6.1-stock
$name" ]
tap_ok $? "--name maps the tree to $name and a flavour to itself"
# Whole outputs first: grep -q closing the pipe early would fail make under
# pipefail, as it did once from a fresh clone.
make -n bench KERNELS="6.1-stock $tree" >"$out/make-bench.n" 2>/dev/null
make -n crashtest KERNELS="$tree" PROGRAM=x.c >"$out/make-crashtest.n" 2>/dev/null
grep -qF -- "--kernels \"6.1-stock $name\"" "$out/make-bench.n" &&
	grep -qF -- "crashtest --kernel $name " "$out/make-crashtest.n"
tap_ok $? "make bench KERNELS= and make crashtest KERNELS= take the path"

key=$($BK --key "$tree")
t0=$(date +%s)
nice -n 10 $BK "$tree" 2>"$out/build.err"
rc=$?
t1=$(date +%s)
sed 's/^/# /' "$out/build.err"
echo "# build-kernel.sh $tree: $((t1 - t0)) s"
k=$B/kernels/$name
[ "$rc" -eq 0 ] && [ -e "$k/bzImage" ] && [ -e "$k/config" ] && [ -e "$k/System.map" ] &&
	grep -q "^build-kernel: $tree ready as $name (MAP_PMEM_AWARE: true): .*/kernels/$name/bzImage$" "$out/build.err"
tap_ok $? "built out of tree and published as $name, with its config and System.map"
[ "$($BK --key "$tree")" = "$key" ] && [ ! -e "$tree/.config" ] && [ ! -e "$tree/include/generated" ]
tap_ok $? "the tree is left as it was (same names, sizes and mtimes; no .config)"
jq -e --arg p "$tree" --arg c "$(sha256sum <"$k/config" | cut -d' ' -f1)" \
	'.user == true and .kind == "source" and .path == $p and .config_sha256 == $c and
	 (.release | startswith("6.12.")) and .patch_sets == [] and .map_pmem_aware == true' \
	"$k/kernel.json" >/dev/null
tap_ok $? "kernel.json: a user's kernel, its path, release, config hash, no patch sets, MAP_PMEM_AWARE found"
t0=$(date +%s)
$BK "$tree" 2>"$out/build2.err"
rc=$?
t1=$(date +%s)
[ "$rc" -eq 0 ] && ! grep -q building "$out/build2.err" && [ -e "$cache/kernels/$name-$key/map_pmem_aware" ]
tap_ok $? "a second call reuses the build and the probe's answer ($((t1 - t0)) s)"

# The same kernel as a bzImage (make crashtest KERNELS=.../bzImage) and as
# the O= directory it was built in (a built tree): each published under a
# name of its own, with the same config (out of IKCONFIG for the bzImage)
# and its own probe.
obj=$cache/user/$name/obj
for p in "$obj/arch/x86/boot/bzImage" "$obj"; do
	kind=built
	[ -f "$p" ] && kind=bzimage
	$BK "$p" 2>"$out/$kind.err"
	rc=$?
	pname=$($BK --name "$p")
	jq -e --arg kind "$kind" --arg c "$(sha256sum <"$k/config" | cut -d' ' -f1)" \
		'.kind == $kind and .config_sha256 == $c and .map_pmem_aware == true' \
		"$B/kernels/$pname/kernel.json" >/dev/null && [ "$rc" -eq 0 ] && [ "$pname" != "$name" ]
	tap_ok $? "as a $kind: published as $pname, the same config, MAP_PMEM_AWARE found"
done

# The probe on a kernel without the flag answers no (exit 3).
printf '. /usr/share/pmem/lib.sh\npmem_mount\nsemantics probe /mnt\n' >"$out/probe.sh"
"$H" run --kernel 6.1-stock --fs ext4 --script "$out/probe.sh" --out "$out/probe-stock" --quiet \
	>/dev/null 2>"$out/probe-stock.err"
rc=$?
sed 's/^/# 6.1-stock: /' "$out/probe-stock/guest.log"
[ "$rc" -eq 3 ] && grep -q '^map_pmem_aware: no (.*Operation not supported)' "$out/probe-stock/guest.log"
tap_ok $? "the probe finds no MAP_PMEM_AWARE in 6.1-stock (exit $rc)"

# Its bzImage carries its config (user-tree.config): read back and checked.
$BK --check-config "$k/bzImage" 2>"$out/ikconfig.err"
rc=$?
[ "$rc" -eq 0 ] && grep -qx "build-kernel: $k/bzImage has every option the guest needs" "$out/ikconfig.err"
tap_ok $? "--check-config reads the config out of the bzImage (IKCONFIG) and passes it"
$BK --check-config "$B/kernels/6.1-stock/bzImage" 2>"$out/noikconfig.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(wc -l <"$out/noikconfig.err")" -eq 1 ] && grep -q 'cannot be checked' "$out/noikconfig.err"
tap_ok $? "a bzImage without IKCONFIG: one line says its config cannot be checked"

# A kernel without FS_DAX. Building one costs a kernel build, so the check
# runs on an edited copy of the real config: --check-config FILE runs the
# same check_config() that build-kernel.sh PATH runs on a tree's .config and
# on the config it reads out of a bzImage (a bzImage is checked through the
# file it extracts), before anything is published.
sed '/^CONFIG_FS_DAX=y$/d' "$k/config" >"$out/nodax.config"
$BK --check-config "$out/nodax.config" 2>"$out/nodax.err"
rc=$?
sed "s/^/# /" "$out/nodax.err"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$out/nodax.err")" -eq 1 ] &&
	grep -qx "build-kernel: $out/nodax.config lacks CONFIG_FS_DAX=y, which the guest needs: enable it (vm-images/config/guest.config lists them)" "$out/nodax.err"
tap_ok $? "a config without FS_DAX is refused in one line naming it and the fix"
sed 's/^CONFIG_XFS_FS=y$/CONFIG_XFS_FS=m/' "$k/config" >"$out/xfsmod.config"
$BK --check-config "$out/xfsmod.config" 2>"$out/xfsmod.err"
[ $? -eq 1 ] && [ "$(wc -l <"$out/xfsmod.err")" -eq 1 ] && grep -q 'has CONFIG_XFS_FS=m, but the guest loads no modules' "$out/xfsmod.err"
tap_ok $? "=m counts as missing: the guest loads no modules"
# The same through a path: a built tree (its .config and bzImage) without
# FS_DAX is refused and not published.
mkdir -p "$out/nodax-tree/arch/x86/boot"
cp "$out/nodax.config" "$out/nodax-tree/.config"
cp "$k/bzImage" "$out/nodax-tree/arch/x86/boot/bzImage"
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
