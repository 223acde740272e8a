#!/usr/bin/env bash
# Build guest kernel flavours from Debian's linux-source package, or build,
# check and publish a kernel of the user's own given by its path.
#
#   vm-images/build-kernel.sh FLAVOUR...      build (or reuse) and publish
#   vm-images/build-kernel.sh PATH...         a kernel tree or bzImage of yours
#   vm-images/build-kernel.sh --list          print known flavour names
#   vm-images/build-kernel.sh --default KIND  the flavours a run of KIND takes
#                                             when given none (bench, quick,
#                                             crashtest, stock, xfstests)
#   vm-images/build-kernel.sh --name PATH...  the name a PATH is published as
#   vm-images/build-kernel.sh --check-config FILE   a config or bzImage has
#                                             what the guest needs
#
# A flavour is a row of vm-images/flavours: a source version plus patch sets,
# and what its guests boot with: kernel parameters (build/kernels/<flavour>/cmdline)
# and the platform QEMU says it is (build/kernels/<flavour>/nvdimm-persistence).
# Each build is cached under $PMEM_CACHE/kernels/linux-<version>-<key>/, where
# the key hashes the source package version, every patch, the config fragment
# and the recipe version, so an unchanged flavour is reused in seconds and
# flavours that differ only in what they boot with share one build. Compilation goes
# through ccache; all flavours of a version share one source path so that
# ccache hits across flavours (only files a patch touches recompile).
#
# The result is published as build/kernels/<flavour>/{bzImage,kernel.json,config}
# and, for a flavour that names them, cmdline and nvdimm-persistence.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
out=${PMEM_BUILD:-$top/build}/kernels
fragment=$here/config/guest.config
# Bump when the build recipe below changes what ends up in a bzImage; it is
# part of every cache key (kernel.json is written at publish time, not cached).
recipe=1

die() { echo "build-kernel: $*" >&2; exit 1; }
# shellcheck source=vm-images/lib-selftests.sh
. "$here/lib-selftests.sh"

flavour_row() {
	awk -v f="$1" '!/^#/ && $1 == f { print; found = 1 } END { exit !found }' \
		"$here/flavours"
}

list_flavours() { awk '!/^#/ && NF { print $1 }' "$here/flavours"; }

# The flavours whose default= word names kind, blank-separated in the order
# of the rows (the table's comment says which run is which kind).
flavour_defaults() { # kind
	awk -v k="$1" '!/^#/ && NF { for (i = 3; i <= NF; i++) if ($i ~ /^default=/) {
		n = split(substr($i, 9), kinds, ",")
		for (j = 1; j <= n; j++) if (kinds[j] == k) out = out (out == "" ? "" : " ") $1 } }
	END { if (out == "") exit 1; print out }' "$here/flavours"
}

