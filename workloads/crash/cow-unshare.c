// SPDX-License-Identifier: GPL-2.0
/*
 * cow-write.c, but each page is unshared with
 * fallocate(FALLOC_FL_UNSHARE_RANGE) instead of written: dax_unshare_iter()
 * copies the whole shared block with cached stores. Checked by
 * cow-unshare-check.c.
 */
#define COW_UNSHARE 1
#include "cow-write.c"
