#!/usr/bin/env bash
# A kernel of the user's own from its source (make test-long; the short
# tests/user-kernel.t takes a built tree): a pristine linux-source-6.12
# tree with our 6.12 series applied by hand with patch -p1, as a kernel
# developer's tree would be, given to build-kernel.sh as a path:
#  - it is configured with our fragment and built out of tree into the cache,
#    leaving the tree as it was, and published under the name --name prints,
#    with a kernel.json that says whose it is; the probe finds MAP_PMEM_AWARE;
#  - a second call reuses the build and the probe's answer;
#  - its bzImage and its O= directory are taken too;
#  - its bzImage carries its config (IKCONFIG), which --check-config reads.
# The first run builds the tree (about 10 minutes on 2 cores). The tree is
# kept in the cache, keyed by the series it carries, at the same path from
# every clone, so later runs reuse its build.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

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

# Its bzImage carries its config (user-tree.config): read back and checked.
$BK --check-config "$k/bzImage" 2>"$out/ikconfig.err"
rc=$?
[ "$rc" -eq 0 ] && grep -qx "build-kernel: $k/bzImage has every option the guest needs" "$out/ikconfig.err"
tap_ok $? "--check-config reads the config out of the bzImage (IKCONFIG) and passes it"

tap_done
