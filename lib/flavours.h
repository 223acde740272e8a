/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel flavour table, vm-images/flavours, as far as the harness needs
 * it: which flavours a run takes when given none (a row's default= word).
 * The build compiles the table in; make and the scripts ask
 * vm-images/build-kernel.sh --default KIND, which reads the same rows.
 */
#ifndef PMEM_FLAVOURS_H
#define PMEM_FLAVOURS_H

#include <stddef.h>

/* The flavours a run of kind ("bench", "quick", "crashtest", "stock",
 * "xfstests": vm-images/flavours says which is which) takes when given
 * none, blank-separated in the order of the rows; "" when none does. The
 * list stays as it is for the life of the program. */
const char *flavour_defaults(const char *kind);

/* The same, of a table's text (a test's), into out: 0, or -1 when it does
 * not fit. */
int flavour_defaults_of(const char *text, const char *kind, char *out, size_t size);

#endif