# A row's words after the version are its patch sets and, as words with an
# '=', what its guests boot with: nvdimm-persistence=cpu|mem-ctrl is the
# QEMU machine property of that name (the platform its guests run on), any
# default=KIND,... the runs that take the flavour unasked (flavour_defaults),
# any other such word a kernel parameter. Flavours that differ only in these
# words share one build.
row_sets() { # words...
	local w
	for w in "$@"; do [[ $w == *=* ]] || printf '%s ' "$w"; done
}
row_persistence() { # words...
	local w out=
	for w in "$@"; do
		[[ $w == nvdimm-persistence=* ]] || continue
		out=${w#nvdimm-persistence=}
		[[ $out == cpu || $out == mem-ctrl ]] ||
			die "'$w' in vm-images/flavours: nvdimm-persistence=cpu or nvdimm-persistence=mem-ctrl"
	done
	printf '%s' "$out"
}
row_params() { # words...
	local w out=
	for w in "$@"; do
		[[ $w == *=* && $w != nvdimm-persistence=* && $w != default=* ]] || continue
		[[ $w =~ ^[A-Za-z0-9_.,=-]+$ ]] ||
			die "kernel parameter '$w' in vm-images/flavours: letters, digits and _.,=- only"
		out+="${out:+ }$w"
	done
	printf '%s' "$out"
}

patch_files() { # version set...
	local version=$1 set; shift
	for set in "$@"; do
		[ "$set" = "-" ] && continue
		[ -d "$here/patches/$version/$set" ] ||
			die "patch set $version/$set does not exist (vm-images/patches/$version/$set)"
		find "$here/patches/$version/$set" -name '[0-9]*.patch' ! -name '0000-*' | sort
	done
}

source_version() { # version -> Debian package version of linux-source-<version>
	dpkg-query -W -f='${Version}' "linux-source-$1" 2>/dev/null ||
		die "linux-source-$1 is not installed: run 'apt-get install linux-source-$1'"
}

check_tools() {
	local t missing=()
	for t in gcc make flex bison bc ccache patch xz; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ -e /usr/include/libelf.h ] || missing+=(libelf-dev)
	[ -e /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
	[ ${#missing[@]} -eq 0 ] ||
		die "missing build tools (${missing[*]}): run 'apt-get install build-essential flex bison bc ccache libelf-dev libssl-dev xz-utils'"
}

check_space() { # dir MiB
	mkdir -p "$1"
	local avail
	avail=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$2" ] ||
		die "only ${avail} MiB free under $1, a kernel build needs ${2} MiB: free space or set XDG_CACHE_HOME"
}

# Extract the pristine source once per package version.
pristine_tree() { # version
	local version=$1 pkgver dir
	pkgver=$(source_version "$version")
	dir=$cache/src/linux-$version-$pkgver
	if [ ! -e "$dir/.extracted" ]; then
		check_space "$cache" 2500
		echo "build-kernel: extracting linux-source-$version ($pkgver)" >&2
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" --strip-components=1 -xf "/usr/src/linux-source-$version.tar.xz"
		mv "$dir.tmp" "$dir"
		touch "$dir/.extracted"
	fi
	echo "$dir"
}

flavour_key() { # flavour -> key
	local row version sets pkgver
	row=$(flavour_row "$1") || die "unknown flavour '$1' (known: $(list_flavours | tr '\n' ' '))"
	read -r _ version sets <<<"$row"
	# shellcheck disable=SC2086 # words of the row
	sets=$(row_sets $sets)
	pkgver=$(source_version "$version")
	# shellcheck disable=SC2086
	{
		echo "linux-source-$version $pkgver"
		echo "recipe $recipe"
		sha256sum "$fragment" | cut -d' ' -f1
		patch_files "$version" $sets | xargs -r sha256sum | cut -d' ' -f1
	} | sha256sum | cut -c1-16
}

write_metadata() { # flavour version pkgver key params persistence sets... > kernel.json
	local flavour=$1 version=$2 pkgver=$3 key=$4 params=$5 persistence=$6 first=1 p sets; shift 6
	sets=$(for p in "$@"; do [ "$p" = "-" ] || printf '"%s",' "$p"; done)
	printf '{\n  "schema": 1,\n  "flavour": "%s",\n  "source": "linux-source-%s %s",\n' \
		"$flavour" "$version" "$pkgver"
	printf '  "cmdline": "%s",\n' "$params"
	# "": QEMU's default, no NFIT platform capability.
	printf '  "nvdimm_persistence": "%s",\n' "$persistence"
	printf '  "key": "%s",\n  "config_sha256": "%s",\n  "patch_sets": [%s],\n  "patches": [' \
		"$key" "$(sha256sum "$fragment" | cut -d' ' -f1)" "${sets%,}"
	while read -r p; do
		[ -n "$p" ] || continue
		[ $first -eq 1 ] || printf ','
		first=0
		printf '\n    { "file": "%s", "sha256": "%s" }' \
			"${p#"$here"/}" "$(sha256sum "$p" | cut -d' ' -f1)"
	done < <(patch_files "$version" "$@")
	printf '\n  ]\n}\n'
}

# Compile a flavour into dest, under its version's build lock.
compile_flavour() { # flavour version pkgver key dest sets...
	local flavour=$1 version=$2 pkgver=$3 key=$4 dest=$5 src tree obj p opt
	shift 5
	local sets="$*"
	check_tools
	src=$(pristine_tree "$version")
	check_space "$cache" 3000
	# One tree and object path per version (not per flavour): identical
	# paths let ccache reuse objects between flavours.
	tree=$cache/tree/$version
	obj=$cache/obj/$version
	echo "build-kernel: building $flavour (key $key); log in $dest.log" >&2
	rm -rf "$tree" "$obj"
	mkdir -p "$(dirname "$tree")" "$obj"
	cp -al "$src" "$tree"
	# shellcheck disable=SC2086
	while read -r p; do
		[ -n "$p" ] || continue
		patch -d "$tree" -p1 -s --no-backup-if-mismatch <"$p" ||
			die "patch ${p#"$here"/} does not apply to linux-source-$version $pkgver"
	done < <(patch_files "$version" $sets)

	local -a kmake=(make -C "$tree" O="$obj" -j"$(nproc)" CC="ccache gcc"
		KBUILD_BUILD_TIMESTAMP="$pkgver" KBUILD_BUILD_USER=pmem-aware
		KBUILD_BUILD_HOST=harness)
	export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
	mkdir -p "$(dirname "$dest")"
	{
		"${kmake[@]}" tinyconfig
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment"
		"${kmake[@]}" olddefconfig
	} >"$dest.log" 2>&1 || die "configuring $flavour failed: see $dest.log"
	# A dependency that drops an option would boot a kernel without DAX.
	while read -r opt; do
		grep -qx "$opt" "$obj/.config" ||
			die "$flavour: config fragment option '$opt' did not survive olddefconfig (missing dependency?)"
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment")
	"${kmake[@]}" bzImage >>"$dest.log" 2>&1 ||
		die "building $flavour failed: see the end of $dest.log"
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	# The selftests its patches add, static (the guests have no libc),
	# as selftests/<name>: the suite runs them in guests.
	local -a patches tests
	# shellcheck disable=SC2086 # the words of the row
	mapfile -t patches < <(patch_files "$version" $sets)
	[ ${#patches[@]} -eq 0 ] || mapfile -t tests < <(selftests_added "${patches[@]}")
	for p in "${tests[@]}"; do
		selftest_build "$tree" "$obj" "$dest.tmp/selftests" "$p" LDFLAGS=-static >>"$dest.log" 2>&1 ||
			die "building $flavour's selftest $p failed: see the end of $dest.log"
	done
	cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$obj/System.map" "$dest.tmp/"
	mv "$dest.tmp/.config" "$dest.tmp/config"
	mv "$dest.tmp" "$dest"
	mv "$dest.log" "$dest/build.log"
}

build_flavour() { # flavour
	local flavour=$1 row version sets pkgver key dest p params persistence words
	row=$(flavour_row "$flavour") || die "unknown flavour '$flavour' (known: $(list_flavours | tr '\n' ' '))"
	read -r _ version words <<<"$row"
	# shellcheck disable=SC2086 # words of the row
	sets=$(row_sets $words)
	# shellcheck disable=SC2086
	params=$(row_params $words)
	# shellcheck disable=SC2086
	persistence=$(row_persistence $words)
	pkgver=$(source_version "$version")
	key=$(flavour_key "$flavour")
	# Keyed by what is compiled: flavours that differ only in what they
	# boot with share one build.
	dest=$cache/kernels/linux-$version-$key

	if [ ! -e "$dest/bzImage" ]; then
		mkdir -p "$cache"
		exec 9>"$cache/build-$version.lock"
		flock 9
		# A flavour sharing this build may have made it while we waited.
		# shellcheck disable=SC2086
		[ -e "$dest/bzImage" ] || compile_flavour "$flavour" "$version" "$pkgver" "$key" "$dest" $sets
		flock -u 9
	fi
	mkdir -p "$out/$flavour"
	# System.map names kernel PCs in ADR crash reports (no KASLR in our config).
	for p in bzImage config System.map; do
		if [ -e "$dest/$p" ]; then ln -sfn "$dest/$p" "$out/$flavour/$p"; else rm -f "$out/$flavour/$p"; fi
	done
	# The selftests its patches add (tests/mm-selftest.t runs them).
	if [ -d "$dest/selftests" ]; then ln -sfn "$dest/selftests" "$out/$flavour/selftests"; else rm -f "$out/$flavour/selftests"; fi
	# The boot parameters of the flavour: the harness appends them to every
	# guest's command line (vm/vm.c: vm_flavour_boot).
	if [ -n "$params" ]; then
		printf '%s\n' "$params" >"$out/$flavour/cmdline"
	else
		rm -f "$out/$flavour/cmdline"
	fi
	# The platform its guests run on: the harness adds it to every guest's
	# QEMU machine (vm/vm.c: vm_flavour_boot).
	if [ -n "$persistence" ]; then
		printf '%s\n' "$persistence" >"$out/$flavour/nvdimm-persistence"
	else
		rm -f "$out/$flavour/nvdimm-persistence"
	fi
	rm -f "$out/$flavour/kernel.json"
	# shellcheck disable=SC2086
	write_metadata "$flavour" "$version" "$pkgver" "$key" "$params" "$persistence" $sets >"$out/$flavour/kernel.json"
	echo "build-kernel: $flavour ready: $out/$flavour/bzImage" >&2
}

# ---- A kernel of the user's own: a path instead of a flavour name ----------
#
# Anything with a '/' is a path: a bzImage, a built kernel tree (or an O=
# build directory: .config and arch/x86/boot/bzImage), or a kernel source
# tree, which is configured with our fragment and built out of tree into the
# cache. It is published like a flavour, as build/kernels/user-<dir>-<hash
# of its path>, so every command that takes a flavour name takes it.

# What the guest cannot do without; =m counts as missing, since the guest
# loads no modules. Every other line of guest.config is either implied by
# these (MEMORY_HOTPLUG, SPARSEMEM_VMEMMAP for ZONE_DEVICE; BLOCK), cosmetic
# (PRINTK_TIME, KALLSYMS: System.map names kernel PCs), for device-dax, which
# the guest does not use (DEV_DAX, DEV_DAX_PMEM, NVDIMM_DAX), not needed by an
# uncompressed initramfs (RD_GZIP), or for tracing (tracing_options below;
# MODULES only because 6.1's KPROBES depends on it).
required_options=(
	# the guest's userspace: x86-64 programs in an initramfs, /init a script
	64BIT BINFMT_ELF BINFMT_SCRIPT BLK_DEV_INITRD DEVTMPFS PROC_FS SYSFS TMPFS SHMEM
	# system calls busybox, ndctl, fio and our programs make
	MULTIUSER FUTEX EPOLL SYSVIPC SIGNALFD TIMERFD EVENTFD AIO FILE_LOCKING
	ADVISE_SYSCALLS POSIX_TIMERS UNIX98_PTYS
	# smaps VmFlags, where the MAP_PMEM_AWARE probe looks for "pa"
	PROC_PAGE_MONITOR
	# the console the watchdog reads for panics, and the virtio-serial ports
	PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE ACPI PCI VIRTIO_PCI VIRTIO_CONSOLE
	# an ACPI-described NVDIMM as an fsdax namespace with struct pages
	LIBNVDIMM ACPI_NFIT BLK_DEV_PMEM NVDIMM_PFN ZONE_DEVICE DAX FS_DAX
	# 2 MiB faults, which the PMD jobs measure
	TRANSPARENT_HUGEPAGE FS_DAX_PMD
	EXT4_FS XFS_FS
)
# Without these the guest still runs: the fs_dax tracepoint counts are
# reported as unavailable (workloads/tracefs.c), and function tracing,
# kprobes and perf are for looking at costs by hand.
tracing_options=(TRACEPOINTS EVENT_TRACING FTRACE FUNCTION_TRACER FUNCTION_GRAPH_TRACER
	FUNCTION_PROFILER KPROBES KPROBE_EVENTS PERF_EVENTS)

is_path() { case $1 in */*) return 0 ;; *) return 1 ;; esac; }

# The user's path, ~ expanded (make does not), made absolute.
user_path() { # path
	local p=${1/#\~/$HOME}
	realpath -e -- "$p" 2>/dev/null || die "no such file or directory: $1"
}

# A bzImage: the x86 boot protocol's "HdrS" at 0x202.
is_bzimage() { [ -f "$1" ] && [ "$(dd if="$1" bs=1 skip=514 count=4 status=none)" = HdrS ]; }

# What the path is: bzimage, built (a tree or O= directory with its
# .config and bzImage) or source (a tree to build).
user_kind() { # abs-path
	if [ -f "$1" ]; then
		is_bzimage "$1" || die "$1 is not a bzImage (no x86 boot header) nor a kernel tree"
		echo bzimage
	elif [ -e "$1/.config" ] && [ -e "$1/arch/x86/boot/bzImage" ]; then
		echo built
	elif [ -e "$1/Makefile" ] && [ -e "$1/Kconfig" ] && [ -d "$1/arch/x86" ]; then
		echo source
	else
		die "$1 is not a kernel tree (Makefile, Kconfig, arch/x86/) nor a built one (.config, arch/x86/boot/bzImage)"
	fi
}

# user-<directory>-<hash of the path>: stable for one path, cheap to compute.
user_name() { # abs-path
	local p=$1 base
	case $p in
	*/arch/x86/boot/bzImage) base=${p%/arch/x86/boot/bzImage} ;;
	*) base=$p ;;
	esac
	# An O= directory links to its source tree, whose name says more.
	[ ! -L "$base/source" ] || base=$(realpath "$base/source")
	base=$(basename "$base" | tr -c 'A-Za-z0-9.+\n' '-' | cut -c1-24)
	echo "user-${base#[.-]}-$(printf '%s' "$p" | sha256sum | cut -c1-8)"
}

# The release string of a bzImage (boot protocol: kernel_version at 0x20e,
# an offset from 0x200), e.g. "6.12.118 (pmem-aware@harness) #1 ...".
bzimage_version() { # bzImage
	local off s
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$1" | tr -d ' ')
	[ "$off" -gt 0 ] 2>/dev/null || return 0
	s=$(dd if="$1" bs=1 skip=$((off + 0x200)) count=256 status=none | tr '\0' '\n')
	echo "${s%%$'\n'*}"
}

# N bytes of FILE from byte OFFSET on stdout. dd reads exactly those, so no
# reader downstream has to stop a writer early (under pipefail, a head
# that closes the pipe kills tail with SIGPIPE, and the status with it).
bytes() { # file offset count
	dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" bs=1M status=none
}

# The config a bzImage carries (CONFIG_IKCONFIG) on stdout; status 1 when it
# carries none. The compressed kernel is the boot protocol's payload
# (payload_offset at 0x248, payload_length at 0x24c, counted from the end of
# the setup sectors); the config inside it is a gzip stream between the
# markers IKCFG_ST and IKCFG_ED.
bzimage_config() { # bzImage
	local img=$1 sects start len magic tmp st ed
	local -a unpack
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$img" | tr -d ' ')
	[ "$sects" -ne 0 ] || sects=4
	start=$(( (sects + 1) * 512 + $(od -An -tu4 -j $((0x248)) -N4 "$img" | tr -d ' ') ))
	len=$(od -An -tu4 -j $((0x24c)) -N4 "$img" | tr -d ' ')
	magic=$(od -An -tx1 -j "$start" -N6 "$img" | tr -d ' \n')
	case $magic in
	1f8b*) unpack=(gzip -dc) ;;
	fd377a585a00) unpack=(xz -dc --single-stream) ;;
	5d0000*) unpack=(xz -dc --format=lzma) ;;
	28b52ffd*) unpack=(zstd -dcq) ;;
	425a68*) unpack=(bzip2 -dc) ;;
	02214c18*) unpack=(lz4 -dc) ;;
	894c5a4f*) unpack=(lzop -dc) ;;
	*) return 1 ;;
	esac
	command -v "${unpack[0]}" >/dev/null || { echo "build-kernel: no ${unpack[0]} to unpack $img" >&2; return 1; }
	tmp=$(mktemp)
	# The payload goes through a file: an unpacker may stop before the end
	# of its input. Formats with the size appended end in bytes the tools
	# call garbage: what was unpacked before them is whole, so the status
	# is not used.
	bytes "$img" "$start" "$len" >"$tmp.payload"
	"${unpack[@]}" <"$tmp.payload" >"$tmp" 2>/dev/null || true
	rm -f "$tmp.payload"
	st=$(LC_ALL=C grep -abo IKCFG_ST "$tmp" | cut -d: -f1)
	st=${st%%$'\n'*}
	ed=$(LC_ALL=C grep -abo IKCFG_ED "$tmp" | tail -n 1 | cut -d: -f1)
	if [ -z "$st" ] || [ -z "$ed" ] || [ "$ed" -le "$st" ]; then
		rm -f "$tmp"
		return 1
	fi
	bytes "$tmp" $((st + 8)) $((ed - st - 8)) | gzip -dc 2>/dev/null
	rm -f "$tmp"
}

