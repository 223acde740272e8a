// SPDX-License-Identifier: GPL-2.0
/*
 * cow-reflink.c with a bystander: between each write fault on a shared
 * block and the program's own fsync, another file on the filesystem is
 * written and fsynced. Checked by cow-reflink-check.c.
 */
#define BYSTANDER 1
#include "cow-reflink.c"
