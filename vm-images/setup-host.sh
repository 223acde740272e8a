#!/usr/bin/env bash
# Install the Debian packages the harness needs on a Debian 12 host.
#
#   vm-images/setup-host.sh            install what is missing (root)
#   vm-images/setup-host.sh --check    list what is missing, change nothing
#
# QEMU comes from bookworm-backports when it is reachable (10.x, whose TCG
# plugin API v4 the instruction counts need); bookworm's 7.2 runs everything
# else. The script says which one it found.
set -euo pipefail

packages=(
	# kernel builds
	build-essential flex bison bc libelf-dev libssl-dev ccache cpio xz-utils patch file
	linux-source-6.1 linux-source-6.12
	# host programs and tests
	libjansson-dev libinih-dev libglib2.0-dev libxxhash-dev pkg-config shellcheck perl jq procps
	# make compdb: compile_commands.json
	bear
	# fuzz targets: clang with the libFuzzer runtime (not pulled in without recommends)
	clang libclang-rt-14-dev
	# guest image contents
	busybox-static ndctl daxctl e2fsprogs xfsprogs fio libpmem1 libpmem-dev linux-perf
	# PMDK programs under test: libpmemobj to build against, pmempool for their checkers
	libpmemobj-dev pmdk-tools
	# make pmdk (targets/pmdk/build.sh): PMDK 1.12.1 from its Debian source package
	# (apt-get source, dpkg-source -x) with NDCTL_ENABLE=n, which needs only make,
	# gcc, pkg-config and libc.a (build-essential, above); static binaries checked
	# with file, nm and addr2line
	dpkg-dev binutils
	# tests/program.t: a Rust program linking libpmemack.a
	rustc
	# reports: plots, and the browser the report test opens them in
	gnuplot-nox chromium fonts-dejavu-core
	# make xfstests: its build dependencies (xfstests README) and the tool that
	# makes its guest root filesystem from Debian packages
	automake libtool libtool-bin gawk libacl1-dev libaio-dev libcap-dev libgdbm-dev
	libgdbm-compat-dev liburing-dev uuid-dev xfslibs-dev mmdebstrap
	# make bench SCHEDULER=parallel|slurm, and the one-node Slurm cluster its test brings up
	parallel slurmctld slurmd slurm-client munge
	# the emulator
	qemu-system-x86 qemu-utils
)

installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

# The TCG plugin header comes from QEMU's source package (QEMU >= 10 only).
fetch_plugin_header() {
	"$(dirname "$0")/fetch-qemu-plugin-header.sh" >/dev/null ||
		echo "setup: no qemu-plugin.h: instructions per fault will be reported as unavailable" >&2
}

report_qemu() {
	local v
	v=$(qemu-system-x86_64 --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p')
	if [ "${v%%.*}" -ge 10 ] 2>/dev/null; then
		echo "setup: QEMU $v (TCG plugin API v4: instruction counts available)"
	else
		echo "setup: QEMU ${v:-?} (no TCG plugin API v4: instruction counts will be reported as unavailable; QEMU 10 is in bookworm-backports)"
	fi
}

if [ "${1:-}" = "--check" ]; then
	if [ ${#missing[@]} -gt 0 ]; then
		echo "setup: missing packages: ${missing[*]}; run 'sudo make setup'" >&2
		exit 1
	fi
	exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
	report_qemu
	fetch_plugin_header
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing packages: ${missing[*]}; run 'sudo make setup' (or apt-get install them)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
backports=
if grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		cat >/etc/apt/sources.list.d/bookworm-backports.sources <<-'EOF'
			Types: deb
			URIs: http://deb.debian.org/debian
			Suites: bookworm-backports
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
	fi
	backports=bookworm-backports
fi
apt-get update -qq || { echo "setup: apt-get update failed: check the Debian mirror" >&2; exit 1; }

rest=()
for p in "${missing[@]}"; do
	case $p in
	qemu-system-x86 | qemu-utils) ;;
	*) rest+=("$p") ;;
	esac
done
if [ ${#rest[@]} -gt 0 ]; then
	apt-get install -y -qq --no-install-recommends "${rest[@]}" ||
		{ echo "setup: apt-get install ${rest[*]} failed" >&2; exit 1; }
fi
if ! installed qemu-system-x86 || ! installed qemu-utils; then
	if [ -n "$backports" ] &&
		apt-get install -y -qq --no-install-recommends -t "$backports" qemu-system-x86 qemu-utils; then
		:
	else
		echo "setup: QEMU from bookworm-backports unavailable, installing bookworm's" >&2
		apt-get install -y -qq --no-install-recommends qemu-system-x86 qemu-utils ||
			{ echo "setup: apt-get install qemu-system-x86 failed" >&2; exit 1; }
	fi
fi
report_qemu
fetch_plugin_header
