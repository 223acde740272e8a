# shellcheck shell=bash
# Kernel selftests a patch series adds, built as a maintainer builds them:
# with the test's own Makefile (tools/testing/selftests/<dir>), against
# the uapi headers of the patched tree. For vm-images/build-kernel.sh,
# which ships them with the kernel, and vm-images/check-bisect.sh, which
# builds them after each patch.
#
#   . vm-images/lib-selftests.sh
#   mapfile -t tests < <(selftests_added PATCH...)
#   selftest_build TREE OBJ OUTDIR TEST [MAKE-ARG...] >>log 2>&1
#
# OBJ is the configured out-of-tree build directory of TREE; its uapi
# headers are made under OBJ/usr/include first (make headers: headers_install
# only copies them there again, with rsync).

# The selftest programs the patches add: tools/testing/selftests/<dir>/<name>
# for each <name>.c, one per line.
selftests_added() { # patch...
	sed -n 's|^+++ b/\(tools/testing/selftests/.*\)\.c$|\1|p' "$@" | sort -u
}

# Build one of them as OUTDIR/<name>; its status is make's.
selftest_build() { # tree obj outdir test [make-arg...]
	local tree=$1 obj=$2 outdir=$3 test=$4
	shift 4
	make -C "$tree" O="$obj" headers || return
	mkdir -p "$outdir"
	# As from a shell: not with the flags of a make that called us (ours
	# has no built-in variables, so no CC).
	MAKEFLAGS='' MAKELEVEL='' make -C "$tree/$(dirname "$test")" OUTPUT="$outdir" KHDR_INCLUDES="-isystem $obj/usr/include" \
		"$@" "$outdir/$(basename "$test")"
}
