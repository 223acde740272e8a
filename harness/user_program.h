/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user's program or checker for crashtest, as a static x86-64 binary the
 * guest can run: built from one or more C sources with the ack, record and
 * cache-flush helpers, or taken as it is when it is already such a binary.
 */
#ifndef HARNESS_USER_PROGRAM_H
#define HARNESS_USER_PROGRAM_H

/*
 * spec: C sources separated by spaces, or one executable. Sources are built
 * with $CC (gcc), cflags and ldlibs (may be NULL). A prebuilt binary must be
 * a static x86-64 ELF executable: the guest has none of a dynamic one's
 * libraries. 0, or -1 with one line saying what to do.
 */
int user_program_build(const char *spec, const char *out, const char *cflags, const char *ldlibs);

#endif