# Refuse, in one line, a config that lacks an option the guest needs.
check_config() { # config what
	local config=$1 what=$2 opt missing=()
	for opt in "${required_options[@]}"; do
		grep -qx "CONFIG_$opt=y" "$config" && continue
		grep -qx "CONFIG_$opt=m" "$config" &&
			die "$what has CONFIG_$opt=m, but the guest loads no modules: make it =y (vm-images/config/guest.config lists what the guest needs)"
		die "$what lacks CONFIG_$opt=y, which the guest needs: enable it (vm-images/config/guest.config lists them)"
	done
	for opt in "${tracing_options[@]}"; do
		grep -qx "CONFIG_$opt=y" "$config" || missing+=("$opt")
	done
	[ ${#missing[@]} -eq 0 ] ||
		echo "build-kernel: $what lacks ${missing[*]} (tracing only): it runs, and what needs them is reported as unavailable" >&2
}

# --check-config FILE: a config file, or a bzImage whose IKCONFIG is read.
check_config_file() { # file
	local f tmp
	f=$(user_path "$1")
	if is_bzimage "$f"; then
		tmp=$(mktemp)
		if ! bzimage_config "$f" >"$tmp"; then
			rm -f "$tmp"
			echo "build-kernel: $1 carries no config (no CONFIG_IKCONFIG): its options cannot be checked" >&2
			return 0
		fi
		(check_config "$tmp" "$1") || { rm -f "$tmp"; exit 1; }
		rm -f "$tmp"
	else
		check_config "$f" "$1"
	fi
	echo "build-kernel: $1 has every option the guest needs" >&2
}

git_describe() { # tree -> describe, or nothing outside git
	local tree=$1
	[ -L "$tree/source" ] && tree=$(realpath "$tree/source") # an O= directory
	[ "$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null)" = "$tree" ] || return 0
	git -C "$tree" describe --dirty --always 2>/dev/null
}

# A source tree's key: git describe --dirty and its diff (untracked files
# by name, size and mtime), or outside git every file's name, size and mtime.
source_key() { # tree
	local tree=$1 describe
	describe=$(git_describe "$tree")
	{
		echo "recipe $recipe"
		sha256sum "$fragment" "$here/config/user-tree.config" | cut -d' ' -f1
		[ ! -e "$tree/.config" ] || sha256sum <"$tree/.config"
		if [ -n "$describe" ]; then
			echo "git $describe"
			git -C "$tree" diff HEAD | sha256sum
			git -C "$tree" ls-files -z --others --exclude-standard |
				(cd "$tree" && xargs -0r stat -c '%n %s %Y') | LC_ALL=C sort
		else
			find "$tree" -path "$tree/.git" -prune -o -type f -printf '%P %s %T@\n' | LC_ALL=C sort
		fi
	} | sha256sum | cut -c1-16
}

# Configure and build a source tree out of tree; the tree is only read.
# The object directory stays per tree path, so a rebuild after a change is
# incremental; each result is kept under its key.
build_source() { # tree name key dest
	local tree=$1 name=$2 key=$3 dest=$4 work src base opt
	work=$cache/user/$name
	check_tools
	check_space "$cache" 3000
	mkdir -p "$work/obj"
	exec 9>"$work.lock"
	flock 9
	src=$tree
	if [ -e "$tree/.config" ] || [ -d "$tree/include/config" ] || [ -d "$tree/arch/x86/include/generated" ]; then
		# kbuild refuses to build a configured tree out of tree: build a
		# hard-linked copy without its configuration (unlinking in the
		# copy leaves the user's files alone).
		base=$tree/.config
		src=$work/src
		rm -rf "$src"
		cp -al "$tree" "$src" 2>/dev/null ||
			die "$tree is configured but not built, and cannot be hard-linked into $cache: build it (make bzImage), or run 'make mrproper' in it"
		rm -rf "$src/.config" "$src/include/config" "$src/include/generated" "$src/arch/x86/include/generated"
	fi
	local -a kmake=(make -C "$src" O="$work/obj" -j"$(nproc)" CC="ccache gcc"
		KBUILD_BUILD_USER=pmem-aware KBUILD_BUILD_HOST=harness)
	export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
	echo "build-kernel: building $tree as $name (key $key); log in $dest.log" >&2
	mkdir -p "$(dirname "$dest")"
	{
		if [ -n "${base:-}" ]; then
			cp "$base" "$work/obj/.config"
		else
			"${kmake[@]}" tinyconfig
		fi
		"$src/scripts/kconfig/merge_config.sh" -m -O "$work/obj" "$work/obj/.config" \
			"$fragment" "$here/config/user-tree.config"
		"${kmake[@]}" olddefconfig
	} >"$dest.log" 2>&1 || die "configuring $tree failed: see $dest.log"
	while read -r opt; do
		grep -qx "$opt" "$work/obj/.config" ||
			die "$tree: config fragment option '$opt' did not survive olddefconfig (missing dependency?)"
	done < <(grep -hE '^CONFIG_[A-Z0-9_]+=' "$fragment" "$here/config/user-tree.config")
	"${kmake[@]}" bzImage >>"$dest.log" 2>&1 ||
		die "building $tree failed: see the end of $dest.log"
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	cp "$work/obj/arch/x86/boot/bzImage" "$work/obj/System.map" "$dest.tmp/"
	cp "$work/obj/.config" "$dest.tmp/config"
	mv "$dest.tmp" "$dest"
	mv "$dest.log" "$dest/build.log"
	flock -u 9
}

# Ask the kernel itself whether it has MAP_PMEM_AWARE: boot it on the image
# of the quick filesystem (vm-images/filesystems) and map a DAX file with
# the flag (semantics probe, the first check of tests/guest/semantics.c).
# Prints true, false, or nothing when it could not ask; the answer is kept
# with the build.
probe_aware() { # name dest
	local name=$1 dest=$2 b fs job rc
	b=${PMEM_BUILD:-$top/build}
	if [ -e "$dest/map_pmem_aware" ]; then
		cat "$dest/map_pmem_aware"
		return
	fi
	fs=
	[ ! -x "$b/pmem-harness" ] || fs=$("$b/pmem-harness" filesystems --default quick) || fs=
	if [ -z "$fs" ] || [ ! -e "$b/initramfs.cpio" ] || [ ! -e "$b/images/$fs.img" ]; then
		echo "build-kernel: $name: MAP_PMEM_AWARE not probed (no guest images yet: make all images), so bench will not run the aware modes on it" >&2
		return
	fi
	job=$(mktemp)
	printf '. /usr/share/pmem/lib.sh\npmem_mount\nsemantics probe /mnt\n' >"$job"
	rm -rf "$dest/probe"
	rc=0
	"$b/pmem-harness" run --kernel "$name" --fs "$fs" --script "$job" --out "$dest/probe" \
		--quiet >/dev/null 2>"$dest/probe.err" || rc=$?
	rm -f "$job"
	case $rc in
	0) echo true | tee "$dest/map_pmem_aware" ;;
	3) echo false | tee "$dest/map_pmem_aware" ;;
	*) echo "build-kernel: $name: the MAP_PMEM_AWARE probe failed (status $rc): see $dest/probe/" >&2 ;;
	esac
}

