#!/usr/bin/env bash
# Every patch of every patch set passes the kernel tree's own checkpatch.pl
# and carries a Signed-off-by from a real identity (not @localhost); the
# series proper (aware) is an [RFC PATCH vN n/m] series with a written cover
# letter that Cc's linux-api, and credits the 2016 RFC.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

cache=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}
echo "TAP version 13"
for dir in vm-images/patches/*/; do
	version=$(basename "$dir")
	tree=$(find "$cache/src" -maxdepth 1 -name "linux-$version-*" -type d 2>/dev/null | sort | tail -n 1)
	for set in "$dir"*/; do
		set=$(basename "$set")
		if [ "$set" = aware ]; then
			cover=$dir$set/0000-cover-letter.patch
			[ -f "$cover" ] && ! grep -q '\*\*\*' "$cover" &&
				grep -q '^Cc: linux-api@vger.kernel.org' "$cover"
			tap_ok $? "$version/$set has a written cover letter that Cc's linux-api"
			# shellcheck disable=SC2143 # files *without* the subject; a pipe into grep -q could stop grep -L early
			[ -z "$(grep -L '^Subject: \[RFC PATCH v[0-9]* [0-9]*/[0-9]*\]' "$dir$set"/0*.patch)" ]
			tap_ok $? "$version/$set is an [RFC PATCH vN n/m] series"
			grep -q '^Suggested-by: Boaz Harrosh' "$dir$set"/0001-*.patch
			tap_ok $? "$version/$set credits the 2016 RFC (Suggested-by)"
		fi
		for p in "$dir$set"/0*.patch; do
			case $(basename "$p") in 0000-*) continue ;; esac
			name="$version/$set/$(basename "$p")"
			if [ -z "$tree" ]; then
				tap_ok 1 "$name passes checkpatch: linux-$version source not extracted: run 'make test-kernels'"
				continue
			fi
			# From stdin: inside a git work tree checkpatch takes a named .patch
			# for a source file. The commit ids the patches cite are Linux's,
			# which checkpatch looks up in the git tree it runs in: ours has
			# no Linux history, so that one check cannot be made here.
			# A new file asks whether MAINTAINERS needs updating; not for one
			# under tools/testing/selftests/, whose directories MAINTAINERS
			# already gives to their subsystem (mm: MEMORY MANAGEMENT).
			ignore=UNKNOWN_COMMIT_ID
			# shellcheck disable=SC2143 # grep -q in a pipe could stop sed early
			if [ -z "$(sed -n "s|^+++ b/||p" "$p" | grep -v "^tools/testing/selftests/")" ]; then
				ignore=$ignore,FILE_PATH_CHANGES
			fi
			out=$("$tree/scripts/checkpatch.pl" --no-tree --ignore "$ignore" -q - <"$p" 2>&1)
			rc=$?
			grep -q '^Signed-off-by: ' "$p" && ! grep -q '@localhost' "$p" && [ $rc -eq 0 ]
			tap_ok $? "$name passes checkpatch and is signed off"
			[ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
		done
	done
done
tap_done
