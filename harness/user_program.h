/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user's program or checker for crashtest, as a static x86-64 binary the
 * guest can run: built from one or more C sources with the ack, record and
 * cache-flush helpers, or taken as it is when it is already such a binary.
 */
#ifndef HARNESS_USER_PROGRAM_H
#define HARNESS_USER_PROGRAM_H

#include <stddef.h>

/*
 * spec: C sources separated by spaces, or one executable. Sources are built
 * with $CC (gcc), cflags and ldlibs (may be NULL). A prebuilt binary must be
 * a static x86-64 ELF executable: the guest has none of a dynamic one's
 * libraries. 0, or -1 with one line saying what to do.
 */
int user_program_build(const char *spec, const char *out, const char *cflags, const char *ldlibs);

/*
 * What the files of spec hold, as 16 hex digits in hex (>= 17 bytes): a
 * resumed run must test the program the interrupted one tested. 0, or -1
 * when a file cannot be read.
 */
int user_program_hash(const char *spec, char *hex, size_t len);

#endif