json_str() { # string -> JSON string (what paths and git describe can hold)
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$(printf '%s' "$s" | tr -d '\000-\037')"
}

write_user_metadata() { # name kind path key dest aware describe
	local name=$1 kind=$2 path=$3 key=$4 dest=$5 aware=$6 describe=$7 config_sha=null version
	[ ! -e "$dest/config" ] || config_sha="\"$(sha256sum <"$dest/config" | cut -d' ' -f1)\""
	printf '{\n  "schema": 1,\n  "flavour": "%s",\n  "user": true,\n  "kind": "%s",\n' "$name" "$kind"
	version=$(bzimage_version "$dest/bzImage")
	# release: what uname -r will say; version: the whole banner (who, when, #)
	printf '  "path": %s,\n  "git_describe": %s,\n  "release": %s,\n  "version": %s,\n' \
		"$(json_str "$path")" "$([ -n "$describe" ] && json_str "$describe" || echo null)" \
		"$(json_str "${version%% *}")" "$(json_str "$version")"
	printf '  "key": "%s",\n  "bzimage_sha256": "%s",\n  "config_sha256": %s,\n' \
		"$key" "$(sha256sum <"$dest/bzImage" | cut -d' ' -f1)" "$config_sha"
	printf '  "map_pmem_aware": %s,\n  "patch_sets": [],\n  "patches": []\n}\n' "${aware:-null}"
}

