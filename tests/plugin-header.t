#!/usr/bin/env bash
# qemu-plugin.h, fetched for real as a fresh machine fetches it: the
# installed QEMU's Debian source package (apt, its deb-src entry), into an
# empty cache. Every plugin (the ADR model, attribution, the instruction
# counts) is built against it; the fetch once died of SIGPIPE on every
# fresh machine while every machine with a warm cache passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

echo "TAP version 13"
cache=$(mktemp -d "${TMPDIR:-/tmp}/pmem-header.XXXXXX")
t0=$(date +%s)
dir=$(PMEM_CACHE=$cache vm-images/fetch-qemu-plugin-header.sh 2>"$cache.err")
rc=$?
t1=$(date +%s)
sed 's/^/# /' "$cache.err"
echo "# fetched into an empty cache in $((t1 - t0)) s: ${dir:-nothing}"
api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$dir/qemu-plugin.h" 2>/dev/null)
[ "$rc" -eq 0 ] && [[ $dir == "$cache"/qemu-plugin/* ]] && [ "${api:-0}" -ge 4 ]
tap_ok $? "fetch-qemu-plugin-header.sh into an empty cache: exit $rc, QEMU_PLUGIN_VERSION ${api:-none} (4 or more)"

# Once cached, the answer is the directory again, without apt.
dir2=$(PMEM_CACHE=$cache vm-images/fetch-qemu-plugin-header.sh 2>/dev/null)
[ "$dir2" = "$dir" ]
tap_ok $? "a second call answers from the cache"
rm -rf "$cache" "$cache.err"
tap_done
