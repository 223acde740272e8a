/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user's program or checker for crashtest, as something the guest runs:
 * built from C or C++ sources with the ack, record and cache-flush helpers,
 * or taken as it is when it is already an x86-64 binary or a #!/bin/sh
 * script (the guest has busybox sh, and pmem-ack for acknowledgements).
 */
#ifndef HARNESS_USER_PROGRAM_H
#define HARNESS_USER_PROGRAM_H

#include <stddef.h>

/*
 * spec: one file (its path may hold spaces), or sources separated by
 * spaces, or one executable. C sources are built with $CC (gcc); with any
 * C++ source (.cc, .cpp, .cxx) the C files are compiled by $CC, the C++
 * ones by $CXX (g++), and $CXX links with libstdc++. cflags go to both,
 * ldlibs to the link (either may be NULL); they, $CC and $CXX are split
 * into words as sh would (quotes, $VAR), but nothing is run: a command
 * substitution is refused. The flags, the helpers and static linking are
 * workloads/user-program.mk's, read from the top of the tree. The result
 * is static, except against PMDK (ldlibs naming -lpmem...): Debian has no
 * static libndctl or libdaxctl for its libpmem.a.
 *
 * A binary, given or built, is static, or dynamic with every library it
 * needs in both guest images ($PMEM_BUILD/initramfs{,-checker}.cpio.libs,
 * written by vm-images/build-initramfs.sh). A script starts with #!/bin/sh,
 * is text with Unix line ends, is executable and under 1 MiB. Either is
 * given alone. 0, or -1 with one line saying what to do.
 */
int user_program_build(const char *spec, const char *out, const char *cflags, const char *ldlibs);

/*
 * What the files of spec hold, as 16 hex digits in hex (>= 17 bytes): a
 * resumed run must test the program the interrupted one tested. 0, or -1
 * when a file cannot be read.
 */
int user_program_hash(const char *spec, char *hex, size_t len);

#endif