# A bzImage and a built tree are keyed by their bzImage, a source tree by
# its sources (source_key).
user_key() { # abs-path
	case $(user_kind "$1") in
	bzimage) sha256sum <"$1" | cut -c1-16 ;;
	built) sha256sum <"$1/arch/x86/boot/bzImage" | cut -c1-16 ;;
	source) source_key "$1" ;;
	esac
}

# Build, check and publish a user's kernel under its name.
build_user() { # path
	local path name kind key dest describe tree aware p
	path=$(user_path "$1")
	name=$(user_name "$path")
	kind=$(user_kind "$path")
	key=$(user_key "$path")
	dest=$cache/kernels/$name-$key
	describe=
	case $kind in
	bzimage)
		tree=
		case $path in */arch/x86/boot/bzImage) tree=${path%/arch/x86/boot/bzImage} ;; esac
		[ -z "$tree" ] || describe=$(git_describe "$tree")
		if [ ! -e "$dest/bzImage" ]; then
			rm -rf "$dest.tmp"
			mkdir -p "$dest.tmp"
			cp "$path" "$dest.tmp/bzImage"
			bzimage_config "$path" >"$dest.tmp/config" || rm -f "$dest.tmp/config"
			# Beside its own tree, a bzImage without IKCONFIG has the
			# tree's .config and System.map.
			if [ ! -e "$dest.tmp/config" ] && [ -n "$tree" ] && [ -e "$tree/.config" ]; then
				cp "$tree/.config" "$dest.tmp/config"
			fi
			if [ -n "$tree" ] && [ -e "$tree/System.map" ]; then
				cp "$tree/System.map" "$dest.tmp/"
			fi
			mv "$dest.tmp" "$dest"
		fi
		;;
	built)
		describe=$(git_describe "$path")
		if [ ! -e "$dest/bzImage" ]; then
			rm -rf "$dest.tmp"
			mkdir -p "$dest.tmp"
			cp "$path/arch/x86/boot/bzImage" "$dest.tmp/"
			cp "$path/.config" "$dest.tmp/config"
			[ ! -e "$path/System.map" ] || cp "$path/System.map" "$dest.tmp/"
			mv "$dest.tmp" "$dest"
		fi
		;;
	source)
		describe=$(git_describe "$path")
		[ -e "$dest/bzImage" ] || build_source "$path" "$name" "$key" "$dest"
		;;
	esac
	if [ -e "$dest/config" ]; then
		# A refused kernel does not stay published under its name.
		(check_config "$dest/config" "$1") || { rm -rf "${out:?}/$name"; exit 1; }
	else
		echo "build-kernel: $1 carries no config (no CONFIG_IKCONFIG): whether it has what the guest needs cannot be checked" >&2
	fi
	mkdir -p "$out/$name"
	for p in bzImage config System.map; do
		if [ -e "$dest/$p" ]; then ln -sfn "$dest/$p" "$out/$name/$p"; else rm -f "$out/$name/$p"; fi
	done
	# Published before the probe, which boots it by its name.
	write_user_metadata "$name" "$kind" "$path" "$key" "$dest" "" "$describe" >"$out/$name/kernel.json"
	aware=$(probe_aware "$name" "$dest")
	write_user_metadata "$name" "$kind" "$path" "$key" "$dest" "$aware" "$describe" >"$out/$name/kernel.json.tmp"
	mv "$out/$name/kernel.json.tmp" "$out/$name/kernel.json"
	echo "build-kernel: $1 ready as $name (MAP_PMEM_AWARE: ${aware:-not probed}): $out/$name/bzImage" >&2
}

