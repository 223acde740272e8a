#!/usr/bin/env bash
# Build the guest initramfs from the host's Debian packages.
#
#   vm-images/build-initramfs.sh [--crash] OUT.cpio GUEST_BIN_DIR
#
# The image holds busybox (static), ndctl, e2fsprogs, xfsprogs, fio (with its
# libpmem engine), perf, PMDK (libpmem, libpmemobj, pmempool), and every
# program in GUEST_BIN_DIR, each dynamic binary with the libraries ldd
# resolves for it; OUT.cpio.libs lists the shared libraries it carries. The
# archive is left uncompressed: under TCG, decompressing it would cost more
# boot time than loading the extra bytes.
#
# --crash: only what the crash guests run, the writer and its checkers
# (busybox, e2fsck, xfs_repair, xfs_io, ndctl, pmempool, pmem-agent,
# pmem-ack, pmem-writer, pmem-checker); xfstests boots it too, to reach its
# root. fio and perf bring 100 MiB of libraries, which a guest unpacks at
# every boot: over a second of each crash writer's boot under TCG.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "build-initramfs: $*" >&2; exit 1; }

crash=
if [ "${1:-}" = --crash ]; then
	crash=1
	shift
fi
[ $# -eq 2 ] || die "usage: build-initramfs.sh [--crash] OUT.cpio GUEST_BIN_DIR"
out=$1
guest_bin=$2

# tool path -> Debian package that provides it, for the error message.
declare -A tools=(
	[/bin/busybox]=busybox-static
	[/usr/bin/ndctl]=ndctl
	[/usr/bin/daxctl]=daxctl
	[/sbin/mke2fs]=e2fsprogs
	[/sbin/e2fsck]=e2fsprogs
	[/sbin/mkfs.xfs]=xfsprogs
	[/sbin/xfs_repair]=xfsprogs
	[/usr/sbin/xfs_io]=xfsprogs
	[/usr/bin/fio]=fio
	[/usr/bin/perf]=linux-perf
	[/usr/lib/x86_64-linux-gnu/libpmem.so.1]=libpmem1
	[/usr/lib/x86_64-linux-gnu/libpmemobj.so.1]=libpmemobj1
	[/usr/bin/pmempool]=pmdk-tools
)
missing=()
for t in "${!tools[@]}"; do
	[ -e "$t" ] || missing+=("${tools[$t]}")
done
[ ${#missing[@]} -eq 0 ] ||
	die "missing guest tools: run 'apt-get install $(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')'"
[[ $(file /bin/busybox 2>/dev/null) == *"statically linked"* ]] ||
	die "/bin/busybox is not the static build: run 'apt-get install busybox-static'"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/usr/{bin,sbin,lib/x86_64-linux-gnu,lib64} "$stage"/{dev,proc,sys,tmp,mnt,etc,root}
ln -s usr/bin "$stage/bin"
ln -s usr/sbin "$stage/sbin"
ln -s usr/lib "$stage/lib"
ln -s usr/lib64 "$stage/lib64"

# Copy a file to the same path under usr/ in the image (merged /usr).
copy_into_image() { # host-path
	local rel=${1#/usr/}
	rel=${rel#/}
	mkdir -p "$stage/usr/$(dirname "$rel")"
	cp -L "$1" "$stage/usr/$rel"
}

copy_libs_of() { # binary
	local lib rel
	ldd "$1" >/dev/null 2>&1 || return 0 # static
	while read -r lib; do
		rel=${lib#/usr/}
		rel=${rel#/}
		[ -e "$stage/usr/$rel" ] || copy_into_image "$lib"
	done < <(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
}

guest_tools=(/usr/bin/ndctl /usr/bin/daxctl /sbin/mke2fs /sbin/e2fsck /sbin/mkfs.xfs
	/sbin/xfs_repair /usr/sbin/xfs_io /usr/bin/fio /usr/bin/perf
	/usr/lib/x86_64-linux-gnu/libpmem.so.1 /usr/lib/x86_64-linux-gnu/libpmemobj.so.1 /usr/bin/pmempool)
# pmempool, for "pmempool check" in checkers of PMDK programs, brings the
# libpmemobj and libpmem those programs are linked against. A writer's
# script may call xfs_io and ndctl (docs/crashtest.md).
[ -z "$crash" ] || guest_tools=(/sbin/e2fsck /sbin/xfs_repair /usr/sbin/xfs_io /usr/bin/ndctl /usr/bin/pmempool)
for t in "${guest_tools[@]}"; do
	copy_into_image "$t"
	copy_libs_of "$t"
done
if [ -z "$crash" ]; then
	ln -s mke2fs "$stage/usr/sbin/mkfs.ext4"
	cp /etc/mke2fs.conf "$stage/etc/" 2>/dev/null || true
fi
ln -s e2fsck "$stage/usr/sbin/fsck.ext4"

for p in "$guest_bin"/*; do
	[ -x "$p" ] || continue
	[ -z "$crash" ] || case ${p##*/} in pmem-agent | pmem-ack | pmem-writer | pmem-checker) ;; *) continue ;; esac
	install -m 0755 "$p" "$stage/usr/bin/"
	copy_libs_of "$p"
done

# busybox supplies whatever the real tools above do not.
cp /bin/busybox "$stage/usr/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$stage/usr/bin/$applet" ] || [ -e "$stage/usr/sbin/$applet" ] ||
		ln -s busybox "$stage/usr/bin/$applet"
done
install -m 0755 "$here/guest/init" "$stage/init"
install -D -m 0644 "$here/guest/pmem-lib.sh" "$stage/usr/share/pmem/lib.sh"
install -D -m 0644 "$here/filesystems" "$stage/usr/share/pmem/filesystems"
# Every other guest script under its own name: the host's jobs run them there.
for s in "$here"/guest/*.sh; do
	[ "${s##*/}" = pmem-lib.sh ] || install -D -m 0644 "$s" "$stage/usr/share/pmem/${s##*/}"
done
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

mkdir -p "$(dirname "$out")"
# The shared libraries the image carries, by name: crashtest takes a user's
# dynamic program only when the crash image has every library it needs
# (crash-inject/run/user_program.c).
(cd "$stage/usr" && find lib/x86_64-linux-gnu lib64 -maxdepth 1 -name '*.so*' -printf '%f\n' | LC_ALL=C sort) \
	>"$out.libs.tmp"
mv "$out.libs.tmp" "$out.libs"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
echo "build-initramfs: $out ($(du -h "$out" | cut -f1))" >&2
