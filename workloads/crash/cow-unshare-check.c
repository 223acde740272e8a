// SPDX-License-Identifier: GPL-2.0
/* cow-unshare.c: every byte of every page was copied by the kernel. */
#define COW_UNSHARE 1
#include "cow-write-check.c"