usage="usage: build-kernel.sh FLAVOUR|PATH... | --list | --default KIND | --key FLAVOUR|PATH | --name FLAVOUR|PATH... | --check-config FILE"
[ $# -gt 0 ] || die "$usage"
case $1 in
--list) list_flavours; exit 0 ;;
--default)
	[ $# -eq 2 ] || die "$usage"
	flavour_defaults "$2" || die "no row of vm-images/flavours is a default for '$2' (see its default= words)"
	exit 0 ;;
--key)
	[ $# -eq 2 ] || die "$usage"
	if is_path "$2"; then
		p=$(user_path "$2")
		user_kind "$p" >/dev/null
		user_key "$p"
	else
		flavour_key "$2"
	fi
	exit 0 ;;
--name)
	shift
	for f in "$@"; do
		if is_path "$f"; then
			p=$(user_path "$f")
			user_kind "$p" >/dev/null
			user_name "$p"
		else
			echo "$f"
		fi
	done
	exit 0 ;;
--check-config)
	[ $# -eq 2 ] || die "$usage"
	check_config_file "$2"
	exit 0 ;;
-*) die "$usage" ;;
esac
for f in "$@"; do
	is_path "$f" && continue
	flavour_row "$f" >/dev/null || die "unknown flavour '$f' (known: $(list_flavours | tr '\n' ' '); a path to a kernel tree or bzImage works too)"
done
for f in "$@"; do
	if is_path "$f"; then build_user "$f"; else build_flavour "$f"; fi
done
